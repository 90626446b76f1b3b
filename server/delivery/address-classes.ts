/**
 * What kind of address an IP is, for deciding where a webhook may point
 * (API.md, Webhooks: "Where a webhook may point"; docs/decisions/014-webhooks.md).
 *
 * A small CIDR classifier over IPv4 and IPv6, written out as tables so the
 * rules can be read and reviewed in one place. The most specific range wins.
 * IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, NAT64
 * 64:ff9b::a.b.c.d, 6to4 2002:aabb:ccdd::) are judged by the IPv4 address
 * they lead to, so ::ffff:127.0.0.1 is loopback like 127.0.0.1.
 *
 * Classes:
 * - public: may be a webhook destination;
 * - loopback, private: only when the exact host:port is on the startup
 *   allowlist ('Local webhook targets');
 * - everything else (link-local, metadata, unspecified, multicast,
 *   broadcast, reserved): never, allowlisted or not.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'unspecified'
  | 'link_local'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

/** The classes that no allowlist entry can open. */
export const NEVER_ALLOWED: ReadonlySet<AddressClass> = new Set<AddressClass>([
  'unspecified',
  'link_local',
  'metadata',
  'multicast',
  'broadcast',
  'reserved',
]);

/** The classes an allowlist entry opens. */
export const ALLOWLISTABLE: ReadonlySet<AddressClass> = new Set<AddressClass>(['loopback', 'private']);

export interface Classified {
  family: 4 | 6;
  /** Canonical text of the address (zone id dropped). */
  address: string;
  class: AddressClass;
  /** Which range matched, in words, for error messages and logs. */
  range: string;
}

interface Range {
  base: bigint;
  bits: number;
  /** The class, or 'embedded-v4' when the IPv4 address inside decides. */
  class: AddressClass | 'embedded-v4';
  range: string;
  /** For embedded-v4: where the 32 bits sit, counted from the least significant bit. */
  v4Shift?: number;
}

