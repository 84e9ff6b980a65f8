import { errors } from '../../../errors.ts';
import { isMode } from '../../../modules/accounts/index.ts';
import { asForm, text } from '../http/form.ts';
import { actor, safeNext, seeOther, state } from '../http/state.ts';
import type { DashboardRoutes } from './types.ts';

/**
 * The sections a switch may land on. An object's id belongs to one mode (docs/dashboard.md "Test
 * mode"), so switching from an object's page lands on its section's list rather than on a 404;
 * the longest section the page is under wins, anything else lands on the overview.
 */
const SECTIONS = ['/tenants', '/webhooks', '/logs/webhooks', '/mailbox', '/settings/api-keys', '/settings/members'];

export function landingAfterSwitch(next: unknown): string {
  const path = safeNext(next)?.split(/[?#]/)[0];
  if (!path) return '/';
  const section = SECTIONS.filter((s) => path === s || path.startsWith(`${s}/`)).sort((a, b) => b.length - a.length)[0];
  return section ?? '/';
}

/**
 * POST /mode: the session's switch between live and test data (CSRF-checked like every POST). The
 * account's test twin is made the first time anyone switches to test; a new login starts in live.
 */
export const modeRoutes: DashboardRoutes = (app, { ctx }) => {
  const { accounts, dashboardAuth } = ctx.services;

  app.post('/mode', async (req, reply) => {
    const form = asForm(req.body);
    const mode = text(form, 'mode', 8);
    if (!isMode(mode)) throw errors.invalid('invalid_field', 'mode must be live or test.', { param: 'mode' });
    const s = state(req);
    // Resolves (and, for test, makes) the scope before the session points at it.
    s.scope = await accounts.scopeFor(actor(req).accountId, mode);
    if (!s.session || !(await dashboardAuth.setMode(s.session, mode))) throw errors.notFound('session', 'current');
    return seeOther(reply, landingAfterSwitch(form.next));
  });
};
