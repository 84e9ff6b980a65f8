import crypto from 'node:crypto';

/**
 * Webhook signatures. Two schemes, chosen per endpoint:
 * - `hmac-sha256-body` (the contract's, the default): `webhook-signature` =
 *   base64(HMAC-SHA256(key = UTF-8 bytes of the secret exactly as shown, `whsec_` included,
 *   message = raw body)).
 * - `standard-webhooks`: `webhook-signature` = `v1,` + base64(HMAC-SHA256(key = base64-decoded part
 *   after `whsec_`, message = `${webhook-id}.${webhook-timestamp}.${body}`)), space-separated when
 *   several secrets are valid (during a rotation). This is what the `standardwebhooks` libraries
 *   verify.
 * The secret is `whsec_` + standard base64 of 32 random bytes, so one secret works for both: the
 * libraries strip `whsec_` and base64-decode the rest.
 */
export const SIGNATURE_SCHEMES = ['hmac-sha256-body', 'standard-webhooks'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export const SECRET_PREFIX = 'whsec_';

export const generateSecret = (): string => SECRET_PREFIX + crypto.randomBytes(32).toString('base64');

const hmac = (key: Buffer, message: string): string => crypto.createHmac('sha256', key).update(message, 'utf8').digest('base64');

/** The contract scheme: the secret's own characters are the key, the body is the message. */
export const signBody = (secret: string, body: string): string => hmac(Buffer.from(secret, 'utf8'), body);

/** The Standard Webhooks scheme (one `v1,` signature). */
export function signStandard(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${hmac(key, `${msgId}.${timestampSeconds}.${body}`)}`;
}

/**
 * The headers of one delivery attempt. `secrets` is the current secret first, then any still-valid
 * previous one; only the standard scheme can carry more than one signature.
 */
export function signatureHeaders(
  scheme: SignatureScheme,
  secrets: readonly string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const [current] = secrets;
  if (!current) throw new Error('no signing secret');
  const signature =
    scheme === 'standard-webhooks' ? secrets.map((s) => signStandard(s, msgId, timestampSeconds, body)).join(' ') : signBody(current, body);
  return {
    'content-type': 'application/json',
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature,
  };
}

/** Constant-time comparison of two base64 strings (what receivers should do; used by our tests). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
