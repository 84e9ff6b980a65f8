/**
 * Dashboard authentication: the account holder's sign-up (with its e-mailed confirmation),
 * log-in, log-out, server-side sessions and their CSRF tokens, and the password hashing
 * (docs/dashboard.md "Sign-up", "Sessions"). The dashboard (src/web/dashboard) renders its pages
 * and supplies the sign-up mailer; the CLI's set-password uses the same hashing.
 */
export { createDashboardAuthService, csrfMatches, checkPassword, SESSION_TOKEN_BYTES } from './dashboard-auth.service.ts';
export type { DashboardAuthService, DashboardSession, DashboardAuthSettings, SignupMailer } from './dashboard-auth.service.ts';
export { PASSWORD_MIN_LENGTH } from './password.ts';
