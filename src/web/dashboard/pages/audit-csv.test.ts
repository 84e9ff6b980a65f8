import { expect, it } from 'vitest';
import { auditCsvHeader, auditCsvRow } from './audit-csv.ts';

it('writes one line per event, its text cells safe from formulas and quoted where needed', () => {
  const line = auditCsvRow({
    id: 'e1',
    action: 'member.invited',
    actor: { type: 'member', id: 'm1', label: '=HYPERLINK("http://x")' },
    target: { type: 'invitation', id: 'i1' },
    ip: '198.51.100.1',
    userAgent: '@evil;agent',
    details: { email: 'a@example.com', role: 'admin' },
    livemode: true,
    createdAt: '2026-12-05T12:00:00.000Z',
  });
  expect(auditCsvHeader()).toBe('id;createdAt;livemode;actorType;actorId;actor;action;targetType;targetId;ip;userAgent;details\r\n');
  expect(line).toBe(
    'e1;2026-12-05T12:00:00.000Z;true;member;m1;"\'=HYPERLINK(""http://x"")";member.invited;invitation;i1;198.51.100.1;"\'@evil;agent";' +
      '"{""email"":""a@example.com"",""role"":""admin""}"\r\n',
  );
});
