/**
 * Host and Origin checks: what keeps a web page open in a browser on this
 * machine from using the gateway's listeners behind the user's back
 * (docs/decisions/022-host-origin-and-secrets.md).
 *
 * Two attacks are in view:
 *
 *  - DNS rebinding. A page of evil.example makes its own name resolve to
 *    127.0.0.1; the browser then treats the gateway as evil.example's own
 *    origin and lets the page read the answers. The browser still writes the
 *    attacker's name in Host, so: a request that reached the gateway through a
 *    loopback address must name this machine in Host (`localhost`,
 *    `*.localhost`, 127.0.0.0/8, `[::1]`, any port or none). Refused with
 *    400 bad_request (RFC 9112 §3.2 treats a Host the server does not answer
 *    for as a bad request), as the control listener has done since
 *    decision 020.
 *  - Cross-site requests (CSRF). A page of any other origin, a different
 *    loopback port included, can send "simple" requests (a text/plain POST,
 *    a form, an image) without a preflight; it cannot read the answer, but the
 *    request still acts (POST /v1/pair/request needs no token). Browsers say
 *    where a request comes from: `Origin` must then be this listener's own
 *    origin (scheme of the connection + Host), `null` included as foreign, and
 *    `Sec-Fetch-Site`, when sent, must be `same-origin` or `none` (typed in the
 *    address bar). Refused with 403 forbidden, before any route, so the
 *    unauthenticated pairing routes, OPTIONS preflights and HEAD are covered.
 *    No listener ever grants CORS (no Access-Control-Allow-* anywhere), so a
 *    foreign page never reads an answer either.
 *
 * Non-browser clients (curl, the conformance suite, SDKs) send neither Origin
 * nor Sec-Fetch-Site and use a loopback URL: nothing changes for them.
 *
 * Which listener: the Host rule keys on the connection, not the listener. A
 * connection whose local address is loopback came from this machine, where a
 * browser under rebinding is the threat. A connection on a LAN address (the
 * HTTPS LAN listener on 0.0.0.0, or an API listener an operator bound with
 * --host to a LAN address) is reached by other machines under whatever name
 * or address they use, which the gateway cannot know, so only the Origin rule
 * applies there; the origin's scheme is https on a TLS connection.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { ApiError } from '../errors.ts';

/** The host part of a Host header value (lower case, brackets kept for IPv6), or null when it is not one. */
export function hostName(hostHeader: string): string | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(hostHeader.trim());
  if (match === null) return null;
  return (match[1] ?? '').toLowerCase();
}

/** True for the names a browser can only reach on this machine. */
export function isLoopbackHostName(name: string): boolean {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (bare === '[::1]') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(bare);
  return v4 !== null && v4.slice(1).every((octet) => Number(octet) <= 255 && !/^0\d/.test(octet));
}

/** True for a socket address on the loopback interface (IPv4, IPv6, IPv4-mapped IPv6). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

const DEFAULT_PORT: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * An origin in one comparable spelling: `scheme://host[:port]`, lower case,
 * the scheme's default port left out (a browser never writes it, a Host
 * header may). Null for anything that is not an http(s) tuple origin (`null`,
 * a path, a user name, a second origin joined with a comma).
 */
export function canonicalOrigin(text: string): string | null {
  const match = /^(https?:)\/\/(\[[0-9a-f:.]+\]|[^\s/:@?#[\],]+)(?::(\d{1,5}))?$/i.exec(text.trim());
  if (match === null) return null;
  const scheme = (match[1] ?? '').toLowerCase();
  const host = (match[2] ?? '').toLowerCase();
  const port = match[3] === undefined || match[3] === DEFAULT_PORT[scheme] ? '' : `:${String(Number(match[3]))}`;
  return `${scheme}//${host}${port}`;
}

/** The origin a page served by this very listener has: the connection's scheme + Host. Null without a usable Host. */
function listenerOrigin(req: IncomingMessage): string | null {
  const host = single(req.headers.host);
  if (host === undefined || hostName(host) === null) return null;
  const scheme = (req.socket as Partial<TLSSocket>).encrypted === true ? 'https:' : 'http:';
  return canonicalOrigin(`${scheme}//${host.trim()}`);
}

/** The Host rule: a request that came in through a loopback address must name this machine. */
export function hostRefusal(req: IncomingMessage): ApiError | null {
  if (!isLoopbackAddress(req.socket.localAddress)) return null;
  const host = single(req.headers.host);
  // No Host at all: only HTTP/1.0 gets here (app.ts refuses a 1.1 request without one), and no browser sends that.
  if (host === undefined) return null;
  const name = hostName(host);
  if (name !== null && isLoopbackHostName(name)) return null;
  return new ApiError('bad_request', 'the Host header must name this machine (localhost or a loopback address)');
}

/** The Origin / Sec-Fetch-Site rule: a browser request must come from this listener's own origin. */
export function originRefusal(req: IncomingMessage): ApiError | null {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const own = listenerOrigin(req);
    const given = canonicalOrigin(origin);
    if (own === null || given === null || given !== own) {
      return new ApiError('forbidden', 'requests from another web origin are refused; no origin but the listener’s own is served');
    }
  }
  const site = single(req.headers['sec-fetch-site']);
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return new ApiError('forbidden', 'requests from another site are refused');
  }
  return null;
}

/** The Automation API's refusal of a request (loopback and LAN listeners alike): Host rule, then Origin rule; null to serve it. */
export function hostOriginRefusal(req: IncomingMessage): ApiError | null {
  return hostRefusal(req) ?? originRefusal(req);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
