import type { DashboardAction } from '../../../modules/members/index.ts';

/**
 * Which role-policy action each dashboard route is (docs/dashboard.md "Members and roles"). The
 * policy itself — which role may do which action, in which mode — is the members module's table
 * (src/modules/members/roles.ts); this file only names the action of each route, so that no page
 * decides on its own. The dashboard plugin refuses to start with a route that is neither public
 * nor listed here, and checks the action before any handler (or body parser) runs.
 */
const VIEW: DashboardAction = 'dashboard.view';

export const ROUTE_ACTIONS: Readonly<Record<string, DashboardAction>> = {
  'GET /': VIEW,
  // Companies
  'GET /tenants': VIEW,
  'GET /tenants/new': 'tenants.manage',
  'POST /tenants/new': 'tenants.manage',
  'GET /tenants/:tenantId': VIEW,
  'GET /tenants/:tenantId/edit': 'tenants.manage',
  'POST /tenants/:tenantId/edit': 'tenants.manage',
  'GET /tenants/:tenantId/logo': VIEW,
  'POST /tenants/:tenantId/logo': 'tenants.manage',
  'GET /tenants/:tenantId/logo/delete': 'tenants.manage',
  'POST /tenants/:tenantId/logo/delete': 'tenants.manage',
  'GET /tenants/:tenantId/activation-link': 'credentials.manage',
  'POST /tenants/:tenantId/activation-link': 'credentials.manage',
  'POST /tenants/:tenantId/certificates/:certificateId/primary': 'credentials.manage',
  'GET /tenants/:tenantId/credentials': 'credentials.manage',
  'POST /tenants/:tenantId/credentials/api-key': 'credentials.manage',
  'POST /tenants/:tenantId/credentials/certificate': 'credentials.manage',
  'GET /tenants/:tenantId/folios/request': 'folios.manage',
  'POST /tenants/:tenantId/folios/request': 'folios.manage',
  // Documents
  'GET /tenants/:tenantId/documents': VIEW,
  'GET /tenants/:tenantId/documents.csv': VIEW,
  'GET /tenants/:tenantId/documents/:dteId': VIEW,
  'GET /tenants/:tenantId/documents/:dteId/xml': VIEW,
  'GET /tenants/:tenantId/documents/:dteId/pdf': VIEW,
  'POST /tenants/:tenantId/documents/:dteId/send': 'documents.manage',
  'GET /tenants/:tenantId/documents/:dteId/resend': 'documents.manage',
  'POST /tenants/:tenantId/documents/:dteId/resend': 'documents.manage',
  'GET /tenants/:tenantId/documents/:dteId/credit-note': 'documents.manage',
  'POST /tenants/:tenantId/documents/:dteId/credit-note': 'documents.manage',
  // Certification (issue 28): its actions make and send documents and books, so they are documents.manage.
  'GET /tenants/:tenantId/certification': VIEW,
  'GET /tenants/:tenantId/certification/books/:kind/xml': VIEW,
  'POST /tenants/:tenantId/certification/set': 'documents.manage',
  'POST /tenants/:tenantId/certification/documents': 'documents.manage',
  'POST /tenants/:tenantId/certification/send': 'documents.manage',
  'POST /tenants/:tenantId/certification/books/:kind/send': 'documents.manage',
  // Mailbox (the local copies of e-mails to receptors)
  'GET /mailbox': VIEW,
  'GET /mailbox/:mailboxId': VIEW,
  'GET /mailbox/:mailboxId/raw': VIEW,
  'GET /mailbox/:mailboxId/attachments/:index': VIEW,
  // API keys
  'GET /settings/api-keys': 'apiKeys.view',
  'POST /settings/api-keys': 'apiKeys.manage',
  'GET /settings/api-keys/:id/revoke': 'apiKeys.manage',
  'POST /settings/api-keys/:id/revoke': 'apiKeys.manage',
  // Webhooks and their logs
  'GET /webhooks': VIEW,
  'POST /webhooks': 'webhooks.manage',
  'GET /webhooks/:endpointId': VIEW,
  'POST /webhooks/:endpointId': 'webhooks.manage',
  'POST /webhooks/:endpointId/disable': 'webhooks.manage',
  'POST /webhooks/:endpointId/enable': 'webhooks.manage',
  'POST /webhooks/:endpointId/secret': 'webhooks.manage',
  'GET /webhooks/:endpointId/secret/rotate': 'webhooks.manage',
  'POST /webhooks/:endpointId/secret/rotate': 'webhooks.manage',
  'POST /webhooks/:endpointId/test': 'webhooks.manage',
  'GET /webhooks/:endpointId/delete': 'webhooks.manage',
  'POST /webhooks/:endpointId/delete': 'webhooks.manage',
  'GET /logs/webhooks': VIEW,
  'GET /logs/webhooks/:messageId': VIEW,
  'POST /logs/webhooks/:messageId/resend': 'logs.resend',
  // Members (the service checks again, with the ownership and last-owner rules)
  'GET /settings/members': VIEW,
  'POST /settings/members/invitations': 'members.manage',
  'POST /settings/members/invitations/:invitationId/revoke': 'members.manage',
  'POST /settings/members/:memberId/role': 'members.manage',
  'GET /settings/members/:memberId/remove': 'members.leave',
  'POST /settings/members/:memberId/remove': 'members.leave',
  // Test mode: switching which data the session shows (every role; docs/dashboard.md "Test mode")
  'POST /mode': 'mode.switch',
  // The audit log and its CSV (docs/audit.md): owners, admins and developers.
  'GET /settings/audit': 'audit.view',
  'GET /settings/audit.csv': 'audit.view',
};

/** The action of a route as Fastify names it (HEAD is its GET). */
export const actionOf = (method: string, url: string): DashboardAction | undefined =>
  ROUTE_ACTIONS[`${method === 'HEAD' ? 'GET' : method} ${url}`];
