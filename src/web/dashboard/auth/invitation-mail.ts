import crypto from 'node:crypto';
import { recipientHash, type MailTransport } from '../../../modules/exchange/index.ts';
import type { InvitationMailer } from '../../../modules/members/index.ts';
import { DEFAULT_LANG, isLang, messagesFor } from '../i18n/index.ts';
import type { SignupMailLog } from './signup-mail.ts';

/**
 * The invitation e-mail (docs/dashboard.md "Invitations"), sent through the same SMTP transport as
 * the sign-up mail; only built when SMTP_URL is set. Not awaited by the invitation; a failure is
 * logged with the error's code and a hash of the recipient, never the address or the link.
 */
export function createInvitationMailer(deps: {
  transport: Pick<MailTransport, 'send'>;
  from: string;
  log: SignupMailLog;
}): InvitationMailer {
  const domain = /@([^>\s]+)>?\s*$/.exec(deps.from)?.[1] ?? 'localhost';
  return {
    invite(to, lang, m) {
      const t = messagesFor(isLang(lang) ? lang : DEFAULT_LANG).teams;
      const messageId = `<invite-${crypto.randomUUID()}@${domain}>`;
      const meta = { accountId: '', tenantId: '', deliveryId: messageId };
      const mail = {
        messageId,
        from: deps.from,
        to,
        subject: t.mail.subject(m.accountName),
        text: t.mail.text(m.inviterName, m.accountName, t.roles[m.role], m.link),
        attachments: [],
      };
      void deps.transport.send(mail, meta).catch((e: unknown) => {
        const code = typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : 'unknown';
        deps.log.warn({ code, recipient: recipientHash(to) }, 'invitation e-mail could not be sent');
      });
    },
  };
}
