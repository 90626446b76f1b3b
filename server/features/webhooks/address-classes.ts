/**
 * What kind of address an IP is, for deciding where a webhook may point
 * (API.md, Webhooks: "Where a webhook may point"; docs/decisions/014-webhooks.md).
 *
 * A CIDR classifier over IPv4 and IPv6, written out as tables so the rules
 * can be read and reviewed in one place; node:net, the URL parser and
 * ipaddr.js read the addresses and the ranges and match one against the other
 * (docs/decisions/051-libraries-over-hand-written-code.md). The most specific
 * range wins.
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
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressClass =
  'public' | 'loopback' | 'private' | 'unspecified' | 'link_local' | 'metadata' | 'multicast' | 'broadcast' | 'reserved';

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

/** A row of a table: range, class, what to call it, and for embedded-v4 where the IPv4 bits sit. */
type Row = readonly [string, AddressClass | 'embedded-v4', string, number?];

/** A row of a table, parsed: the range as ipaddr.js matches it, most specific first. */
interface Range<A> {
  cidr: [A, number];
  /** The class, or 'embedded-v4' when the IPv4 address inside decides. */
  class: AddressClass | 'embedded-v4';
  range: string;
  /** For embedded-v4: where the 32 bits sit, counted from the least significant bit. */
  v4Shift?: number;
}

// ── IPv4 ──────────────────────────────────────────────────────────────────
// Sources: IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates),
// and the documented cloud metadata endpoints.
const V4_TABLE: readonly Row[] = [
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
const V6_TABLE: readonly Row[] = [
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

function buildTable<A>(rows: readonly Row[], parseCidr: (cidr: string) => [A, number]): Range<A>[] {
  const ranges = rows.map(([cidr, cls, range, v4Shift]) => {
    const r: Range<A> = { cidr: parseCidr(cidr), class: cls, range };
    if (v4Shift !== undefined) r.v4Shift = v4Shift;
    return r;
  });
  // Most specific first, so the first match is the answer.
  return ranges.sort((a, b) => b.cidr[1] - a.cidr[1]);
}

const V4_RANGES = buildTable(V4_TABLE, (cidr) => ipaddr.IPv4.parseCIDR(cidr));
const V6_RANGES = buildTable(V6_TABLE, (cidr) => ipaddr.IPv6.parseCIDR(cidr));

/**
 * Canonical dotted-quad IPv4 text (what WHATWG URL parsing and the resolver
 * produce), or null. node:net's isIPv4 takes exactly that form; spellings
 * ipaddr.js would also take (octal, hex, short forms such as 127.1) are not IP
 * text here: the URL parser has already normalised them, and a resolver
 * answer never has them.
 */
function parseIPv4(text: string): ipaddr.IPv4 | null {
  return isIPv4(text) ? ipaddr.IPv4.parse(text) : null;
}

/**
 * IPv6 text (any valid compression, an IPv4 tail, a zone id) → its canonical
 * text and its value, or null. Three maintained parts, each for what it does
 * best: the WHATWG URL host parser (node's own) validates and serialises to
 * RFC 5952 text (lower case, longest zero run compressed, an IPv4 tail in
 * hex); ipaddr.js reads that canonical text into groups for range matching.
 * ipaddr.js 1.9.1 is not given raw text: it refuses valid forms with an IPv4
 * tail after :: (64:ff9b::1.2.3.4) and takes nine-group ones
 * (1:2:3:4:5:6:7:8::). The zone id is cut off by hand first (the URL parser
 * has no zones, and a zone never changes which range an address is in), and
 * only hex digits, colons and dots reach the URL parser, so no text can turn
 * into a URL with a different host.
 */
function parseIPv6(input: string): { value: ipaddr.IPv6; text: string } | null {
  const zone = input.indexOf('%');
  const text = zone >= 0 ? input.slice(0, zone) : input;
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return null;
  let canonical: string;
  try {
    canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  return { value: ipaddr.IPv6.parse(canonical), text: canonical };
}

function classifyV4(value: ipaddr.IPv4): { class: AddressClass; range: string } {
  for (const r of V4_RANGES) {
    if (value.match(r.cidr)) return { class: r.class as AddressClass, range: r.range };
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
  if (v4 !== null) return { family: 4, address: v4.toString(), ...classifyV4(v4) };
  if (!text.includes(':')) return null;
  const parsed = parseIPv6(text);
  if (parsed === null) return null;
  const { value: v6, text: address } = parsed;
  for (const r of V6_RANGES) {
    if (!v6.match(r.cidr)) continue;
    if (r.class === 'embedded-v4') {
      const at = 12 - (r.v4Shift ?? 0) / 8;
      const inner = new ipaddr.IPv4(v6.toByteArray().slice(at, at + 4));
      const c = classifyV4(inner);
      return { family: 6, address, class: c.class, range: `${r.range} ${inner.toString()}: ${c.range}` };
    }
    return { family: 6, address, class: r.class, range: r.range };
  }
  return { family: 6, address, class: 'reserved', range: 'outside global unicast (2000::/3)' };
}
