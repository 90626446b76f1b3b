/**
 * One delivery attempt on the wire: an HTTP(S) POST to a checked destination
 * that connects only to the addresses the check approved.
 *
 * Pinning: the request names the URL's host (Host header, TLS server name and
 * certificate check stay those of the hostname), but the socket's address
 * comes from `pinnedLookup`, which answers with the checked addresses and
 * never asks DNS. An IP-literal URL needs no lookup at all. Each attempt uses
 * its own connection (no agent pool), so a socket opened for one address is
 * never reused for another. Redirects are not followed (a 3xx is an answer).
 *
 * The outcome is the status code, or a network failure described in a few
 * words; dispatcher.ts turns it into a delivery-log reason.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupAddress, LookupOneOptions } from 'node:dns';
import type { CheckedDestination, ResolvedAddress } from './destination.ts';

export interface AttemptRequest {
  destination: CheckedDestination;
  /** The envelope JSON, the exact bytes that were signed. */
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Aborted when the dispatcher stops (restart, quit). */
  signal?: AbortSignal;
}

export type AttemptResult = { kind: 'response'; status: number } | { kind: 'network'; detail: string };

/** Sends one attempt. Never rejects: every failure is a `network` result. */
export type Transport = (req: AttemptRequest) => Promise<AttemptResult>;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that answers with the checked addresses
 * only, whatever name it is asked about. Node asks with `all: true` when it
 * races IPv4 and IPv6 (autoSelectFamily), and for one address otherwise.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: LookupOneOptions | { all?: boolean; family?: number }, callback: LookupCallback): void => {
    const wanted = typeof options === 'object' && options.family !== undefined && options.family !== 0 ? options.family : null;
    const usable = wanted === null ? addresses : addresses.filter((a) => a.family === wanted);
    const first = usable[0];
    if (first === undefined) {
      const err: NodeJS.ErrnoException = new Error('no checked address of the requested family');
      err.code = 'ENOTFOUND';
      callback(err, '', 0);
      return;
    }
    if (typeof options === 'object' && options.all === true) {
      callback(
        null,
        usable.map((a) => ({ address: a.address, family: a.family })),
      );
    } else {
      callback(null, first.address, first.family);
    }
  };
}

/** At most this much of a receiver's reply is read; the rest is cut off. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export function createHttpTransport(opts: { userAgent: string }): Transport {
  return (attempt) =>
    new Promise<AttemptResult>((resolve) => {
      const { destination } = attempt;
      const secure = destination.url.protocol === 'https:';
      const send = secure ? httpsRequest : httpRequest;
      let settled = false;
      const finish = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        resolve(result);
      };

      const req = send({
        protocol: destination.url.protocol,
        hostname: destination.hostname,
        port: destination.port,
        path: `${destination.url.pathname}${destination.url.search}`,
        method: 'POST',
        agent: false,
        ...(attempt.signal !== undefined ? { signal: attempt.signal } : {}),
        lookup: pinnedLookup(destination.addresses) as never,
        headers: {
          ...attempt.headers,
          'User-Agent': opts.userAgent,
          'Content-Length': String(Buffer.byteLength(attempt.body)),
          Connection: 'close',
        },
      });

      // One budget for the whole attempt: connect, send, and the status line.
      const timer = setTimeout(() => {
        finish({ kind: 'network', detail: `no answer within ${attempt.timeoutMs / 1000} s` });
        req.destroy();
      }, attempt.timeoutMs);
      timer.unref();

      req.on('response', (res: IncomingMessage) => {
        finish({ kind: 'response', status: res.statusCode ?? 0 });
        // Read (and drop) a bounded amount of the reply, then let the connection go.
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('error', () => undefined);
        res.on('close', () => clearTimeout(timer));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        finish({ kind: 'network', detail: describeNetworkError(err) });
      });
      req.end(attempt.body);
    });
}

function describeNetworkError(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED)';
    case 'ECONNRESET':
      return 'connection reset (ECONNRESET)';
    case 'ETIMEDOUT':
      return 'connection timed out (ETIMEDOUT)';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `destination unreachable (${code})`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${code})`;
    case 'EPIPE':
      return 'connection closed while sending (EPIPE)';
    default:
      if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|UNABLE_TO/.test(code))
        return `TLS failure (${code})`;
      if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) return `malformed HTTP answer (${code})`;
      return code === '' ? 'network failure' : `network failure (${code})`;
  }
}
