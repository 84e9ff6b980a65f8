import { describe, expect, it } from 'vitest';
import { createInvitationMailer } from './invitation-mail.ts';

type Sent = { to: string; subject: string; text: string; messageId: string };

/** The invitation e-mail's text (docs/dashboard.md "Invitations"): the link, the account, the role, in the inviter's language. */
describe('invitation e-mail', () => {
  const capture = () => {
    const sent: Sent[] = [];
    const warnings: object[] = [];
    const mailer = createInvitationMailer({
      transport: {
        send: async (m) => {
          sent.push(m as Sent);
          return { transport: 'smtp', messageId: m.messageId, response: '250 OK' };
        },
      },
      from: 'Panel DTE <dte@example.cl>',
      log: { warn: (c) => void warnings.push(c) },
    });
    return { sent, warnings, mailer };
  };
  const link = 'https://panel.example.cl/invitations/accept?token=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdE';

  it('says who invites to which account with which role, and carries the link', async () => {
    const { sent, mailer } = capture();
    mailer.invite('nueva@example.com', 'es', { link, accountName: 'Facturín', inviterName: 'Ana', role: 'operator' });
    mailer.invite('new@example.com', 'en', { link, accountName: 'Facturín', inviterName: 'Ana', role: 'read_only' });
    await new Promise((r) => setImmediate(r));
    expect(sent[0]).toMatchObject({ to: 'nueva@example.com', subject: 'Te invitaron a Facturín en el Panel DTE' });
    expect(sent[0]!.text).toContain('Ana te invitó a la cuenta Facturín del Panel DTE con el rol Operador.');
    expect(sent[0]!.text).toContain(link);
    expect(sent[0]!.messageId).toMatch(/^<invite-[0-9a-f-]{36}@example\.cl>$/);
    expect(sent[1]!.text).toContain('as Read-only');
  });

  it('logs a failed send with its code and a hash of the address, never the address or the link', async () => {
    const warnings: object[] = [];
    const mailer = createInvitationMailer({
      transport: { send: () => Promise.reject(Object.assign(new Error(`refused ${link}`), { code: 'ECONNREFUSED' })) },
      from: 'Panel DTE <dte@example.cl>',
      log: { warn: (c) => void warnings.push(c) },
    });
    mailer.invite('nueva@example.com', 'es', { link, accountName: 'Facturín', inviterName: 'Ana', role: 'admin' });
    await new Promise((r) => setTimeout(r, 10));
    expect(warnings).toHaveLength(1);
    const logged = JSON.stringify(warnings);
    expect(logged).toContain('ECONNREFUSED');
    expect(logged).not.toContain('nueva@example.com');
    expect(logged).not.toContain('token=');
  });
});
