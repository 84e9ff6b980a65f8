import crypto from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Password hashing for the dashboard login: scrypt from Node's standard library.
 *
 * Parameters: N = 2^15, r = 8, p = 3, 32-byte key, 16-byte random salt per password. That is one
 * of the equivalent scrypt settings OWASP's Password Storage Cheat Sheet lists (N=2^17/p=1,
 * N=2^16/p=2, N=2^15/p=3, …): about 0.3 s of CPU on a current server core, but only 32 MiB of
 * memory per hash (128·N·r), so libuv's four worker threads can hash in parallel within 128 MiB
 * instead of the 512 MiB that N=2^17 would need. An attacker with the database pays the same per
 * guess.
 *
 * The stored string names its parameters (`scrypt$1$N,r,p$salt$hash`), so raising them later only
 * means new parameters here: old hashes still verify, and are re-hashed at the next login
 * (`needsRehash`).
 */
const scrypt = promisify(crypto.scrypt) as (pw: string | Buffer, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

export const CURRENT_PARAMS: ScryptParams = { N: 2 ** 15, r: 8, p: 3 };
const KEY_LEN = 32;
const SALT_LEN = 16;
/** Refuse absurd parameters read from a stored hash (a tampered row must not exhaust memory). */
const MAX_MEM = 256 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

const options = (p: ScryptParams): crypto.ScryptOptions => ({
  N: p.N,
  r: p.r,
  p: p.p,
  maxmem: Math.max(64 * 1024 * 1024, 256 * p.N * p.r),
});

/** NFC first, so the same password typed on two keyboards hashes the same. */
const normalise = (password: string): Buffer => Buffer.from(password.normalize('NFC'), 'utf8');

export async function hashPassword(password: string, params: ScryptParams = CURRENT_PARAMS): Promise<string> {
  const salt = crypto.randomBytes(SALT_LEN);
  const key = await scrypt(normalise(password), salt, KEY_LEN, options(params));
  return `scrypt$1$${params.N},${params.r},${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

interface Parsed {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): Parsed | undefined {
  const m = /^scrypt\$1\$(\d+),(\d+),(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (!m) return undefined;
  const params = { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  const powerOfTwo = params.N > 1 && (params.N & (params.N - 1)) === 0;
  if (!powerOfTwo || params.r < 1 || params.p < 1 || params.p > 16 || 128 * params.N * params.r > MAX_MEM) return undefined;
  return { params, salt: Buffer.from(m[4]!, 'base64'), key: Buffer.from(m[5]!, 'base64') };
}

/** Constant-time comparison of the derived key; a malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const p = parse(stored);
  if (!p || p.key.length !== KEY_LEN || p.salt.length !== SALT_LEN) return false;
  const key = await scrypt(normalise(password), p.salt, p.key.length, options(p.params));
  return crypto.timingSafeEqual(key, p.key);
}

export function needsRehash(stored: string): boolean {
  const p = parse(stored);
  return !p || p.params.N !== CURRENT_PARAMS.N || p.params.r !== CURRENT_PARAMS.r || p.params.p !== CURRENT_PARAMS.p;
}

/**
 * A hash of a random password, computed once: a login for an unknown e-mail (or an account with
 * no password yet) verifies against it, so it takes as long as a real wrong password and the
 * response time does not tell which e-mails exist.
 */
let dummy: Promise<string> | undefined;
export const dummyHash = (): Promise<string> => (dummy ??= hashPassword(crypto.randomBytes(16).toString('hex')));

/** The password rule (NIST SP 800-63B: length, no composition rules). Returns a problem or undefined. */
export function passwordProblem(password: string): 'too_short' | 'too_long' | undefined {
  const length = [...password.normalize('NFC')].length;
  if (length < PASSWORD_MIN_LENGTH) return 'too_short';
  if (length > PASSWORD_MAX_LENGTH) return 'too_long';
  return undefined;
}
