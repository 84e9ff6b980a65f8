/**
 * Who may do what in the dashboard (issue 29; docs/dashboard.md "Members and roles"). This table
 * is the only place that decides it: the dashboard maps each of its routes to one action
 * (src/web/dashboard/http/route-actions.ts) and asks `allowed(role, action)` before the handler runs.
 *
 * - owner: everything, including ownership (making or unmaking owners).
 * - admin: everything but ownership.
 * - developer: API keys, webhooks and their logs, the audit log; in test mode also what an operator
 *   does in live mode (companies, credentials, folios, documents), since nothing made there reaches the SII.
 * - operator: companies, their credentials and activation links, folios, documents (both modes).
 * - read_only: looks at every page (never a secret), changes nothing.
 * Every role may switch the dashboard between live and test data (`mode.switch`): switching
 * shows other data and changes none. Each action is checked for the role AND the mode the
 * session shows (docs/dashboard.md "Members and roles", "Test mode").
 */
export const ROLES = ['owner', 'admin', 'developer', 'operator', 'read_only'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

const ALL: readonly Role[] = ROLES;
const MANAGERS: readonly Role[] = ['owner', 'admin'];
const DEVELOPERS: readonly Role[] = ['owner', 'admin', 'developer'];
const OPERATORS: readonly Role[] = ['owner', 'admin', 'operator'];

/** The mode an action is taken in (the same words as src/modules/accounts/modes.ts). */
export type PolicyMode = 'live' | 'test';

/** Who may do what in live mode, the mode of real tax documents. */
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
  /** Switching between live and test data (a view: it changes no data). */
  'mode.switch': ALL,
  /**
   * The audit log (docs/audit.md): who did what, with their e-mail and address. Those who manage
   * the account and its integration; operators and read-only members do not see colleagues' addresses.
   */
  'audit.view': DEVELOPERS,
} as const satisfies Record<string, readonly Role[]>;

export type DashboardAction = keyof typeof POLICY;
export const DASHBOARD_ACTIONS = Object.keys(POLICY) as DashboardAction[];
export const isDashboardAction = (v: unknown): v is DashboardAction => typeof v === 'string' && Object.hasOwn(POLICY, v);

/**
 * Test mode widens the live policy and never narrows it: a developer may try in test data what an
 * operator does in live (the "developer: … test mode"); nothing there reaches the SII (test
 * tenants use the built-in emulator). Account-level actions (members) are the same in both modes.
 */
const TEST_MODE_EXTRA: Partial<Record<DashboardAction, readonly Role[]>> = {
  'tenants.manage': ['developer'],
  'credentials.manage': ['developer'],
  'folios.manage': ['developer'],
  'documents.manage': ['developer'],
};

const TEST_POLICY = {} as Record<DashboardAction, readonly Role[]>;
for (const a of DASHBOARD_ACTIONS) {
  const roles = new Set<Role>([...POLICY[a], ...(TEST_MODE_EXTRA[a] ?? [])]);
  TEST_POLICY[a] = ROLES.filter((r) => roles.has(r));
}

/** The roles that may take `action` in `mode`, in the order of ROLES. */
export const rolesFor = (action: DashboardAction, mode: PolicyMode): readonly Role[] => (mode === 'test' ? TEST_POLICY : POLICY)[action];
export const allowed = (role: Role, action: DashboardAction, mode: PolicyMode): boolean => rolesFor(action, mode).includes(role);

/** Only an owner makes or unmakes owners; an admin manages every other role. */
export const mayAssign = (actor: Role, from: Role, to: Role): boolean =>
  actor === 'owner' || (actor === 'admin' && from !== 'owner' && to !== 'owner');
