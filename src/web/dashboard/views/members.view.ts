import { PASSWORD_MIN_LENGTH } from '../../../modules/dashboard-auth/index.ts';
import {
  allowed,
  DASHBOARD_ACTIONS,
  ROLES,
  type DashboardAction,
  type Invitation,
  type Member,
  type Role,
} from '../../../modules/members/index.ts';
import { html } from '../../shared/html.ts';
import { copyable, csrfInput, field, formError, notice, postButton, problemFor, section, select, submit, table } from '../ui/components.ts';
import { formatDateTime } from '../ui/format.ts';
import { bareLayout, layout, type PageContext } from '../ui/layout.ts';
import type { FormProblem } from './auth.view.ts';

const roleOptions = (ctx: PageContext, roles: readonly Role[]) => roles.map((r) => ({ value: r, label: ctx.t.teams.roles[r] }));

/** The roles this member may hand out: an owner all, an admin all but owner (members/roles.ts). */
const assignable = (role: Role | null): readonly Role[] =>
  role === 'owner' ? ROLES : role === 'admin' ? ROLES.filter((r) => r !== 'owner') : [];

/** Settings → Members: the members, the pending invitations, the invitation form, and the roles table. */
export function membersView(
  ctx: PageContext,
  o: {
    members: Member[];
    invitations: Invitation[];
    me: string;
    flash?: string | undefined;
    /** A just-made invitation's link, shown once when nothing e-mails it. */
    invitedLink?: { email: string; link: string } | undefined;
    error?: FormProblem | undefined;
    form?: { email?: string; role?: string };
  },
): string {
  const t = ctx.t;
  const m = t.teams;
  const manage = ctx.role !== null && allowed(ctx.role, 'members.manage', ctx.mode);
  const give = assignable(ctx.role);
  const rows = o.members.map((x) => {
    const mayTouch = manage && (x.role !== 'owner' || ctx.role === 'owner');
    const roleCell =
      mayTouch && x.id !== o.me
        ? html`<form method="post" action="/settings/members/${x.id}/role" class="inline role-form">${csrfInput(ctx.csrf)}<label class="visually-hidden" for="role-${x.id}">${`${m.members.changeRole}: ${x.email}`}</label><select id="role-${x.id}" name="role">${roleOptions(
            ctx,
            x.role === 'owner' || give.includes(x.role) ? give : [x.role, ...give],
          ).map(
            (op) => html`<option value="${op.value}"${op.value === x.role ? html` selected` : ''}>${op.label}</option>`,
          )}</select> <button type="submit" class="button button-secondary button-small" aria-label="${`${m.members.save}: ${x.email}`}">${m.members.save}</button></form>`
        : t.teams.roles[x.role];
    const removal =
      x.id === o.me
        ? html`<a class="button button-secondary button-small" href="/settings/members/${x.id}/remove">${m.members.leave}</a>`
        : mayTouch
          ? html`<a class="button button-danger button-small" href="/settings/members/${x.id}/remove" aria-label="${`${m.members.remove} ${x.email}`}">${m.members.remove}</a>`
          : '';
    return [
      html`${x.name}${x.id === o.me ? html` <span class="hint">${m.members.you}</span>` : ''}`,
      x.email,
      roleCell,
      formatDateTime(x.createdAt.toISOString(), t),
      removal,
    ];
  });
  const invitations = table({
    caption: m.invitations.title,
    head: [m.invitations.email, m.invitations.role, m.invitations.expires, t.common.actions],
    empty: m.invitations.none,
    rows: o.invitations.map((i) => [
      i.email,
      m.roles[i.role],
      formatDateTime(i.expiresAt.toISOString(), t),
      manage
        ? postButton({
            action: `/settings/members/invitations/${i.id}/revoke`,
            label: m.invitations.revoke,
            csrf: ctx.csrf,
            tone: 'danger',
            ariaLabel: `${m.invitations.revoke} ${i.email}`,
          })
        : '',
    ]),
  });
  const inviteForm = manage
    ? section(
        m.invitations.inviteTitle,
        html`${formError(o.error, t)}<form method="post" action="/settings/members/invitations" class="row" novalidate>${csrfInput(ctx.csrf)}
${field({ t, name: 'email', label: m.invitations.email, kind: 'email', value: o.form?.email, required: true, maxlength: 320, error: problemFor(o.error, 'email') })}
${select({ name: 'role', label: m.invitations.role, options: roleOptions(ctx, give), value: o.form?.role ?? 'read_only', error: problemFor(o.error, 'role') })}
<div>${submit(m.invitations.invite)}</div></form>`,
        { id: 'invite' },
      )
    : '';
  const link = o.invitedLink
    ? html`<div class="success" role="status" id="invitation-link" tabindex="-1"><p>${m.invitations.linkIntro(o.invitedLink.email)}</p>${copyable(
        {
          id: 'invitation-link-value',
          label: m.invitations.title,
          value: o.invitedLink.link,
          t,
        },
      )}</div>`
    : '';
  // One row per action of the policy (members/roles.ts), one column per role; a mark says when a
  // role may take the action in test mode only (docs/dashboard.md "Test mode").
  const yes = (ok: boolean, label: string) =>
    ok ? html`<span aria-label="${label}">✓</span>` : html`<span aria-label="${label}">—</span>`;
  const cell = (r: Role, a: DashboardAction) =>
    allowed(r, a, 'live')
      ? yes(true, t.teams.yes)
      : allowed(r, a, 'test')
        ? html`<span>✓ <small class="hint">(${t.testMode.onlyInTest})</small></span>`
        : yes(false, t.teams.no);
  const policy = table({
    caption: m.members.rolesTitle,
    head: [t.common.actions, ...ROLES.map((r) => m.roles[r])],
    empty: '',
    rows: [
      ...DASHBOARD_ACTIONS.map((a) => [m.actions[a], ...ROLES.map((r) => cell(r, a))]),
      [m.ownership, ...ROLES.map((r) => yes(r === 'owner', r === 'owner' ? t.teams.yes : t.teams.no))],
    ],
  });
  const hints = html`<ul class="role-hints">${ROLES.map((r) => html`<li><strong>${m.roles[r]}</strong>: ${m.roleHints[r]}</li>`)}</ul>`;
  return layout(ctx, {
    title: `${t.nav.settings} › ${m.members.title}`,
    active: 'members',
    flash: o.flash ? notice(o.flash) : '',
    body: html`${link}<p>${m.members.intro}</p>
${section(m.members.title, table({ caption: m.members.title, head: [m.members.name, m.members.email, m.members.role, m.members.since, m.members.actions], empty: '', rows }), { id: 'members' })}
${inviteForm}
${section(m.invitations.title, invitations, { id: 'invitations' })}
${section(m.members.rolesTitle, html`${hints}<p>${t.testMode.policyNote}</p>${policy}`, { id: 'roles' })}`,
  });
}

