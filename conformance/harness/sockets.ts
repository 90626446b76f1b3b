/**
 * Socket-level probes for the transport clauses: is anything listening on a
 * port, and what a TLS listener presents. Each probe is recorded as an
 * exchange of channel 'probe' with a curl line that repeats it.
 */
import { request as httpsRequest } from 'node:https';
import { Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
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
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' ? 'refused' : `error: ${err.code ?? err.message}`));
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
    const req = httpsRequest({ host, port, path, method: 'GET', rejectUnauthorized: false, timeout: timeoutMs, servername: /^[\d.:]+$/.test(host) ? '' : host }, (res) => {
      const socket = res.socket as TLSSocket;
      const cert: PeerCertificate | undefined = socket.getPeerCertificate?.();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const subject = cert === undefined ? undefined : JSON.stringify(cert.subject);
        const issuer = cert === undefined ? undefined : JSON.stringify(cert.issuer);
        const authErr = socket.authorizationError === undefined || socket.authorizationError === null ? undefined : String(socket.authorizationError);
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8').slice(0, 4096),
          ...(subject === undefined ? {} : { subject }),
          ...(issuer === undefined ? {} : { issuer }),
          ...(authErr === undefined ? {} : { authorizationError: authErr }),
          selfSigned: (subject !== undefined && subject === issuer) || authErr === 'DEPTH_ZERO_SELF_SIGNED_CERT' || authErr === 'SELF_SIGNED_CERT_IN_CHAIN',
        });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, body: '', error: err.code ?? err.message }));
    req.end();
  });
}

/** This machine's non-loopback IPv4 addresses. */
export function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a): a is NonNullable<typeof a> => a !== undefined && a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
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
