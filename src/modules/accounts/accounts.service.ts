import type { Db, Sql } from '../../db/types.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/tokens.ts';
import type { ApiKeysService } from '../api-keys/index.ts';
import type { AuditActor } from '../audit/index.ts';
import type { MembersService } from '../members/index.ts';
import { normaliseEmail } from '../../lib/email.ts';
import { accountsStore, type AccountRow } from './accounts.store.ts';
import { modeOf, type Mode, type Scope } from './modes.ts';

export interface Account {
  id: string;
  name: string;
  email: string;
  createdAt: string;
}

export const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  email: r.email,
  createdAt: r.created_at.toISOString(),
});

export { normaliseEmail };

/** The account name as stored: trimmed, never empty. */
export function normaliseAccountName(name: string): string {
  const n = name.trim();
  if (!n) throw errors.invalid('invalid_name', 'The account name must not be empty.', { param: 'name' });
  return n;
}

export function createAccountsService(deps: {
  db: Db;
  clock: Clock;
  apiKeys: ApiKeysService;
  members: Pick<MembersService, 'createOwnerIn' | 'emailInUse' | 'followAccountEmail'>;
}) {
  const { db, clock } = deps;
  // Scope id → scope. A scope never changes (a twin keeps its account for life), so entries need
  // no invalidation; a deleted account's entry only answers for ids nothing refers to any more.
  const scopes = new Map<string, Scope>();
  const remember = (s: Scope) => {
    if (scopes.size >= 10_000) scopes.delete(scopes.keys().next().value!);
    scopes.set(s.id, s);
    return s;
  };
  // Live account id → its test scope, once known to exist (a twin, too, never changes).
  const twins = new Map<string, Scope>();
  const toScope = (r: AccountRow): Scope => ({ id: r.id, accountId: r.live_account_id ?? r.id, livemode: r.live_account_id === null });
  /** The scope a scope id names (a live account's id, or its twin's); undefined for no account. */
  const scopeOf = async (scopeId: string, sql: Sql = db): Promise<Scope | undefined> => {
    const known = scopes.get(scopeId);
    if (known) return known;
    const row = await accountsStore.get(sql, scopeId);
    return row ? remember(toScope(row)) : undefined;
  };
  /** The live account behind a scope id, so account-level reads and changes ignore the mode. */
  const liveIdOf = async (scopeId: string) => (await scopeOf(scopeId))?.accountId ?? scopeId;
  /**
   * The scope of an account (given by any of its scope ids) in a mode; the test twin is made the
   * first time test mode is asked for (migration 202612050900_test_mode).
   */
  const scopeFor = async (accountScopeId: string, mode: Mode, sql?: Sql): Promise<Scope> => {
    // Both answers are cached after the first: neither needs a transaction then.
    const own = await scopeOf(accountScopeId, sql);
    if (!own) throw errors.notFound('account', accountScopeId);
    if (mode === 'live') return (await scopeOf(own.accountId, sql))!;
    const known = twins.get(own.accountId);
    if (known) return known;
    const make = async (tx: Sql): Promise<Scope> => {
      const twin = await accountsStore.testTwin(tx, own.accountId, newId(), clock.now());
      if (!twin) throw errors.notFound('account', accountScopeId);
      return remember(toScope(twin));
    };
    // In the caller's transaction the twin is not remembered: that transaction may still roll back.
    if (sql) return make(sql);
    const scope = await db.transaction(make);
    if (twins.size >= 10_000) twins.delete(twins.keys().next().value!);
    twins.set(scope.accountId, scope);
    return scope;
  };
  return {
    scopeOf,
    scopeFor,
    /**
     * Creates an account and, when asked, its first API key (the CLI and sign-up use this). `sql`
     * may be the caller's transaction (a confirmed sign-up consumes its link in the same one).
     */
    async create(input: { name: string; email: string; passwordHash?: string; withApiKey?: boolean; withTestApiKey?: boolean }, sql?: Sql) {
      const name = normaliseAccountName(input.name);
      const email = normaliseEmail(input.email);
      const run = async (tx: Sql) => {
        if ((await accountsStore.findByEmail(tx, email)) || (await deps.members.emailInUse(email, tx)))
          throw errors.conflict('email_taken', `An account with the e-mail ${email} already exists.`, { param: 'email' });
        const row = await accountsStore.insert(tx, { id: newId(), name, email, now: clock.now() });
        // The holder is the account's first member, its owner; the password (if any) is theirs.
        const owner = await deps.members.createOwnerIn(tx, { accountId: row.id, email, name, passwordHash: input.passwordHash ?? null });
        const apiKey = input.withApiKey ? await deps.apiKeys.createIn(tx, { id: row.id, livemode: true }, { name: 'default' }) : undefined;
        // Test mode from day one (docs/design.md "Test mode"): the CLI hands out a test key beside the live one.
        const testApiKey = input.withTestApiKey
          ? await deps.apiKeys.createIn(tx, await scopeFor(row.id, 'test', tx), { name: 'default' })
          : undefined;
        return { account: toAccount(row), owner, apiKey, ...(testApiKey ? { testApiKey } : {}) };
      };
      return sql ? run(sql) : db.transaction(run);
    },
    /**
     * An API key in a mode of the account (docs/design.md "Test mode"): by default the asking key's;
     * a live key may make test keys (the account's test twin is made on first use), a test key only
     * test keys, so a key of the mode that cannot touch real documents never yields one that can.
     */
    async createApiKey(
      asker: { scopeId: string; livemode: boolean },
      input: { name?: string | undefined; mode?: Mode | undefined },
      actor?: AuditActor,
    ) {
      const mode = input.mode ?? modeOf(asker.livemode);
      if (mode === 'live' && !asker.livemode)
        throw new AppError(
          'forbidden',
          'live_key_from_test_key',
          'A test key can only create test keys. Create live keys with a live key (sk_live_…) or in the dashboard.',
          { param: 'mode' },
        );
      return db.transaction(async (tx) => deps.apiKeys.createIn(tx, await scopeFor(asker.scopeId, mode, tx), { name: input.name }, actor));
    },
    async get(accountId: string): Promise<Account> {
      const row = await accountsStore.get(db, await liveIdOf(accountId));
      if (!row) throw errors.notFound('account', accountId);
      return toAccount(row);
    },
    /** The account row of an e-mail (the holder's address). */
    async findByEmail(email: string) {
      return accountsStore.findByEmail(db, email);
    },
    /** The account's display name, for pages that must say who is asking (the hosted page). */
    async nameOf(accountId: string): Promise<string | undefined> {
      return (await accountsStore.get(db, await liveIdOf(accountId)))?.name;
    },
    async update(scopeId: string, patch: { name?: string; email?: string }): Promise<Account> {
      const accountId = await liveIdOf(scopeId);
      const name = patch.name?.trim();
      if (patch.name !== undefined && !name) throw errors.invalid('invalid_name', 'The account name must not be empty.', { param: 'name' });
      const email = patch.email === undefined ? undefined : normaliseEmail(patch.email);
      return db.transaction(async (tx) => {
        const before = await accountsStore.get(tx, accountId);
        if (email) {
          const other = await accountsStore.findByEmail(tx, email);
          // The holder's login follows the account's e-mail, so no other login may have it.
          const login = before ? await deps.members.emailInUse(email, tx, { accountId, email: before.email }) : false;
          if ((other && other.id !== accountId) || login)
            throw errors.conflict('email_taken', `An account with the e-mail ${email} already exists.`, { param: 'email' });
        }
        const row = await accountsStore.update(tx, accountId, { ...(name ? { name } : {}), ...(email ? { email } : {}) }, clock.now());
        if (!row || !before) throw errors.notFound('account', accountId);
        if (email) await deps.members.followAccountEmail(tx, accountId, before.email, email);
        return toAccount(row);
      });
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