/** The invitee's page: who invites, with which role, and the name and password form. */
export function acceptInvitationView(
  ctx: PageContext,
  o: { token: string; accountName: string; email: string; role: Role; name?: string; error?: FormProblem | readonly FormProblem[] },
): string {
  const t = ctx.t;
  const m = t.teams.invitations;
  return bareLayout(ctx, {
    title: m.acceptTitle,
    body: html`<p>${m.acceptIntro(o.accountName, t.teams.roles[o.role], o.email)}</p>${formError(o.error, t)}
<form method="post" action="/invitations/accept" class="card" novalidate>${csrfInput(ctx.csrf)}<input type="hidden" name="token" value="${o.token}">
${field({ t, name: 'name', label: m.yourName, value: o.name, required: true, autocomplete: 'name', maxlength: 200, error: problemFor(o.error, 'name') })}
${field({ t, name: 'password', label: m.password, kind: 'password', required: true, autocomplete: 'new-password', maxlength: 256, hint: m.passwordHint(PASSWORD_MIN_LENGTH), error: problemFor(o.error, 'password') })}
<div class="actions">${submit(m.accept)}</div></form>`,
  });
}

/** An unknown, used or expired invitation link. */
export function invitationFailedView(ctx: PageContext, expired: boolean): string {
  const m = ctx.t.teams.invitations;
  return bareLayout(ctx, {
    title: expired ? m.expiredTitle : m.invalidTitle,
    body: html`${notice(expired ? m.expired : m.invalid, 'bad')}<p><a href="/login">${m.loginInstead}</a></p>`,
  });
}
