import { errors } from '../errors.ts';

const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

/** An e-mail address as stored: trimmed and of a plausible shape (accounts, members, invitations). */
export function normaliseEmail(email: string): string {
  const e = email.trim();
  if (!EMAIL_RE.test(e)) throw errors.invalid('invalid_email', `'${email}' is not a valid e-mail address.`, { param: 'email' });
  return e;
}
