import crypto from 'node:crypto';

const ID_BYTES = 12;
/**
 * Random bytes for 512 ids, drawn at once: `crypto.randomBytes(12)` per request was 6–8 % of a
 * cached read's server CPU (docs/performance.md "Where a cached read's CPU went"), nearly all of
 * it the fixed cost of one call into the random generator. Each id still takes 12 bytes of its own
 * from the operating system's generator, never reused.
 */
const POOL_BYTES = ID_BYTES * 512;
let pool = Buffer.alloc(0);
let offset = POOL_BYTES;

function freshId(): string {
  if (offset >= POOL_BYTES) {
    pool = crypto.randomBytes(POOL_BYTES);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return `req_${id}`;
}

const GIVEN_RE = /^[A-Za-z0-9_.:-]{8,128}$/;

/** Request ids: the caller's `Request-Id` when it is a sane token, else a fresh `req_…`. */
export function genRequestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['request-id'];
  if (typeof given === 'string' && GIVEN_RE.test(given)) return given;
  return freshId();
}
