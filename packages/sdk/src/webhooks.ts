import { WebhookVerificationError } from './errors.ts';
import { equalBytes, fromBase64, hmacSha256 } from './hmac-sha256.ts';
import type { components } from './schema.d.ts';

/**
 * Verifying a webhook delivery before trusting its body. The service signs with one of two schemes,
 * chosen per endpoint (`signatureScheme`):
 *
 * - `hmac-sha256-body` (the default, the contract's): `webhook-signature` =
 *   base64(HMAC-SHA256(key = the UTF-8 bytes of the whole secret string, `whsec_` included,
 *   message = the raw body)). The timestamp is NOT signed, so it proves nothing: deduplicate by
 *   `webhook-id` instead. Svix / standardwebhooks libraries cannot verify this scheme.
 * - `standard-webhooks`: `webhook-signature` = space-separated `v1,<base64>` entries, each
 *   HMAC-SHA256(key = base64-decoded part after `whsec_`, message = `${id}.${timestamp}.${body}`);
 *   the timestamp is signed and must be within `toleranceSeconds` (default 5 minutes).
 *
 * Pass the body exactly as received (a string or the bytes), never re-serialized JSON: one changed
 * space breaks the signature.
 */

export type SignatureScheme = 'hmac-sha256-body' | 'standard-webhooks';

type Schemas = components['schemas'];
/** The data of each event, by name (the `*Data` schemas of the OpenAPI document). */
export interface WebhookEventData {
  'tenant.credentials.updated': Schemas['TenantCredentialsUpdatedData'];
  'folio.low': Schemas['FolioLowData'];
  'certificate.expiring': Schemas['CertificateExpiringData'];
  'dte.status.changed': Schemas['DteStatusChangedData'];
  'dte.received': Schemas['DteReceivedData'];
}
export type WebhookEventType = keyof WebhookEventData;
/** A delivered body, `{event, timestamp, data}`, discriminated on `event`. */
/**
 * A delivered event. `livemode` is false for an event of test mode (objects made with an `sk_test_`
 * key); it is absent only from events recorded before test mode existed.
 */
export type WebhookEvent = {
  [E in WebhookEventType]: { event: E; timestamp: string; livemode?: boolean; data: WebhookEventData[E] };
}[WebhookEventType];

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /**
   * The endpoint's scheme. Recommended: pin it. When omitted it is read from the header's shape
   * (`v1,` entries are Standard Webhooks; a bare base64 digest is the default scheme).
   */
  scheme?: SignatureScheme;
  /** Standard Webhooks only: how far `webhook-timestamp` may be from now, either way. Default 300. */
  toleranceSeconds?: number;
  /** The current time in milliseconds (for tests and replays of stored deliveries). */
  now?: number;
}

const SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

function required(headers: WebhookHeaders, name: string): string {
  const value = header(headers, name);
  if (!value) throw new WebhookVerificationError('missing_header', `the delivery has no ${name} header`);
  return value;
}

const utf8 = new TextEncoder();

function digestMatches(receivedBase64: string, expected: Uint8Array): boolean {
  const received = fromBase64(receivedBase64);
  return received !== null && equalBytes(received, expected);
}

function standardKey(secret: string): Uint8Array {
  const key = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (!key || key.length === 0) throw new WebhookVerificationError('invalid_secret', 'the secret is empty after its whsec_ prefix');
  return key;
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/**
 * Checks a delivery's signature and returns its parsed body; throws `WebhookVerificationError`
 * (reason: missing_header, invalid_signature, timestamp_out_of_tolerance, invalid_payload,
 * invalid_secret) otherwise. `secret` may be a list, to accept the previous secret during a rotation.
 */
export function verifyWebhook<T = WebhookEvent>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): T {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook needs the raw body (string or bytes) as received, not parsed JSON');
  }
  const secrets = (typeof secret === 'string' ? [secret] : [...secret]).filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) throw new WebhookVerificationError('invalid_secret', 'no signing secret given');
  const body = typeof rawBody === 'string' ? utf8.encode(rawBody) : rawBody;
  const signature = required(headers, 'webhook-signature').trim();
  const scheme: SignatureScheme = options.scheme ?? (/(^|\s)v1,/.test(signature) ? 'standard-webhooks' : 'hmac-sha256-body');

  let ok = false;
  if (scheme === 'hmac-sha256-body') {
    for (const s of secrets) ok = digestMatches(signature, hmacSha256(utf8.encode(s), body)) || ok;
  } else {
    const id = required(headers, 'webhook-id');
    const timestamp = required(headers, 'webhook-timestamp');
    if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('timestamp_out_of_tolerance', 'webhook-timestamp is not Unix seconds');
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
    if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
      throw new WebhookVerificationError(
        'timestamp_out_of_tolerance',
        `webhook-timestamp ${timestamp} is more than ${tolerance} s from now (${nowSeconds}): a replay, or a clock off`,
      );
    }
    const message = concat(utf8.encode(`${id}.${timestamp}.`), body);
    const candidates = signature
      .split(/\s+/)
      .filter((entry) => entry.startsWith('v1,'))
      .map((entry) => entry.slice(3));
    for (const s of secrets) {
      const expected = hmacSha256(standardKey(s), message);
      for (const c of candidates) ok = digestMatches(c, expected) || ok;
    }
  }
  if (!ok) {
    throw new WebhookVerificationError(
      'invalid_signature',
      scheme === 'hmac-sha256-body'
        ? 'signature mismatch (scheme hmac-sha256-body: key = the whole secret string as UTF-8, whsec_ included; message = the raw body)'
        : 'signature mismatch (scheme standard-webhooks)',
    );
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) as T;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the signed body is not JSON');
  }
}
