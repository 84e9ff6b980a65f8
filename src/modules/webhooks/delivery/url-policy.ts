import dns from 'node:dns';
import net from 'node:net';
import { errors } from '../../../errors.ts';
import { ALLOWED_WITH_PRIVATE_NETWORKS as PRIVATE_NETWORK_CATEGORIES, refusedCategory, type AddressCategory } from './address-policy.ts';

/**
 * The SSRF guard (docs/webhooks.md "Which URLs are accepted"). A webhook URL is checked twice:
 * - at registration (`checkWebhookUrl`): form, scheme, no credentials, and every address its host
 *   resolves to, so a mistake is reported when it is made;
 * - at connect time (`guardedLookup`, used as the `lookup` of http.request): the name is resolved
 *   again and the socket connects to exactly the address that was checked, so DNS that changes
 *   after registration (rebinding) cannot point a delivery at an internal service.
 */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** DNS resolution, swappable in tests (a fake resolver stands in for a rebinding DNS server). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => dns.promises.lookup(hostname, { all: true, order: 'verbatim' });

const RESOLVE_TIMEOUT_MS = 5_000;
export const MAX_URL_LENGTH = 2048;

/** RFC 6761: `localhost` and every name under it is loopback, whatever a resolver says. */
const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** The host as the URL parser normalised it (decimal, octal and hex IPv4 become dotted quads). */
export const bareHost = (u: URL): string => u.hostname.replace(/^\[|\]$/g, '');

export class ForbiddenAddressError extends Error {
  readonly code = 'EADDRFORBIDDEN';
  readonly address: string;
  readonly category: AddressCategory;
  constructor(host: string, address: string, category: AddressCategory) {
    super(`${host} resolves to ${address}, a ${category.replace('_', '-')} address; webhooks are not delivered there`);
    this.name = 'ForbiddenAddressError';
    this.address = address;
    this.category = category;
  }
}

/** Resolves a host and refuses it if any of its addresses is in a forbidden range. */
export async function resolveAllowed(
  host: string,
  opts: { allowPrivateNetworks: boolean; resolver: Resolver },
): Promise<ResolvedAddress[]> {
  if (net.isIP(host)) {
    const c = refusedCategory(host, opts.allowPrivateNetworks);
    if (c) throw new ForbiddenAddressError(host, host, c);
    return [{ address: host, family: net.isIPv4(host) ? 4 : 6 }];
  }
  if (isLocalhostName(host)) {
    const c = refusedCategory('127.0.0.1', opts.allowPrivateNetworks);
    if (c) throw new ForbiddenAddressError(host, '127.0.0.1', c);
  }
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    opts.resolver(host),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error(`DNS lookup of ${host} timed out`), { code: 'ETIMEOUT' })),
        RESOLVE_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no addresses`), { code: 'ENOTFOUND' });
  // One forbidden address refuses the name: picking the "good" one would let an attacker who
  // controls the DNS answer race us.
  for (const a of addresses) {
    const c = refusedCategory(a.address, opts.allowPrivateNetworks);
    if (c) throw new ForbiddenAddressError(host, a.address, c);
  }
  return addresses;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | ResolvedAddress[], family?: number) => void;

/** A `lookup` for http.request/net.connect that only ever hands out checked addresses. */
export function guardedLookup(opts: { allowPrivateNetworks: boolean; resolver: Resolver }) {
  return (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback): void => {
    resolveAllowed(hostname.replace(/^\[|\]$/g, ''), opts).then(
      (all) => {
        const fam = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
        const usable = fam === 4 || fam === 6 ? all.filter((a) => a.family === fam) : all;
        if (usable.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${fam} address`), { code: 'ENOTFOUND' }), '');
        } else if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/**
 * Registration-time check. Returns the URL as stored (normalised by the WHATWG parser), or throws
 * an AppError naming `url`: 400 for a malformed URL, 422 for one that is well formed but points
 * somewhere webhooks are not delivered.
 */
export async function checkWebhookUrl(raw: string, opts: { allowPrivateNetworks: boolean; resolver: Resolver }): Promise<string> {
  const param = 'url';
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw errors.invalid('invalid_webhook_url', `'${raw.slice(0, 100)}' is not an absolute URL. Use https://your.host/path.`, { param });
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw errors.invalid('webhook_url_scheme_not_allowed', `Webhook URLs must use https:// (or http://), not ${u.protocol}//.`, { param });
  if (u.username || u.password)
    throw errors.invalid(
      'webhook_url_credentials_not_allowed',
      'Webhook URLs must not contain a user name or password; verify deliveries with the webhook-signature header instead.',
      { param },
    );
  const host = bareHost(u);
  if (!host) throw errors.invalid('invalid_webhook_url', 'The webhook URL has no host.', { param });
  const href = u.href;
  if (href.length > MAX_URL_LENGTH)
    throw errors.invalid('invalid_webhook_url', `Webhook URLs may be at most ${MAX_URL_LENGTH} characters.`, { param });
  try {
    await resolveAllowed(host, opts);
  } catch (e) {
    if (e instanceof ForbiddenAddressError)
      throw errors.unprocessable(
        'webhook_url_forbidden_address',
        `${e.message}. Use a public address; loopback, private, link-local, metadata and other special ranges are refused.` +
          (PRIVATE_NETWORK_CATEGORIES.has(e.category)
            ? ' For local development, start the service with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow loopback and private networks.'
            : ''),
        { param, details: { address: e.address, range: e.category } },
      );
    throw errors.unprocessable('webhook_url_unresolvable', `The host '${host}' could not be resolved. Check the spelling of the URL.`, {
      param,
    });
  }
  return href;
}
