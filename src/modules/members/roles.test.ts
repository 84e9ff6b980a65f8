import { describe, expect, it } from 'vitest';
import { allowed, DASHBOARD_ACTIONS, POLICY, ROLES, rolesFor, type DashboardAction, type Role } from './roles.ts';
import { forbidden } from './members.service.ts';

/** The role policy in both modes (docs/dashboard.md "Members and roles", "Test mode"). */
describe('role policy per mode', () => {
  const OPERATOR_WORK: DashboardAction[] = ['tenants.manage', 'credentials.manage', 'folios.manage', 'documents.manage'];

  it('lets a developer do in test mode what an operator does in live, and not in live', () => {
    for (const a of OPERATOR_WORK) {
      expect(allowed('operator', a, 'live'), a).toBe(true);
      expect(allowed('developer', a, 'live'), a).toBe(false);
      expect(allowed('developer', a, 'test'), a).toBe(true);
    }
  });

  it('never narrows the live policy in test mode, and widens it only for developers on operator work', () => {
    for (const a of DASHBOARD_ACTIONS)
      for (const r of ROLES) {
        if (allowed(r, a, 'live')) expect(allowed(r, a, 'test'), `${r} ${a}`).toBe(true);
        const widened = !allowed(r, a, 'live') && allowed(r, a, 'test');
        expect(widened, `${r} ${a}`).toBe(r === 'developer' && OPERATOR_WORK.includes(a));
      }
  });

  it('keeps read-only read-only in test mode too', () => {
    const readable = new Set<DashboardAction>(['dashboard.view', 'members.leave', 'apiKeys.view', 'mode.switch']);
    for (const a of DASHBOARD_ACTIONS) expect(allowed('read_only', a, 'test'), a).toBe(readable.has(a));
  });

  it('lets every role switch modes, and keeps the members actions the same in both modes', () => {
    for (const r of ROLES) expect(allowed(r, 'mode.switch', 'live') && allowed(r, 'mode.switch', 'test'), r).toBe(true);
    for (const a of ['members.manage', 'members.leave', 'apiKeys.manage', 'webhooks.manage', 'logs.resend'] as const)
      expect(rolesFor(a, 'test'), a).toEqual(rolesFor(a, 'live'));
  });

  it('lists roles in the order of ROLES in both modes', () => {
    const order = (rs: readonly Role[]) => [...rs].sort((x, y) => ROLES.indexOf(x) - ROLES.indexOf(y));
    for (const a of DASHBOARD_ACTIONS) {
      expect(rolesFor(a, 'test')).toEqual(order(rolesFor(a, 'test')));
      expect(rolesFor(a, 'live')).toBe(POLICY[a]);
    }
  });

  it('refuses with the roles needed in the mode, and says when test mode would allow it', () => {
    const live = forbidden('documents.manage', 'developer', 'live');
    expect(live.code).toBe('role_forbidden');
    expect(live.details).toMatchObject({ mode: 'live', roles: ['owner', 'admin', 'operator'], inTestMode: true });
    expect(live.message).toContain('in test mode');
    const test = forbidden('documents.manage', 'read_only', 'test');
    expect(test.details).toMatchObject({ mode: 'test', roles: ['owner', 'admin', 'developer', 'operator'], inTestMode: false });
    expect(forbidden('apiKeys.manage', 'operator', 'live').details).toMatchObject({ inTestMode: false });
  });
});
