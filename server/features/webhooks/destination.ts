/**
 * Where a webhook may point (API.md, Webhooks: "Where a webhook may point";
 * docs/decisions/014-webhooks.md). Checked at registration and again before
 * every delivery attempt; the attempt then connects only to the addresses
 * this check approved (transport.ts pins them), so a DNS answer that changes
 * between check and connect (DNS rebinding) cannot reach another host.
 *
 * The URL is parsed by the WHATWG URL parser, the one Node's HTTP client
 * follows too, so both read the same host. It normalises the hostile
 * spellings of an address (2130706433, 0177.0.0.1, 0x7f.1, 127.1,
 * percent-encoded hosts, uppercase, [::ffff:7f00:1]) to one canonical form
 * before address-classes.ts judges it. On top of that:
 *
 * - only http:// and https:// (any letter case), no white space, control
 *   characters or backslashes anywhere, no user name or password;
 * - names: a trailing dot is ignored; localhost and *.localhost are loopback
 *   whatever DNS says; known cloud-metadata names are never allowed; other
 *   names are resolved (all addresses), and a name that does not resolve is
 *   refused;
 * - every address must be public, or loopback/private with the URL's exact
 *   host:port on the allowlist read at startup. Link-local, metadata,
 *   unspecified, multicast, broadcast and reserved addresses never pass.
 */
import { lookup } from 'node:dns/promises';
import { ALLOWLISTABLE, classifyAddress, NEVER_ALLOWED, type Classified } from './address-classes.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Tests inject a fake one; the default asks the system (dns.lookup, all: true). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, order: 'verbatim' });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A URL that passed the check, with the addresses a delivery may connect to. */
export interface CheckedDestination {
  url: URL;
  /** The host as the request will name it (Host header, TLS server name); IPv6 without brackets. */
  hostname: string;
  port: number;
  /** Every address the host resolved to, all checked; a delivery connects to these only. */
  addresses: ResolvedAddress[];
}

/** A destination that may not be used; the message says why, fit for a 400 or a delivery log. */
export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefused';
  }
}

/**
 * Names of cloud metadata services. They resolve to link-local addresses
 * (refused anyway) inside a cloud, but may resolve to anything elsewhere, so
 * they are refused by name too, allowlisted or not.
 */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'metadata.platformequinix.com',
  'metadata.tencentyun.com',
  'instance-data',
  'instance-data.ec2.internal',
  'kubernetes.default.svc',
]);

export const MAX_URL_LENGTH = 2048;
const DEFAULT_RESOLVE_TIMEOUT_MS = 5000;

/**
 * The 'Local webhook targets' allowlist as read at startup: host:port
 * entries, normalised like a URL's host (lowercase, canonical IP text, IPv6
 * in brackets, no trailing dot), so "LOCALHOST:9000" matches
 * http://localhost:9000/ and "[0:0::1]:9000" matches http://[::1]:9000/.
 */
export class Allowlist {
  readonly #entries: ReadonlySet<string>;

  constructor(entries: readonly string[]) {
    const keys = new Set<string>();
    for (const entry of entries) {
      const key = allowlistKey(entry);
      if (key !== null) keys.add(key);
    }
    this.#entries = keys;
  }

  has(host: string, port: number): boolean {
    return this.#entries.has(`${host}:${port}`);
  }

  get size(): number {
    return this.#entries.size;
  }
}

function allowlistKey(entry: string): string | null {
  const colon = entry.lastIndexOf(':');
  if (colon <= 0) return null;
  const host = entry.slice(0, colon);
  const port = Number(entry.slice(colon + 1));
  if (!/^\d{1,5}$/.test(entry.slice(colon + 1)) || port < 1 || port > 65535) return null;
  if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/.test(host)) return null;
  try {
    const url = new URL(`http://${host}/`);
    return `${hostKey(url.hostname)}:${port}`;
  } catch {
    return null;
  }
}

function hostKey(hostname: string): string {
  return hostname.replace(/\.+$/, '');
}

