import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../../../errors.ts';
import { isAppError } from '../../../errors.ts';
import { requireAllowed } from '../../../modules/members/index.ts';
import { statusOf } from '../../../http/plugins/errors.ts';
import { asForm, queryValue, text } from '../http/form.ts';
import {
  actor,
  clearSessionCookie,
  flashKey,
  pageContext,
  preLoginSession,
  seeOther,
  sendPage,
  setSessionCookie,
  state,
  auditActor,
  t,
} from '../http/state.ts';
import { errorText } from '../ui/components.ts';
import { confirmView } from '../views/confirm.view.ts';
import { acceptInvitationView, invitationFailedView, membersView } from '../views/members.view.ts';
import type { DashboardDeps, DashboardRoutes } from './types.ts';

type Invited = { email: string; link: string };
const SLOT = 'invitation';

/**
 * Settings → Members (docs/dashboard.md "Members and roles", "Invitations"): the members service
 * decides (roles, ownership, last owner); these pages only show and post. Without SMTP_URL an
 * invitation's link is held in the one-time flash and shown once by the page the POST redirects to.
 */
export const membersRoutes: DashboardRoutes = (app, { ctx, cookies, flash }) => {
  const { members } = ctx.services;

  const page = async (
    req: FastifyRequest,
    o: { flash?: string; invitedLink?: Invited; error?: AppError; form?: { email?: string; role?: string } } = {},
  ) => {
    const me = actor(req);
    const [list, invitations] = await Promise.all([members.list(me), members.listInvitations(me)]);
    return membersView(pageContext(req), {
      members: list,
      invitations,
      me: me.memberId,
      flash: o.flash,
      invitedLink: o.invitedLink,
      error: o.error ? { message: errorText(o.error, t(req)), param: o.error.param } : undefined,
      form: o.form,
    });
  };

  app.get('/settings/members', async (req, reply) => {
    const m = t(req).teams;
    const done = queryValue(req.query, 'done', 16);
    const who = queryValue(req.query, 'who', 320) ?? '';
    const invitedLink = done === 'invited' ? flash.take<Invited>(flashKey(req), SLOT) : undefined;
    const role = queryValue(req.query, 'role', 16);
    const flashText =
      done === 'invited'
        ? invitedLink
          ? undefined
          : members.emailsInvitations
            ? m.invitations.sent(who)
            : m.invitations.linkGone
        : done === 'revoked'
          ? m.invitations.revoked(who)
          : done === 'role' && role && role in m.roles
            ? m.members.roleChanged(who, m.roles[role as keyof typeof m.roles])
            : done === 'removed'
              ? m.members.removed(who)
              : undefined;
    return sendPage(reply, await page(req, { ...(flashText ? { flash: flashText } : {}), ...(invitedLink ? { invitedLink } : {}) }));
  });

  app.post('/settings/members/invitations', async (req, reply) => {
    const body = asForm(req.body);
    const form = { email: text(body, 'email', 320), role: text(body, 'role', 16) };
    try {
      const s = state(req);
      const { invitation, link, emailed } = await members.invite(
        actor(req),
        {
          email: form.email,
          role: form.role,
          inviterName: s.session?.member?.name ?? '',
          lang: s.lang,
        },
        auditActor(req),
      );
      if (!emailed) flash.put(flashKey(req), SLOT, { email: invitation.email, link } satisfies Invited);
      return seeOther(reply, `/settings/members?done=invited&who=${encodeURIComponent(invitation.email)}#invitation-link`);
    } catch (e) {
      if (!isAppError(e) || statusOf(e) >= 500 || e.kind === 'forbidden') throw e;
      if (e.retryAfterSeconds !== undefined) reply.header('Retry-After', String(e.retryAfterSeconds));
      return sendPage(reply, await page(req, { error: e, form }), statusOf(e));
    }
  });

  app.post<{ Params: { invitationId: string } }>('/settings/members/invitations/:invitationId/revoke', async (req, reply) => {
    const gone = await members.revokeInvitation(actor(req), req.params.invitationId, auditActor(req));
    return seeOther(reply, `/settings/members?done=revoked&who=${encodeURIComponent(gone.email)}`);
  });

  app.post<{ Params: { memberId: string } }>('/settings/members/:memberId/role', async (req, reply) => {
    const role = text(asForm(req.body), 'role', 16);
    try {
      const { after } = await members.changeRole(actor(req), req.params.memberId, role, auditActor(req));
      return seeOther(reply, `/settings/members?done=role&role=${after.role}&who=${encodeURIComponent(after.email)}`);
    } catch (e) {
      if (!isAppError(e) || (e.kind !== 'conflict' && e.kind !== 'invalid_request')) throw e;
      return sendPage(reply, await page(req, { error: e }), statusOf(e));
    }
  });

  app.get<{ Params: { memberId: string } }>('/settings/members/:memberId/remove', async (req, reply) => {
    const me = actor(req);
    const target = await members.get(me, req.params.memberId);
    const m = t(req).teams.members;
    const self = target.id === me.memberId;
    // Leaving is for everyone; removing someone else is for those who manage members.
    if (!self) requireAllowed(me, 'members.manage');
    return sendPage(
      reply,
      confirmView(pageContext(req), {
        title: self ? m.leaveTitle : m.removeTitle(target.name),
        message: self ? m.leaveIntro : m.removeIntro(target.name),
        subject: [
          [m.name, target.name],
          [m.email, target.email],
          [m.role, t(req).teams.roles[target.role]],
        ],
        action: `/settings/members/${target.id}/remove`,
        button: self ? m.leave : m.remove,
        cancelHref: '/settings/members',
        active: 'members',
      }),
    );
  });

  app.post<{ Params: { memberId: string } }>('/settings/members/:memberId/remove', async (req, reply) => {
    const me = actor(req);
    try {
      const gone = await members.remove(me, req.params.memberId, auditActor(req));
      // Leaving ends one's own session with the member row: back to the login page.
      if (gone.id === me.memberId) {
        clearSessionCookie(reply, cookies);
        return seeOther(reply, '/login');
      }
      return seeOther(reply, `/settings/members?done=removed&who=${encodeURIComponent(gone.email)}`);
    } catch (e) {
      if (!isAppError(e) || e.kind !== 'conflict') throw e;
      return sendPage(reply, await page(req, { error: e }), statusOf(e));
    }
  });
};

