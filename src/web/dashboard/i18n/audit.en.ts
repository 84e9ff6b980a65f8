import type { AuditMessages } from './audit.es.ts';

/** English texts of the audit log page; typed against the Spanish ones. */
export const auditEn: AuditMessages = {
  nav: 'Audit',
  title: 'Audit log',
  intro: 'Who changed what, when and from where: members and API keys (by their prefix). No secret is ever kept.',
  when: 'When',
  actor: 'Who',
  action: 'Action',
  target: 'On',
  from: 'From',
  details: 'Details',
  mode: 'Mode',
  live: 'live',
  test: 'test',
  since: 'Since',
  until: 'Until',
  actorHint: "A member's e-mail or a key's prefix",
  actionHint: 'An action (tenant.created) or a prefix (tenant.)',
  none: 'No events match these filters.',
  exportCsv: 'Export CSV',
  actorType: { member: 'member', api_key: 'API key', system: 'system' },
  retention: (days: number) => `Events are kept for ${days} days.`,
  errorCodes: {
    invalid_audit_filter: 'Check the filters: the action looks like tenant.created or tenant., and the dates are valid days.',
  },
};