export interface CheckOptions {
  resolver: Resolver;
  allowlist: Allowlist;
  /** How long a name may take to resolve before it counts as not resolving. */
  resolveTimeoutMs?: number;
}

/** Parses and checks a webhook URL; throws DestinationRefused when it may not be used. */
export async function checkDestination(raw: string, opts: CheckOptions): Promise<CheckedDestination> {
  const url = parseWebhookUrl(raw);
  const key = hostKey(url.hostname);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const bare = key.startsWith('[') ? key.slice(1, -1) : key;

  let found: Classified[];
  let forcedLoopback = false;
  const literal = classifyAddress(bare);
  if (literal !== null) {
    found = [literal];
  } else {
    if (METADATA_NAMES.has(bare)) throw new DestinationRefused(`url host ${bare} is a cloud metadata service, which is never allowed`);
    forcedLoopback = bare === 'localhost' || bare.endsWith('.localhost');
    const resolved = await resolveWithin(opts.resolver, bare, opts.resolveTimeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS);
    found = resolved.map((a) => {
      const c = classifyAddress(a.address);
      if (c === null) throw new DestinationRefused(`url host ${bare} resolved to something that is not an IP address`);
      return c;
    });
  }

  for (const a of found) {
    if (NEVER_ALLOWED.has(a.class)) {
      throw new DestinationRefused(`url host ${describe(bare, a)} is ${a.range}, which is never allowed as a webhook destination`);
    }
  }
  const local = found.filter((a) => ALLOWLISTABLE.has(a.class));
  if ((forcedLoopback || local.length > 0) && !opts.allowlist.has(key, port)) {
    const what = forcedLoopback ? 'loopback (localhost)' : (local[0]?.range ?? 'a local address');
    throw new DestinationRefused(
      `url host ${describe(bare, local[0])} is ${what}; a loopback or private destination must have its exact host:port ` +
        `(${key}:${port}) on the Local webhook targets list, which is read when the application starts`,
    );
  }
  return {
    url,
    hostname: bare,
    port,
    addresses: found.map((a) => ({ address: a.address, family: a.family })),
  };
}

/** The syntactic rules; throws DestinationRefused. */
function parseWebhookUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH) throw new DestinationRefused(`url must be at most ${MAX_URL_LENGTH} characters`);
  if (!/^https?:\/\//i.test(raw)) throw new DestinationRefused('url must start with http:// or https://');
  if (/[\u0000-\u0020\u007f-\u009f\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]/.test(raw)) {
    throw new DestinationRefused('url must not contain white space or control characters');
  }
  // WHATWG reads "\" as "/" in http URLs while other parsers do not; a URL
  // that two parsers read differently is refused rather than guessed at.
  if (raw.includes('\\')) throw new DestinationRefused('url must not contain backslashes');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('url is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DestinationRefused('url must start with http:// or https://');
  if (url.username !== '' || url.password !== '' || /^https?:\/\/[^/?#]*@/i.test(raw)) {
    throw new DestinationRefused('url must not carry a user name or password');
  }
  if (hostKey(url.hostname) === '') throw new DestinationRefused('url has no host');
  return url;
}

function describe(host: string, a: Classified | undefined): string {
  return a === undefined || a.address === host ? host : `${host} (${a.address})`;
}

async function resolveWithin(resolver: Resolver, host: string, timeoutMs: number): Promise<ResolvedAddress[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DestinationRefused(`url host ${host} did not resolve within ${timeoutMs / 1000} s`)), timeoutMs);
    timer.unref();
  });
  try {
    const found = await Promise.race([resolver(host), timeout]);
    if (found.length === 0) throw new DestinationRefused(`url host ${host} does not resolve to any address`);
    return found;
  } catch (err) {
    if (err instanceof DestinationRefused) throw err;
    throw new DestinationRefused(`url host ${host} does not resolve`);
  } finally {
    clearTimeout(timer);
  }
}
