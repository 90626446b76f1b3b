/**
 * Socket-level probes for the transport clauses: is anything listening on a
 * port, and what a TLS listener presents. Each probe is recorded as an
 * exchange of channel 'probe' with a curl line that repeats it.
 */
import { request as httpsRequest } from 'node:https';
import { Socket, createServer } from 'node:net';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { CheckContext } from './context.ts';

export type ConnectResult = 'connected' | 'refused' | 'timeout' | `error: ${string}`;

export function tcpConnect(host: string, port: number, timeoutMs = 2000): Promise<ConnectResult> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (r: ConnectResult): void => {
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(timeoutMs, () => done('timeout'));
    socket.once('connect', () => done('connected'));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' ? 'refused' : `error: ${err.code ?? err.message}`),
    );
    socket.connect(port, host);
  });
}

export interface HttpsProbe {
  status: number;
  body: string;
  error?: string;
  selfSigned?: boolean;
  subject?: string;
  issuer?: string;
  authorizationError?: string;
}

/** GET over TLS without verifying the certificate, keeping what the server presented. */
export function httpsGet(host: string, port: number, path: string, timeoutMs = 5000): Promise<HttpsProbe> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      { host, port, path, method: 'GET', rejectUnauthorized: false, timeout: timeoutMs, servername: /^[\d.:]+$/.test(host) ? '' : host },
      (res) => {
        // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- an https request's socket is the TLSSocket it connected
        const socket = res.socket as TLSSocket;
        const cert: PeerCertificate | undefined = socket.getPeerCertificate?.();
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const subject = cert === undefined ? undefined : JSON.stringify(cert.subject);
          const issuer = cert === undefined ? undefined : JSON.stringify(cert.issuer);
          const authErr =
            socket.authorizationError === undefined || socket.authorizationError === null ? undefined : String(socket.authorizationError);
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8').slice(0, 4096),
            ...(subject === undefined ? {} : { subject }),
            ...(issuer === undefined ? {} : { issuer }),
            ...(authErr === undefined ? {} : { authorizationError: authErr }),
            selfSigned:
              (subject !== undefined && subject === issuer) ||
              authErr === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
              authErr === 'SELF_SIGNED_CERT_IN_CHAIN',
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, body: '', error: err.code ?? err.message }));
    req.end();
  });
}

/**
 * The suite never sends traffic to an address that is not loopback unless the
 * user names it (--lan-host). "All interfaces" is observed on loopback alone:
 * a listener on 0.0.0.0 answers on 127.0.0.2, while one bound to 127.0.0.1
 * does not (on Linux all of 127.0.0.0/8 is this machine).
 */
export const ALL_INTERFACES_PROBE_HOST = '127.0.0.2';

function listenOnce(host: string): Promise<{ port: number; close(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.destroy());
    server.once('error', reject);
    server.listen(0, host, () => {
      const a = server.address();
      resolve({ port: typeof a === 'object' && a !== null ? a.port : 0, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

/**
 * Whether this machine tells the two apart: a listener of our own on 0.0.0.0
 * answers on 127.0.0.2 and one on 127.0.0.1 does not. Null when it does,
 * else the reason (e.g. a system where 127.0.0.2 is not configured): the
 * premise of the "all interfaces" observations.
 */
export async function allInterfacesObservable(): Promise<string | null> {
  const any = await listenOnce('0.0.0.0');
  const loop = await listenOnce('127.0.0.1');
  try {
    const a = await tcpConnect(ALL_INTERFACES_PROBE_HOST, any.port, 1000);
    if (a !== 'connected')
      return `a listener of the suite's own on 0.0.0.0 does not answer on ${ALL_INTERFACES_PROBE_HOST} (${a}); give --lan-host with an address of the target's machine`;
    const b = await tcpConnect(ALL_INTERFACES_PROBE_HOST, loop.port, 1000);
    if (b === 'connected')
      return `a listener of the suite's own on 127.0.0.1 also answers on ${ALL_INTERFACES_PROBE_HOST}, so that address cannot tell "all interfaces" from loopback; give --lan-host`;
    return null;
  } finally {
    await any.close();
    await loop.close();
  }
}

/** Records a socket probe in the check's report. */
export function recordProbe(ctx: CheckContext, what: string, url: string, outcome: string, curl: string): void {
  ctx.sink({
    channel: 'probe',
    label: what,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    request: { method: 'CONNECT', url, headers: {} },
    error: outcome,
    curl,
  });
}
