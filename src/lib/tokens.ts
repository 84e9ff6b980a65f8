import crypto from 'node:crypto';

/** Random secret with a readable prefix: `sk_live_…`, `act_…`, `whsec_…`. 32 bytes = 256 bits. */
export const randomToken = (prefix: string, bytes = 32): string => prefix + crypto.randomBytes(bytes).toString('base64url');

export const sha256Hex = (value: string | Buffer): string => crypto.createHash('sha256').update(value).digest('hex');

export const newId = (): string => crypto.randomUUID();

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
