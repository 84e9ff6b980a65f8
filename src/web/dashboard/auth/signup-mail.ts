import crypto from 'node:crypto';
import { recipientHash, type MailTransport } from '../../../modules/exchange/index.ts';
import type { SignupMailer } from '../../../modules/dashboard-auth/index.ts';
import { DEFAULT_LANG, isLang, messagesFor } from '../i18n/index.ts';

/**
 * The two e-mails of a confirmed sign-up (docs/dashboard.md "Sign-up"): the confirmation link for
 * a new address, and "you already have an account" for a registered one. Sent through the
 * exchange module's SMTP transport; only built when SMTP_URL is set.
 *
 * Sending happens after the answer is decided and is not awaited by the sign-up, so neither the
 * answer nor its timing depends on which of the two mails goes out. A failure is logged with the
 * error's code and a hash of the recipient: never the address, never the link (it holds the token).
 * The mailer the dashboard-auth module is given (its `SignupMailer`); the text is the dashboard's.
 */
export interface SignupMailLog {
  warn(context: object, message: string): void;
}

/** `DTE <dte@example.cl>` → `example.cl`, for the Message-ID. */
const domainOf = (from: string): string => /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';

export function createSignupMailer(deps: { transport: Pick<MailTransport, 'send'>; from: string; log: SignupMailLog }): SignupMailer {
  const send = (to: string, subject: string, text: string) => {
    const messageId = `<signup-${crypto.randomUUID()}@${domainOf(deps.from)}>`;
    // The meta names an exchange delivery for the local mailbox transport; sign-up mail only ever
    // goes through SMTP, which does not read it.
    const meta = { accountId: '', tenantId: '', deliveryId: messageId };
    void deps.transport.send({ messageId, from: deps.from, to, subject, text, attachments: [] }, meta).catch((e: unknown) => {
      const code = typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : 'unknown';
      deps.log.warn({ code, recipient: recipientHash(to) }, 'sign-up e-mail could not be sent');
    });
  };
  return {
    confirmLink(to, lang, link) {
      const m = messagesFor(isLang(lang) ? lang : DEFAULT_LANG).signupMail;
      send(to, m.confirmSubject, m.confirmText(link));
    },
    alreadyRegistered(to, lang, loginUrl) {
      const m = messagesFor(isLang(lang) ? lang : DEFAULT_LANG).signupMail;
      send(to, m.existingSubject, m.existingText(loginUrl));
    },
  };
}
