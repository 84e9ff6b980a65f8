import crypto from 'node:crypto';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import type { Db, Sql } from '../../db/types.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { RateLimit, RateLimiter } from '../../lib/rate-limiter.ts';
import { normaliseEmail } from '../../lib/email.ts';
import { newId, sha256Hex } from '../../lib/tokens.ts';
import { invitationsStore, type InvitationRow } from './invitations.store.ts';
import { membersStore, type MemberRow } from './members.store.ts';
import { allowed, isRole, mayAssign, rolesFor, type DashboardAction, type PolicyMode, type Role } from './roles.ts';

/**
 * The members of an account and their invitations (issue 29; docs/dashboard.md "Members and
 * roles", "Invitations"). Knows nothing of HTTP or of sessions: dashboard-auth logs members in.
 *
 * Invariants:
 * - A login's e-mail is unique across the installation: one login belongs to one account.
 * - An account always keeps at least one owner: demoting or removing the last one is 409
 *   `last_owner`, checked with the owners' rows locked.
 * - Only an owner makes or unmakes owners; an admin manages every other role (roles.ts).
 * - An invitation's token is 32 random bytes kept as its SHA-256, works once (the row is deleted
 *   in the transaction that creates the member) and until `invitationTtlMs` after it was made.
 */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
const NAME_MAX = 200;

/** The member acting in the dashboard; its role is read from the database on every request. */
export interface Actor {
  accountId: string;
  memberId: string;
  email: string;
  role: Role;
}

export interface Member {
  id: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
}

/** Sends the invitation e-mail (SMTP_URL set); the dashboard supplies it and owns the text. */
export interface InvitationMailer {
  invite(to: string, lang: string, m: { link: string; accountName: string; inviterName: string; role: Role }): void;
}

const toMember = (r: MemberRow): Member => ({ id: r.id, email: r.email, name: r.name, role: r.role, createdAt: r.created_at });
const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  email: r.email,
  role: r.role,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/**
 * The refusal of an action to a role in a mode. It names the roles that may, and says when the
 * member's own role may do it in test mode (a developer trying a live document), so the page can
 * point there.
 */
export const forbidden = (action: DashboardAction, role: Role, mode: PolicyMode) => {
  const roles = rolesFor(action, mode);
  const inTestMode = mode === 'live' && allowed(role, action, 'test');
  const hint = inTestMode ? ' Your role may do it in test mode: switch to test data.' : '';
  return new AppError(
    'forbidden',
    'role_forbidden',
    `Your role (${role}) does not allow this in ${mode} mode. It needs one of: ${roles.join(', ')}.${hint}`,
    {
      details: { action, role, mode, roles: [...roles], inTestMode },
    },
  );
};

/** For the members' own actions, which are the account's and so the same in both modes (roles.ts). */
export function requireAllowed(actor: Pick<Actor, 'role'>, action: DashboardAction): void {
  if (!allowed(actor.role, action, 'live')) throw forbidden(action, actor.role, 'live');
}

const lastOwner = () => errors.conflict('last_owner', 'An account keeps at least one owner: make another member owner first.');
const emailTaken = (email: string) =>
  errors.conflict('email_taken', `The e-mail ${email} already has a login on this server (a login belongs to one account).`, {
    param: 'email',
  });

export function normaliseMemberName(name: string): string {
  const n = name.trim();
  if (!n) throw errors.invalid('invalid_name', 'The name must not be empty.', { param: 'name' });
  if (n.length > NAME_MAX) throw errors.invalid('invalid_name', `The name must have at most ${NAME_MAX} characters.`, { param: 'name' });
  return n;
}

function parseRole(role: unknown): Role {
  if (!isRole(role))
    throw errors.invalid('invalid_role', 'The role must be one of: owner, admin, developer, operator, read_only.', { param: 'role' });
  return role;
}

