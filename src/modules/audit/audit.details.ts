/**
 * The last guard before an audit row is written (docs/audit.md "Never a secret"): services pass
 * only facts they chose, and this drops anything that still looks secret: a field whose name says
 * so (password, secret, token, key material, certificate content), or a string that looks like an
 * API key. Values are bounded so one event stays small.
 */
const SECRET_NAME =
  /pass(word)?|secret|token|pfx|private|apikey|api_key|^key$|signature|cert(ificate)?_?(data|content|file)|authorization|cookie/i;
const SECRET_VALUE = /sk_(live|test)_[A-Za-z0-9_-]{8,}|whsec_[A-Za-z0-9+/=_-]{8,}|-----BEGIN/;
const MAX_STRING = 200;
const MAX_DEPTH = 3;
const MAX_KEYS = 30;

function clean(v: unknown, depth: number): unknown {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string') return SECRET_VALUE.test(v) ? '[redacted]' : v.slice(0, MAX_STRING);
  if (v instanceof Date) return v.toISOString();
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(v)) return v.slice(0, MAX_KEYS).map((x) => clean(x, depth + 1));
  if (typeof v === 'object') return cleanDetails(v as Record<string, unknown>, depth + 1);
  return undefined;
}

export function cleanDetails(details: Record<string, unknown> | undefined, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!details) return out;
  for (const [k, v] of Object.entries(details).slice(0, MAX_KEYS)) {
    if (SECRET_NAME.test(k)) continue;
    const c = clean(v, depth);
    if (c !== undefined) out[k.slice(0, 64)] = c;
  }
  return out;
}
