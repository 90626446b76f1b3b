/**
 * Webhook destinations for the registration checks: generators of hostile
 * spellings of loopback, private, link-local, metadata, unspecified and
 * multicast addresses (decimal, hex and octal IPv4, short forms, IPv4-mapped
 * IPv6, upper case, ports, paths) and of public IP literals (no DNS needed).
 * Each URL's category is taken from the address the WHATWG URL parser makes
 * of it, so the suite judges what the URL standard says the host is.
 */
import fc from 'fast-check';

export type Category = 'loopback' | 'private' | 'link_local' | 'metadata' | 'unspecified' | 'multicast' | 'public';

/** The clause each hostile category breaks when accepted. */
export const CLAUSE_OF: Record<Exclude<Category, 'public'>, string> = {
  loopback: 'webhooks.create.url.private.400',
  private: 'webhooks.create.url.private.400',
  link_local: 'webhooks.create.url.link-local.400',
  metadata: 'webhooks.create.url.metadata.400',
  unspecified: 'webhooks.create.url.unspecified.400',
  multicast: 'webhooks.create.url.multicast.400',
};

const BASES: Record<Category, Array<[number, number, number, number]>> = {
  loopback: [
    [127, 0, 0, 1],
    [127, 1, 2, 3],
    [127, 255, 255, 254],
  ],
  private: [
    [10, 0, 0, 1],
    [10, 20, 30, 40],
    [172, 16, 0, 1],
    [172, 31, 255, 254],
    [192, 168, 1, 1],
    [192, 168, 0, 100],
  ],
  link_local: [
    [169, 254, 1, 1],
    [169, 254, 0, 1],
    [169, 254, 200, 9],
  ],
  metadata: [[169, 254, 169, 254]],
  unspecified: [[0, 0, 0, 0]],
  multicast: [
    [224, 0, 0, 1],
    [239, 255, 255, 250],
    [233, 1, 2, 3],
  ],
  public: [
    [93, 184, 216, 34],
    [8, 8, 8, 8],
    [1, 1, 1, 1],
    [151, 101, 1, 69],
  ],
};

const V6: Partial<Record<Category, string[]>> = {
  loopback: ['::1', '0:0:0:0:0:0:0:1'],
  private: ['fc00::1', 'fd12:3456:789a::1'],
  link_local: ['fe80::1', 'febf::abcd'],
  unspecified: ['::', '0:0:0:0:0:0:0:0'],
  multicast: ['ff02::1', 'ff05::1:3', 'ff0e::101'],
  public: ['2606:4700:4700::1111', '2001:4860:4860::8888'],
};

type Spelling = (ip: [number, number, number, number]) => string;
const SPELLINGS: Spelling[] = [
  (ip) => ip.join('.'),
  (ip) => String(((ip[0] << 24) >>> 0) + (ip[1] << 16) + (ip[2] << 8) + ip[3]),
  (ip) => `0x${(((ip[0] << 24) >>> 0) + (ip[1] << 16) + (ip[2] << 8) + ip[3]).toString(16)}`,
  (ip) => ip.map((o) => `0${o.toString(8)}`).join('.'),
  (ip) => ip.map((o) => `0x${o.toString(16)}`).join('.'),
  (ip) => `${ip[0]}.${(ip[1] << 16) + (ip[2] << 8) + ip[3]}`,
  (ip) => `${ip[0]}.${ip[1]}.${(ip[2] << 8) + ip[3]}`,
  (ip) => `[::ffff:${ip.join('.')}]`,
  (ip) => `[::ffff:${((ip[0] << 8) + ip[1]).toString(16)}:${((ip[2] << 8) + ip[3]).toString(16)}]`,
];

function decorate(host: string, scheme: string, port: number | null, path: string, upper: boolean): string {
  const url = `${scheme}://${host}${port === null ? '' : `:${port}`}${path}`;
  return upper ? url.toUpperCase() : url;
}

/** A URL of the category, in a random spelling; `canonical` is the WHATWG host. */
export function urlOf(category: Category): fc.Arbitrary<{ url: string; category: Category; canonical: string }> {
  const v4 = fc.tuple(fc.constantFrom(...BASES[category]), fc.constantFrom(...SPELLINGS)).map(([ip, spell]) => spell(ip));
  const v6 = V6[category] === undefined ? null : fc.constantFrom(...V6[category]).map((a) => `[${a}]`);
  const host = v6 === null ? v4 : fc.oneof(v4, v6);
  return fc
    .record({
      host,
      scheme: fc.constantFrom('http', 'https'),
      port: fc.option(fc.constantFrom(80, 443, 8080, 9, 8420, 65535), { nil: null }),
      path: fc.constantFrom('/', '/hook', '/a/b?c=d', '/latest/meta-data/'),
      upper: fc.boolean(),
    })
    .map(({ host: h, scheme, port, path, upper }) => {
      const url = decorate(h, scheme, port, path, upper && !h.startsWith('['));
      return { url, category, canonical: new URL(url).hostname };
    });
}

export const HOSTILE: Array<Exclude<Category, 'public'>> = ['loopback', 'private', 'link_local', 'metadata', 'unspecified', 'multicast'];