export function createMembersService(deps: {
  db: Db;
  clock: Clock;
  /** `inviteRateLimit`: invitations per account (each may send an e-mail). */
  settings: { invitationTtlMs: number; publicUrl: string; inviteRateLimit: RateLimit };
  rateLimiter: RateLimiter;
  accountName: (accountId: string) => Promise<string | undefined>;
  mailer?: InvitationMailer | undefined;
  /**
   * The audit log's recorder (docs/audit.md). Member events belong to the account itself (never a
   * test-mode twin): they are keyed on the acting member's account.
   */
  audit?: AuditRecorder | undefined;
}) {
  const { db, clock, settings } = deps;

  const invitationProblem = (code: 'invitation_invalid' | 'invitation_expired') =>
    code === 'invitation_expired'
      ? new AppError('gone', code, 'This invitation has expired. Ask for a new one.')
      : new AppError('not_found', code, 'This invitation is not valid or was already used.');

  /** The usable invitation a token names (not taken), or its problem. */
  const pending = async (tx: Sql, token: string | undefined) => {
    if (!token || !TOKEN_RE.test(token)) throw invitationProblem('invitation_invalid');
    const row = await invitationsStore.getByToken(tx, sha256Hex(token));
    if (!row) throw invitationProblem('invitation_invalid');
    if (row.expires_at.getTime() <= clock.now().getTime()) throw invitationProblem('invitation_expired');
    return row;
  };

  return {
    /** True when invitations are e-mailed (SMTP_URL set); otherwise the link is shown to the inviter. */
    emailsInvitations: deps.mailer !== undefined,

    /** The owner of a new account, in the transaction that creates it (accounts.create). */
    async createOwnerIn(tx: Sql, o: { accountId: string; email: string; name: string; passwordHash: string | null }) {
      if (await membersStore.findByEmail(tx, o.email)) throw emailTaken(o.email);
      return toMember(
        await membersStore.insert(tx, {
          id: newId(),
          accountId: o.accountId,
          email: o.email,
          name: o.name,
          role: 'owner',
          passwordHash: o.passwordHash,
          now: clock.now(),
        }),
      );
    },
    /** True when `email` is a member's login, other than `except` (an account's holder keeping their own address). */
    async emailInUse(email: string, sql: Sql = db, except?: { accountId: string; email: string }) {
      const row = await membersStore.findByEmail(sql, email);
      if (!row) return false;
      return !(except && row.account_id === except.accountId && row.email.toLowerCase() === except.email.toLowerCase());
    },
    /** The account's e-mail changed: its holder's login follows (docs/dashboard.md "Members and roles"). */
    async followAccountEmail(tx: Sql, accountId: string, oldEmail: string, email: string) {
      await membersStore.setEmail(tx, accountId, oldEmail, email, clock.now());
    },
    /** For log-in: the row with its password hash (never leaves the server). */
    findLogin: (email: string) => membersStore.findByEmail(db, email),
    async setPasswordHash(memberId: string, passwordHash: string, sql: Sql = db) {
      await membersStore.setPasswordHash(sql, memberId, passwordHash, clock.now());
    },

    async list(actor: Actor): Promise<Member[]> {
      requireAllowed(actor, 'dashboard.view');
      return (await membersStore.list(db, actor.accountId)).map(toMember);
    },
    async get(actor: Actor, memberId: string): Promise<Member> {
      const row = await membersStore.get(db, actor.accountId, memberId);
      if (!row) throw errors.notFound('member', memberId);
      return toMember(row);
    },

    async changeRole(actor: Actor, memberId: string, roleInput: unknown, by?: AuditActor): Promise<{ before: Member; after: Member }> {
      requireAllowed(actor, 'members.manage');
      return db.transaction(async (tx) => {
        const owners = await membersStore.lockOwners(tx, actor.accountId);
        const row = await membersStore.get(tx, actor.accountId, memberId);
        // Another account's member is not found whatever the form says (404 before 400).
        if (!row) throw errors.notFound('member', memberId);
        const role = parseRole(roleInput);
        if (!mayAssign(actor.role, row.role, role)) throw ownershipForbidden(actor.role);
        if (row.role === 'owner' && role !== 'owner' && owners.length <= 1) throw lastOwner();
        const after = (await membersStore.setRole(tx, actor.accountId, memberId, role, clock.now()))!;
        await deps.audit?.recordIn(tx, by, {
          accountId: actor.accountId,
          action: 'member.role_changed',
          target: { type: 'member', id: memberId },
          details: { email: row.email, from: row.role, to: role },
        });
        return { before: toMember(row), after: toMember(after) };
      });
    },

    /** Removes a member, or the actor leaves (memberId = the actor's own). Their sessions end with the row. */
    async remove(actor: Actor, memberId: string, by?: AuditActor): Promise<Member> {
      requireAllowed(actor, memberId === actor.memberId ? 'members.leave' : 'members.manage');
      return db.transaction(async (tx) => {
        const owners = await membersStore.lockOwners(tx, actor.accountId);
        const row = await membersStore.get(tx, actor.accountId, memberId);
        if (!row) throw errors.notFound('member', memberId);
        if (row.role === 'owner' && memberId !== actor.memberId && actor.role !== 'owner') throw ownershipForbidden(actor.role);
        if (row.role === 'owner' && owners.length <= 1) throw lastOwner();
        await membersStore.remove(tx, actor.accountId, memberId);
        await deps.audit?.recordIn(tx, by, {
          accountId: actor.accountId,
          action: memberId === actor.memberId ? 'member.left' : 'member.removed',
          target: { type: 'member', id: memberId },
          details: { email: row.email, role: row.role },
        });
        return toMember(row);
      });
    },

    /**
     * Invites an e-mail with a role. Returns the link (the dashboard shows it when nothing e-mails
     * it). 409 `member_exists` for a member of this account, `email_taken` for another account's
     * login; inviting a pending address again replaces its invitation.
     */
    async invite(actor: Actor, input: { email: string; role: unknown; inviterName: string; lang: string }, by?: AuditActor) {
      requireAllowed(actor, 'members.manage');
      const email = normaliseEmail(input.email);
      const role = parseRole(input.role);
      if (!mayAssign(actor.role, 'read_only', role)) throw ownershipForbidden(actor.role);
      const r = await deps.rateLimiter.take(`invite-account:${actor.accountId}`, settings.inviteRateLimit);
      if (!r.allowed)
        throw new AppError(
          'rate_limited',
          'invitation_rate_limited',
          `Too many invitations. Try again in ${r.retryAfterSeconds} seconds.`,
          {
            retryAfterSeconds: r.retryAfterSeconds,
          },
        );
      const token = crypto.randomBytes(32).toString('base64url');
      const now = clock.now();
      const invitation = await db.transaction(async (tx) => {
        const existing = await membersStore.findByEmail(tx, email);
        if (existing?.account_id === actor.accountId)
          throw errors.conflict('member_exists', `${email} is already a member of this account.`, { param: 'email' });
        if (existing) throw emailTaken(email);
        const inv = await invitationsStore.upsert(tx, {
          id: newId(),
          accountId: actor.accountId,
          email,
          role,
          tokenHash: sha256Hex(token),
          invitedBy: actor.memberId,
          now,
          expiresAt: new Date(now.getTime() + settings.invitationTtlMs),
        });
        // The address and role, never the link's token.
        await deps.audit?.recordIn(tx, by, {
          accountId: actor.accountId,
          action: 'member.invited',
          target: { type: 'invitation', id: inv.id },
          details: { email, role },
        });
        return inv;
      });
      const link = `${settings.publicUrl.replace(/\/+$/, '')}/invitations/accept?token=${token}`;
      if (deps.mailer) {
        const accountName = (await deps.accountName(actor.accountId)) ?? '';
        deps.mailer.invite(email, input.lang, { link, accountName, inviterName: input.inviterName, role });
      }
      return { invitation: toInvitation(invitation), link, emailed: deps.mailer !== undefined };
    },
    async listInvitations(actor: Actor): Promise<Invitation[]> {
      requireAllowed(actor, 'dashboard.view');
      return (await invitationsStore.listPending(db, actor.accountId, clock.now())).map(toInvitation);
    },
    async revokeInvitation(actor: Actor, invitationId: string, by?: AuditActor): Promise<Invitation> {
      requireAllowed(actor, 'members.manage');
      const row = await db.transaction(async (tx) => {
        const removed = await invitationsStore.remove(tx, actor.accountId, invitationId);
        if (removed)
          await deps.audit?.recordIn(tx, by, {
            accountId: actor.accountId,
            action: 'member.invitation_revoked',
            target: { type: 'invitation', id: removed.id },
            details: { email: removed.email, role: removed.role },
          });
        return removed;
      });
      if (!row) throw errors.notFound('invitation', invitationId);
      return toInvitation(row);
    },

    /** What the acceptance page shows: the account, the address and the role (or why the link is unusable). */
    async describeInvitation(token: string | undefined) {
      const row = await pending(db, token);
      return { email: row.email, role: row.role, accountName: (await deps.accountName(row.account_id)) ?? '', expiresAt: row.expires_at };
    },

    /**
     * Accepting: creates the member with the name and password hash given, in the transaction that
     * takes the invitation (single use). dashboard-auth hashes the password and opens the session.
     */
    async acceptInvitation(input: {
      token: string | undefined;
      name: string;
      passwordHash: string;
      /** Where the acceptance came from, for the audit log (the new member is its actor). */
      from?: { ip: string | null; userAgent: string | null } | undefined;
    }) {
      const name = normaliseMemberName(input.name);
      return db.transaction(async (tx) => {
        const row = await pending(tx, input.token);
        const taken = await invitationsStore.takeByToken(tx, row.token_hash);
        if (!taken) throw invitationProblem('invitation_invalid');
        // Became a login meanwhile (signed up, or accepted another account's invitation).
        if (await membersStore.findByEmail(tx, taken.email)) throw emailTaken(taken.email);
        const member = await membersStore.insert(tx, {
          id: newId(),
          accountId: taken.account_id,
          email: taken.email,
          name,
          role: taken.role,
          passwordHash: input.passwordHash,
          now: clock.now(),
        });
        await deps.audit?.recordIn(
          tx,
          {
            type: 'member',
            id: member.id,
            label: member.email,
            ip: input.from?.ip ?? null,
            userAgent: input.from?.userAgent ?? null,
            livemode: true,
          },
          {
            accountId: taken.account_id,
            action: 'member.joined',
            target: { type: 'member', id: member.id },
            details: { email: member.email, role: member.role },
          },
        );
        return { accountId: taken.account_id, member: toMember(member), invitedBy: taken.invited_by };
      });
    },

    purgeExpiredInvitations: () => invitationsStore.purgeExpired(db, clock.now()),
  };
}

const ownershipForbidden = (role: Role) =>
  new AppError('forbidden', 'role_forbidden', `Your role (${role}) does not allow this. Only an owner makes or unmakes owners.`, {
    details: { action: 'members.ownership', role, roles: ['owner'] },
  });

export type MembersService = ReturnType<typeof createMembersService>;