// ── IPv4 ──────────────────────────────────────────────────────────────────
// Sources: IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates),
// and the documented cloud metadata endpoints.
const V4_TABLE: readonly [string, AddressClass, string][] = [
  ['0.0.0.0/32', 'unspecified', 'the unspecified address'],
  ['0.0.0.0/8', 'reserved', '"this network" (0.0.0.0/8)'],
  ['10.0.0.0/8', 'private', 'private network (10.0.0.0/8)'],
  // Shared address space (carrier-grade NAT, also Tailscale): not reachable
  // from the internet, so it is treated like a private network.
  ['100.64.0.0/10', 'private', 'shared address space (100.64.0.0/10)'],
  ['100.100.100.200/32', 'metadata', 'cloud metadata service (Alibaba Cloud)'],
  ['127.0.0.0/8', 'loopback', 'loopback (127.0.0.0/8)'],
  ['169.254.0.0/16', 'link_local', 'link-local (169.254.0.0/16)'],
  ['169.254.169.254/32', 'metadata', 'cloud metadata service (169.254.169.254)'],
  ['169.254.169.253/32', 'metadata', 'cloud DNS resolver (169.254.169.253)'],
  ['169.254.170.2/32', 'metadata', 'container metadata service (169.254.170.2)'],
  ['172.16.0.0/12', 'private', 'private network (172.16.0.0/12)'],
  ['192.0.0.0/24', 'reserved', 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.0.0.192/32', 'metadata', 'cloud metadata service (Oracle Cloud)'],
  ['192.0.2.0/24', 'reserved', 'documentation (192.0.2.0/24)'],
  ['192.88.99.0/24', 'reserved', '6to4 relay anycast (192.88.99.0/24)'],
  ['192.168.0.0/16', 'private', 'private network (192.168.0.0/16)'],
  ['198.18.0.0/15', 'reserved', 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0/24', 'reserved', 'documentation (198.51.100.0/24)'],
  ['203.0.113.0/24', 'reserved', 'documentation (203.0.113.0/24)'],
  ['224.0.0.0/4', 'multicast', 'multicast (224.0.0.0/4)'],
  ['240.0.0.0/4', 'reserved', 'reserved for future use (240.0.0.0/4)'],
  ['255.255.255.255/32', 'broadcast', 'limited broadcast (255.255.255.255)'],
];

// ── IPv6 ──────────────────────────────────────────────────────────────────
// Sources: IANA IPv6 Special-Purpose Address Registry. Anything outside
// global unicast (2000::/3) that no row names is reserved.
const V6_TABLE: readonly [string, AddressClass | 'embedded-v4', string, number?][] = [
  ['::/128', 'unspecified', 'the unspecified address (::)'],
  ['::1/128', 'loopback', 'loopback (::1)'],
  ['::ffff:0:0/96', 'embedded-v4', 'IPv4-mapped', 0],
  // IPv4-compatible addresses are deprecated (RFC 4291): no host should be
  // reached through one, whatever IPv4 address it spells.
  ['::/96', 'reserved', 'IPv4-compatible (deprecated, ::/96)'],
  ['::ffff:0:0:0/96', 'reserved', 'IPv4-translated (::ffff:0:0:0/96)'],
  ['64:ff9b::/96', 'embedded-v4', 'NAT64', 0],
  ['64:ff9b:1::/48', 'private', 'local-use NAT64 (64:ff9b:1::/48)'],
  ['100::/64', 'reserved', 'discard-only (100::/64)'],
  // Teredo, ORCHID, AMT, benchmarking and other protocol assignments.
  ['2001::/23', 'reserved', 'IETF protocol assignments (2001::/23)'],
  ['2001:db8::/32', 'reserved', 'documentation (2001:db8::/32)'],
  ['2002::/16', 'embedded-v4', '6to4', 80],
  ['3fff::/20', 'reserved', 'documentation (3fff::/20)'],
  ['5f00::/16', 'reserved', 'segment routing (5f00::/16)'],
  ['2000::/3', 'public', 'global unicast'],
  ['fc00::/7', 'private', 'unique local (fc00::/7)'],
  ['fd00:ec2::254/128', 'metadata', 'cloud metadata service (fd00:ec2::254)'],
  ['fd00:ec2::253/128', 'metadata', 'cloud DNS resolver (fd00:ec2::253)'],
  ['fe80::/10', 'link_local', 'link-local (fe80::/10)'],
  ['fec0::/10', 'private', 'site-local (deprecated, fec0::/10)'],
  ['ff00::/8', 'multicast', 'multicast (ff00::/8)'],
];

function buildTable(rows: readonly (readonly [string, AddressClass | 'embedded-v4', string, number?])[], family: 4 | 6): Range[] {
  const ranges = rows.map(([cidr, cls, range, v4Shift]) => {
    const [text, bitsText] = cidr.split('/') as [string, string];
    const parsed = family === 4 ? parseIPv4(text) : parseIPv6(text);
    if (parsed === null) throw new Error(`bad range in the address table: ${cidr}`);
    const r: Range = { base: parsed, bits: Number(bitsText), class: cls, range };
    if (v4Shift !== undefined) r.v4Shift = v4Shift;
    return r;
  });
  // Most specific first, so the first match is the answer.
  return ranges.sort((a, b) => b.bits - a.bits);
}

const V4_RANGES = buildTable(V4_TABLE, 4);
const V6_RANGES = buildTable(V6_TABLE, 6);

function inRange(value: bigint, r: Range, width: number): boolean {
  const shift = BigInt(width - r.bits);
  return value >> shift === r.base >> shift;
}

/**
 * Parses canonical dotted-quad IPv4 text (what WHATWG URL parsing and the
 * resolver produce) into a 32-bit number. Other spellings (octal, hex, short
 * forms) are not IP text here: the URL parser has already normalised them.
 */
export function parseIPv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

/** Parses IPv6 text (any valid compression, an IPv4 tail, a zone id which is dropped) into a 128-bit number. */
export function parseIPv6(input: string): bigint | null {
  let text = input;
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (text.length === 0 || text.length > 45) return null;

  let tail: bigint | null = null;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    tail = parseIPv4(text.slice(lastColon + 1));
    if (tail === null) return null;
    // Keep the colon in place; the tail counts as two groups.
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }

  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (half: string): string[] | null => {
    if (half === '') return [];
    const groups = half.split(':');
    return groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g)) ? groups : null;
  };
  const head = groupsOf(halves[0] ?? '');
  const rest = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  if (head === null || rest === null) return null;
  let groups: string[];
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...Array<string>(missing).fill('0'), ...rest];
  } else {
    groups = head;
  }
  if (groups.length !== 8) return null;
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(parseInt(g, 16));
  if (tail !== null) value = (value & ~0xffffffffn) | tail;
  return value;
}

function formatIPv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
}

function formatIPv6(value: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the longest run of two or more zero groups.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

function classifyV4(value: bigint): { class: AddressClass; range: string } {
  for (const r of V4_RANGES) {
    if (inRange(value, r, 32)) return { class: r.class as AddressClass, range: r.range };
  }
  return { class: 'public', range: 'public IPv4' };
}

/**
 * Classifies an IP address given as text (IPv4 dotted quad, or IPv6 with or
 * without brackets and zone id). Returns null for text that is not an IP
 * address.
 */
export function classifyAddress(input: string): Classified | null {
  const text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const v4 = parseIPv4(text);
  if (v4 !== null) return { family: 4, address: formatIPv4(v4), ...classifyV4(v4) };
  if (!text.includes(':')) return null;
  const v6 = parseIPv6(text);
  if (v6 === null) return null;
  const address = formatIPv6(v6);
  for (const r of V6_RANGES) {
    if (!inRange(v6, r, 128)) continue;
    if (r.class === 'embedded-v4') {
      const inner = (v6 >> BigInt(r.v4Shift ?? 0)) & 0xffffffffn;
      const c = classifyV4(inner);
      return { family: 6, address, class: c.class, range: `${r.range} ${formatIPv4(inner)}: ${c.range}` };
    }
    return { family: 6, address, class: r.class, range: r.range };
  }
  return { family: 6, address, class: 'reserved', range: 'outside global unicast (2000::/3)' };
}
