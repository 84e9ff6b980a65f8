import crypto from 'node:crypto';
import type { Db } from '../../db/types.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { RateLimit, RateLimiter } from '../../lib/rate-limiter.ts';
import { sha256Hex } from '../../lib/tokens.ts';
import { isMode, normaliseAccountName, normaliseEmail, type AccountsService, type Mode } from '../accounts/index.ts';
import { isRole, type MembersService, type Role } from '../members/index.ts';
import {
  dummyHash,
  hashPassword,
  needsRehash,
  passwordProblem,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from './password.ts';
import { pendingSignupsStore } from './pending-signups.store.ts';
import { sessionsStore, type SessionRow } from './sessions.store.ts';

/**
 * The account holder's login to the dashboard: sign-up, log-in, log-out, server-side sessions and
 * their CSRF tokens. Knows nothing of HTTP; the routes put the token in a cookie.
 *
 * Invariants:
 * - The session token (cookie value) is 32 random bytes; the database keeps only its SHA-256.
 * - Logging in or signing up always issues a NEW token and deletes the one presented, so a token
 *   planted in a browser before login (session fixation) never becomes a logged-in session.
 * - A session ends at logout, after `idleMs` without a request, or `absoluteMs` after it began,
 *   whichever comes first; changing the password ends all of the account's sessions.
 * - The CSRF token is HMAC-SHA256(session token, "csrf"): bound to the session, different for every
 *   session, and not derivable from the database (which has only the token's hash).
 * - With a mailer (SMTP_URL set), sign-up never says whether an e-mail has an account: a new and a
 *   registered address get the same answer after the same work (a scrypt hash, one write), and
 *   only the e-mail sent differs (a confirmation link, or "you already have an account"). The
 *   link's token is 32 random bytes kept as its SHA-256, used once, for `confirmationTtlMs`.
 *   Without a mailer, sign-up creates the account at once and so does tell (docs/dashboard.md).
 */
export const SESSION_TOKEN_BYTES = 32;
const SESSION_TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
/** Confirmation tokens have the same shape as session tokens (32 random bytes, base64url). */
const CONFIRM_TOKEN_RE = SESSION_TOKEN_RE;

/**
 * Sends the two sign-up e-mails. The dashboard supplies it (src/web/dashboard/auth/signup-mail.ts,
 * which owns their text); `lang` is the visitor's language as the dashboard named it, passed through.
 */
export interface SignupMailer {
  confirmLink(to: string, lang: string, link: string): void;
  alreadyRegistered(to: string, lang: string, loginUrl: string): void;
}

export interface DashboardSession {
  tokenHash: string;
  account: { id: string; name: string; email: string } | null;
  /** The member logged in (present whenever `account` is), with the role the database has now. */
  member: { id: string; name: string; email: string; role: Role } | null;
  csrfToken: string;
  expiresAt: Date;
  /** The mode the dashboard shows (docs/dashboard.md "Test mode"); live unless switched. */
  mode: Mode;
}

export interface DashboardAuthSettings {
  idleMs: number;
  absoluteMs: number;
  /** Pre-login sessions (they only carry the CSRF token of the login form) live this long at most. */
  anonymousMs: number;
  signupEnabled: boolean;
  /** Per client IP; the login and sign-up forms each have their own bucket. */
  loginRateLimit: RateLimit;
  /** How long a sign-up confirmation link works (24 h). */
  confirmationTtlMs: number;
  /** The public URL links in e-mails start with (APP_URL). */
  publicUrl: string;
}

export const csrfTokenFor = (sessionToken: string): string =>
  crypto.createHmac('sha256', sessionToken).update('csrf-v1').digest('base64url');

/** Constant-time check of a submitted CSRF token against the session's. */
export function csrfMatches(session: DashboardSession, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length !== session.csrfToken.length) return false;
  return crypto.timingSafeEqual(Buffer.from(presented), Buffer.from(session.csrfToken));
}

const invalidCredentials = () => errors.unauthorized('invalid_credentials', 'The e-mail or the password is not correct.');

