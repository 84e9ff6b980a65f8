/**
 * Members of an account, their roles and invitations (issue 29; docs/dashboard.md "Members and
 * roles", "Invitations"). The role policy (roles.ts) is the one table of who may do what in the
 * dashboard. Accounts create their owner through it; dashboard-auth logs members in.
 */
export { createMembersService, requireAllowed, forbidden, normaliseMemberName } from './members.service.ts';
export type { Actor, Member, Invitation, InvitationMailer, MembersService } from './members.service.ts';
export { ROLES, POLICY, DASHBOARD_ACTIONS, allowed, rolesFor, isRole, isDashboardAction, mayAssign } from './roles.ts';
export type { Role, DashboardAction, PolicyMode } from './roles.ts';
