/**
 * Who may do what in the dashboard (issue 29; docs/dashboard.md "Members and roles"). This table
 * is the only place that decides it: the dashboard maps each of its routes to one action
 * (src/web/dashboard/http/route-actions.ts) and asks `allowed(role, action)` before the handler runs.
 *
 * - owner: everything, including ownership (making or unmaking owners).
 * - admin: everything but ownership.
 * - developer: API keys, webhooks and their logs, the audit log (and test mode, when it exists).
 * - operator: companies, their credentials and activation links, folios, documents.
 * - read_only: looks at every page (never a secret), changes nothing.
 */
export const ROLES = ['owner', 'admin', 'developer', 'operator', 'read_only'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

const ALL: readonly Role[] = ROLES;
const MANAGERS: readonly Role[] = ['owner', 'admin'];
const DEVELOPERS: readonly Role[] = ['owner', 'admin', 'developer'];
const OPERATORS: readonly Role[] = ['owner', 'admin', 'operator'];

export const POLICY = {
  /** Overview, companies, documents, webhooks, logs, mailbox, members: reading. */
  'dashboard.view': ALL,
  /** Leaving the account (removing oneself); the last owner cannot. */
  'members.leave': ALL,
  'members.manage': MANAGERS,
  /** The keys' names and prefixes (never a key): read_only sees them too. */
  'apiKeys.view': [...DEVELOPERS, 'read_only'],
  'apiKeys.manage': DEVELOPERS,
  'webhooks.manage': DEVELOPERS,
  'logs.resend': DEVELOPERS,
  'tenants.manage': OPERATORS,
  'credentials.manage': OPERATORS,
  'folios.manage': OPERATORS,
  'documents.manage': OPERATORS,
  /**
   * The audit log (docs/audit.md): who did what, with their e-mail and address. Those who manage
   * the account and its integration; operators and read-only members do not see colleagues' addresses.
   */
  'audit.view': DEVELOPERS,
} as const satisfies Record<string, readonly Role[]>;

export type DashboardAction = keyof typeof POLICY;
export const DASHBOARD_ACTIONS = Object.keys(POLICY) as DashboardAction[];
export const isDashboardAction = (v: unknown): v is DashboardAction => typeof v === 'string' && Object.hasOwn(POLICY, v);

export const allowed = (role: Role, action: DashboardAction): boolean => (POLICY[action] as readonly Role[]).includes(role);
export const rolesFor = (action: DashboardAction): readonly Role[] => POLICY[action];

/** Only an owner makes or unmakes owners; an admin manages every other role. */
export const mayAssign = (actor: Role, from: Role, to: Role): boolean =>
  actor === 'owner' || (actor === 'admin' && from !== 'owner' && to !== 'owner');