export function checkPassword(password: string, param = 'password'): void {
  const problem = passwordProblem(password);
  if (problem === 'too_short')
    throw errors.invalid('password_too_short', `The password must have at least ${PASSWORD_MIN_LENGTH} characters.`, { param });
  if (problem === 'too_long')
    throw errors.invalid('password_too_long', `The password must have at most ${PASSWORD_MAX_LENGTH} characters.`, { param });
}

export function createDashboardAuthService(deps: {
  db: Db;
  clock: Clock;
  accounts: Pick<AccountsService, 'create' | 'findByEmail'>;
  members: Pick<MembersService, 'findLogin' | 'emailInUse' | 'setPasswordHash' | 'acceptInvitation'>;
  rateLimiter: RateLimiter;
  settings: DashboardAuthSettings;
  /** Present when SMTP_URL is set: sign-up then confirms the address by e-mail. */
  mailer?: SignupMailer | undefined;
}) {
  const { db, clock, settings } = deps;

  const toSession = (row: SessionRow, token: string): DashboardSession => ({
    tokenHash: row.token_hash,
    account: row.account_id ? { id: row.account_id, name: row.account_name ?? '', email: row.account_email ?? '' } : null,
    member:
      row.member_id && isRole(row.member_role)
        ? { id: row.member_id, name: row.member_name ?? '', email: row.member_email ?? '', role: row.member_role }
        : null,
    csrfToken: csrfTokenFor(token),
    expiresAt: row.expires_at,
    mode: isMode(row.mode) ? row.mode : 'live',
  });

  /** Creates a session row and returns its token; `replace` is the token it supersedes. */
  const issue = async (login: { accountId: string; memberId: string } | null, replace: string | undefined) => {
    const accountId = login?.accountId ?? null;
    const token = crypto.randomBytes(SESSION_TOKEN_BYTES).toString('base64url');
    const now = clock.now();
    const tokenHash = sha256Hex(token);
    const expiresAt = new Date(now.getTime() + (accountId ? settings.absoluteMs : settings.anonymousMs));
    await db.transaction(async (tx) => {
      if (replace) await sessionsStore.remove(tx, sha256Hex(replace));
      await sessionsStore.insert(tx, { tokenHash, accountId, memberId: login?.memberId ?? null, now, expiresAt });
    });
    const row = (await sessionsStore.get(db, tokenHash))!;
    return { token, session: toSession(row, token) };
  };

  const limited = async (key: string) => {
    const r = await deps.rateLimiter.take(key, settings.loginRateLimit);
    if (!r.allowed)
      throw new AppError(
        'rate_limited',
        'login_rate_limited',
        `Too many attempts from your network. Try again in ${r.retryAfterSeconds} seconds.`,
        {
          retryAfterSeconds: r.retryAfterSeconds,
        },
      );
  };

  const signupAllowed = async (ip: string) => {
    if (!settings.signupEnabled)
      throw new AppError('not_found', 'signup_disabled', 'Sign-up is turned off on this server. Ask its operator for an account.');
    await limited(`signup-ip:${ip}`);
  };

  const linkProblem = (code: 'signup_link_invalid' | 'signup_link_expired' | 'signup_link_account_exists') =>
    code === 'signup_link_expired'
      ? new AppError('gone', code, 'This confirmation link has expired. Sign up again to get a new one.')
      : code === 'signup_link_account_exists'
        ? errors.conflict(code, 'An account with this e-mail already exists. Log in instead.')
        : new AppError('not_found', code, 'This confirmation link is not valid or was already used. Log in, or sign up again.');

  return {
    settings,
    /** True when sign-up goes through an e-mailed confirmation link (SMTP_URL set). */
    confirmsByEmail: deps.mailer !== undefined,

    /** The session a cookie names, if it is still valid; expired ones are deleted on sight. */
    async resolve(token: string | undefined): Promise<DashboardSession | undefined> {
      if (!token || !SESSION_TOKEN_RE.test(token)) return undefined;
      const tokenHash = sha256Hex(token);
      const row = await sessionsStore.get(db, tokenHash);
      if (!row) return undefined;
      const now = clock.now();
      // A logged-in session whose member is gone (or never recorded) is over.
      const orphan = row.account_id !== null && row.member_role === null;
      if (orphan || row.expires_at.getTime() <= now.getTime() || row.last_seen_at.getTime() + settings.idleMs <= now.getTime()) {
        await sessionsStore.remove(db, tokenHash);
        return undefined;
      }
      await sessionsStore.touch(db, tokenHash, now);
      return toSession(row, token);
    },

    /** Switches the mode a logged-in session shows; false for a session that is gone or not logged in. */
    async setMode(session: Pick<DashboardSession, 'tokenHash'>, mode: Mode): Promise<boolean> {
      return sessionsStore.setMode(db, session.tokenHash, mode);
    },

    /** A pre-login session, so the login and sign-up forms carry a CSRF token too. */
    startAnonymous: () => issue(null, undefined),

    /** Immediate sign-up (no SMTP): creates the account and logs in; says so when the e-mail is taken. */
    async signUp(input: { name: string; email: string; password: string; ip: string }, current?: string) {
      await signupAllowed(input.ip);
      checkPassword(input.password);
      const { account, owner } = await deps.accounts.create({
        name: input.name,
        email: input.email,
        passwordHash: await hashPassword(input.password),
      });
      return issue({ accountId: account.id, memberId: owner.id }, current);
    },

    /**
     * Sign-up with an e-mailed confirmation (SMTP set). Bad input is refused as in `signUp`; then
     * the answer is the same whether or not the address has an account: a new one gets a pending
     * sign-up (replacing an earlier one) and a confirmation link, a registered one gets an e-mail
     * saying so, and nothing is created. Returns the address the mail goes to.
     */
    async requestSignUp(input: { name: string; email: string; password: string; ip: string; lang: string }): Promise<{ email: string }> {
      const mailer = deps.mailer;
      if (!mailer) throw new Error('requestSignUp needs a mailer (SMTP_URL)');
      await signupAllowed(input.ip);
      const name = normaliseAccountName(input.name);
      const email = normaliseEmail(input.email);
      checkPassword(input.password);
      // Both branches pay for the hash and one write, so the time taken does not tell them apart.
      const passwordHash = await hashPassword(input.password);
      const token = crypto.randomBytes(SESSION_TOKEN_BYTES).toString('base64url');
      const now = clock.now();
      const existing = (await deps.accounts.findByEmail(email)) !== undefined || (await deps.members.emailInUse(email));
      await db.transaction(async (tx) => {
        // A pending sign-up for an address that has an account can never be confirmed: dropped.
        if (existing) await pendingSignupsStore.removeByEmail(tx, email);
        else
          await pendingSignupsStore.upsert(tx, {
            email,
            name,
            passwordHash,
            tokenHash: sha256Hex(token),
            now,
            expiresAt: new Date(now.getTime() + settings.confirmationTtlMs),
          });
      });
      const base = settings.publicUrl.replace(/\/+$/, '');
      if (existing) mailer.alreadyRegistered(email, input.lang, `${base}/login`);
      else mailer.confirmLink(email, input.lang, `${base}/signup/confirm?token=${token}`);
      return { email };
    },

    /**
     * The link of a confirmation e-mail: creates the account exactly as `signUp` does and logs in.
     * Single use (the pending row is taken in the same transaction that creates the account); an
     * expired link is refused with its own code, an unknown or used one as not found.
     */
    async confirmSignUp(input: { token: string | undefined }, current?: string) {
      if (!settings.signupEnabled)
        throw new AppError('not_found', 'signup_disabled', 'Sign-up is turned off on this server. Ask its operator for an account.');
      const token = input.token;
      if (!token || !CONFIRM_TOKEN_RE.test(token)) throw linkProblem('signup_link_invalid');
      const tokenHash = sha256Hex(token);
      const now = clock.now();
      type LinkProblem = Parameters<typeof linkProblem>[0];
      const outcome = await db.transaction(async (tx): Promise<{ accountId: string; memberId: string } | { problem: LinkProblem }> => {
        const row = await pendingSignupsStore.getByToken(tx, tokenHash);
        if (!row) return { problem: 'signup_link_invalid' };
        if (row.expires_at.getTime() <= now.getTime()) return { problem: 'signup_link_expired' };
        const taken = await pendingSignupsStore.takeByToken(tx, tokenHash);
        if (!taken) return { problem: 'signup_link_invalid' };
        try {
          const { account, owner } = await deps.accounts.create(
            { name: taken.name, email: taken.email, passwordHash: taken.password_hash },
            tx,
          );
          return { accountId: account.id, memberId: owner.id };
        } catch (e) {
          // Created meanwhile (CLI, or an immediate sign-up before SMTP was configured): the link is spent.
          if (e instanceof AppError && e.code === 'email_taken') return { problem: 'signup_link_account_exists' };
          throw e;
        }
      });
      if ('problem' in outcome) throw linkProblem(outcome.problem);
      return issue(outcome, current);
    },

    /**
     * One generic error for an unknown e-mail, a wrong password and an account without a
     * password, each after a full scrypt verification, so neither the answer nor its timing says
     * which e-mails have accounts.
     */
    async logIn(input: { email: string; password: string; ip: string }, current?: string) {
      await limited(`login-ip:${input.ip}`);
      if (input.password.length > PASSWORD_MAX_LENGTH * 4) throw invalidCredentials();
      let email: string | undefined;
      try {
        email = normaliseEmail(input.email);
      } catch {
        email = undefined;
      }
      const row = email ? await deps.members.findLogin(email) : undefined;
      const stored = row?.password_hash ?? null;
      const ok = await verifyPassword(input.password, stored ?? (await dummyHash()));
      if (!row || !stored || !ok) throw invalidCredentials();
      if (needsRehash(stored)) await deps.members.setPasswordHash(row.id, await hashPassword(input.password));
      return issue({ accountId: row.account_id, memberId: row.id }, current);
    },

    async logOut(token: string | undefined): Promise<void> {
      if (token && SESSION_TOKEN_RE.test(token)) await sessionsStore.remove(db, sha256Hex(token));
    },

    /**
     * Sets (or replaces) a login's password and ends every session it has. For the CLI
     * (`account set-password`): the account's holder is its owner member, so it keeps working.
     */
    async setPassword(email: string, password: string): Promise<{ accountId: string; memberId: string; sessionsEnded: number }> {
      checkPassword(password);
      const row = await deps.members.findLogin(normaliseEmail(email));
      if (!row) throw errors.notFound('account', undefined, 'email');
      const hash = await hashPassword(password);
      const sessionsEnded = await db.transaction(async (tx) => {
        await deps.members.setPasswordHash(row.id, hash, tx);
        return sessionsStore.removeForMember(tx, row.id);
      });
      return { accountId: row.account_id, memberId: row.id, sessionsEnded };
    },

    /**
     * Accepting an invitation (docs/dashboard.md "Invitations"): the invitee chooses a name and a
     * password; the member is created as the link is taken (single use), and the browser gets a
     * new session (never the one it presented).
     */
    async acceptInvitation(
      input: { token: string | undefined; name: string; password: string; ip: string; userAgent?: string | undefined },
      current?: string,
    ) {
      await limited(`invite-ip:${input.ip}`);
      checkPassword(input.password);
      const { accountId, member } = await deps.members.acceptInvitation({
        token: input.token,
        name: input.name,
        passwordHash: await hashPassword(input.password),
        from: { ip: input.ip, userAgent: input.userAgent?.slice(0, 256) ?? null },
      });
      return { ...(await issue({ accountId, memberId: member.id }, current)), member };
    },

    /** Periodic clean-up of sessions and sign-up links that can no longer be used; returns the sessions removed. */
    async purgeExpired() {
      const now = clock.now();
      await pendingSignupsStore.purgeExpired(db, now);
      return sessionsStore.purgeExpired(db, now, settings.idleMs);
    },
  };
}

export type DashboardAuthService = ReturnType<typeof createDashboardAuthService>;
