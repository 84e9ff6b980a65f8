/**
 * Accounts: the SaaS companies that use this service (our users). Owns the `accounts` table;
 * others read an account only through `AccountsService`.
 */
export { createAccountsService, normaliseAccountName, normaliseEmail } from './accounts.service.ts';
export type { Account, AccountsService } from './accounts.service.ts';
export { default as accountsRoutes } from './accounts.routes.ts';
export { isMode, modeOf } from './modes.ts';
export type { Mode, Scope } from './modes.ts';
