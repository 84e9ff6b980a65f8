import crypto from 'node:crypto';

/** Request ids: the caller's `Request-Id` when it is a sane token, else a fresh `req_…`. */
export function genRequestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['request-id'];
  if (typeof given === 'string' && /^[A-Za-z0-9_.:-]{8,128}$/.test(given)) return given;
  return `req_${crypto.randomBytes(12).toString('base64url')}`;
}
