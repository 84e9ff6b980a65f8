import net from 'node:net';

/**
 * Which IP addresses a webhook may be delivered to (docs/webhooks.md "Which URLs are accepted").
 * Pure: no DNS, no sockets.
 *
 * Addresses are compared as bytes against CIDR ranges. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are
 * judged by the IPv4 address inside, so `::ffff:127.0.0.1` is loopback. Decimal, octal and hex
 * IPv4 spellings (2130706433, 0177.0.0.1, 0x7f.1) never reach here: the WHATWG URL parser turns
 * them into dotted quads first (see url-policy.ts).
 */
export type AddressCategory =
  'loopback' | 'private' | 'cgnat' | 'link_local' | 'metadata' | 'multicast' | 'unspecified' | 'reserved' | 'documentation';

/** Categories that WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lets through (local demos and tests). */
/** The ranges WEBHOOK_ALLOW_PRIVATE_NETWORKS opens (the refusal names the setting for these only). */
export const ALLOWED_WITH_PRIVATE_NETWORKS: ReadonlySet<AddressCategory> = new Set(['loopback', 'private', 'cgnat']);

interface Range {
  bytes: number[];
  prefix: number;
  category: AddressCategory;
}

const v4 = (cidr: string, category: AddressCategory): Range => {
  const [ip, prefix] = cidr.split('/');
  return { bytes: ip!.split('.').map(Number), prefix: Number(prefix), category };
};

const v6 = (cidr: string, category: AddressCategory): Range => {
  const [ip, prefix] = cidr.split('/');
  return { bytes: [...parseIpv6(ip!)!], prefix: Number(prefix), category };
};

// Order matters: the first match wins, so specific entries (metadata) come before their block.
const IPV4_RANGES: Range[] = [
  v4('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OpenStack instance metadata
  v4('100.100.100.200/32', 'metadata'), // Alibaba Cloud metadata
  v4('192.0.0.192/32', 'metadata'), // Oracle Cloud metadata
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link_local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', 'reserved'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'), // includes 255.255.255.255
];

const IPV6_RANGES: Range[] = [
  v6('fd00:ec2::254/128', 'metadata'), // AWS instance metadata over IPv6
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('64:ff9b:1::/48', 'reserved'), // local-use NAT64
  v6('100::/64', 'reserved'), // discard-only
  v6('2001::/23', 'reserved'), // IETF protocol assignments (Teredo, benchmarking, ORCHID)
  v6('2001:db8::/32', 'documentation'),
  v6('3fff::/20', 'documentation'),
  v6('5f00::/16', 'reserved'), // SRv6 SIDs
  v6('fc00::/7', 'private'), // unique local addresses
  v6('fe80::/10', 'link_local'),
  v6('fec0::/10', 'link_local'), // deprecated site-local
  v6('ff00::/8', 'multicast'),
];

const matches = (addr: Uint8Array | number[], r: Range): boolean => {
  let bits = r.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((addr[i] ?? 0) & mask) !== ((r.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
};

/** Parses an IPv6 text address (with optional embedded dotted IPv4 and zone) into 16 bytes. */
export function parseIpv6(text: string): Uint8Array | undefined {
  let s = text.replace(/^\[|\]$/g, '');
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!net.isIPv6(s)) return undefined;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    tail = s
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const [head, rest] = s.split('::') as [string, string | undefined];
  const groups = (p: string | undefined) => (p ? p.split(':').filter((g) => g !== '') : []);
  const h = groups(head);
  const t = groups(rest);
  const all = rest === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  if (all.length !== 8) return undefined;
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    const n = parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  });
  if (tail.length === 4) out.set(tail, 12);
  return out;
}

/** The IPv4 address an IPv6 address stands for, when it is one of the forms that embed one. */
function embeddedIpv4(b: Uint8Array): number[] | undefined {
  const zero = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return [...b.subarray(12, 16)]; // ::ffff:a.b.c.d
  if (zero(0, 12) && !zero(12, 16) && !(zero(12, 15) && b[15] === 1)) return [...b.subarray(12, 16)]; // ::a.b.c.d
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return [...b.subarray(12, 16)]; // NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return [...b.subarray(2, 6)]; // 6to4
  return undefined;
}

/** The category of a forbidden-by-default address, or null for an ordinary public address. */
export function classifyAddress(ip: string): AddressCategory | null {
  const plain = ip.replace(/^\[|\]$/g, '');
  if (net.isIPv4(plain)) {
    const bytes = plain.split('.').map(Number);
    return IPV4_RANGES.find((r) => matches(bytes, r))?.category ?? null;
  }
  const b = parseIpv6(plain);
  if (!b) return 'reserved'; // not an address we understand: never connect to it
  const inner = embeddedIpv4(b);
  if (inner) return IPV4_RANGES.find((r) => matches(inner, r))?.category ?? null;
  return IPV6_RANGES.find((r) => matches(b, r))?.category ?? null;
}

/** Why an address is refused under the current setting, or null when it may be used. */
export function refusedCategory(ip: string, allowPrivateNetworks: boolean): AddressCategory | null {
  const c = classifyAddress(ip);
  if (c === null) return null;
  return allowPrivateNetworks && ALLOWED_WITH_PRIVATE_NETWORKS.has(c) ? null : c;
}