/**
 * The invitee's pages, reached without an account (registered with the pre-login pages, under
 * their per-IP limit). Accepting issues a new session and deletes the one presented (fixation).
 */
export function invitationRoutes(app: Parameters<DashboardRoutes>[0], { ctx, cookies }: DashboardDeps): void {
  const auth = ctx.services.dashboardAuth;
  const { members } = ctx.services;

  const ensureSession = preLoginSession(auth, cookies, () => ctx.clock.now());
  const failed = (req: FastifyRequest, reply: FastifyReply, e: unknown) => {
    if (!isAppError(e) || (e.code !== 'invitation_invalid' && e.code !== 'invitation_expired')) throw e;
    return sendPage(reply, invitationFailedView(pageContext(req), e.code === 'invitation_expired'), statusOf(e));
  };

  app.get('/invitations/accept', { config: { dashboardPublic: true } }, async (req, reply) => {
    const token = queryValue(req.query, 'token', 64);
    try {
      const inv = await members.describeInvitation(token);
      await ensureSession(req, reply);
      return sendPage(
        reply,
        acceptInvitationView(pageContext(req), { token: token!, accountName: inv.accountName, email: inv.email, role: inv.role }),
      );
    } catch (e) {
      return failed(req, reply, e);
    }
  });

  app.post('/invitations/accept', { config: { dashboardPublic: true } }, async (req, reply) => {
    const body = asForm(req.body);
    const token = text(body, 'token', 64);
    const name = text(body, 'name', 200);
    const password = text(body, 'password', 1024);
    try {
      const { token: sessionToken, session } = await auth.acceptInvitation(
        { token, name, password, ip: req.ip, userAgent: req.headers['user-agent'] },
        state(req).token,
      );
      setSessionCookie(reply, cookies, sessionToken, session, ctx.clock.now());
      return seeOther(reply, '/');
    } catch (e) {
      if (isAppError(e) && (e.code === 'invitation_invalid' || e.code === 'invitation_expired')) return failed(req, reply, e);
      if (!isAppError(e) || statusOf(e) >= 500 || e.kind === 'rate_limited' || e.code === 'email_taken') throw e;
      let inv: Awaited<ReturnType<typeof members.describeInvitation>>;
      try {
        inv = await members.describeInvitation(token);
      } catch (x) {
        return failed(req, reply, x);
      }
      if (e.retryAfterSeconds !== undefined) reply.header('Retry-After', String(e.retryAfterSeconds));
      return sendPage(
        reply,
        acceptInvitationView(pageContext(req), {
          token,
          accountName: inv.accountName,
          email: inv.email,
          role: inv.role,
          name,
          error: { message: errorText(e, t(req)), param: e.param ?? (e.code.startsWith('password') ? 'password' : 'name') },
        }),
        statusOf(e),
      );
    }
  });
}
