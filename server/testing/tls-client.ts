/**
 * TLS and plain HTTP clients for the LAN tests: one connection per call, and
 * a self-signed server certificate trusted only by its pinned SHA-256
 * fingerprint. Imported by *.test.ts only.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import assert from 'node:assert/strict';

export interface HttpsReply {
  status: number;
  body: string;
  fingerprint256: string;
  authorized: boolean;
}

/** GET over TLS, trusting the server only by the fingerprint it is expected to show. */
export function httpsGet(url: string, opts: { bearer?: string; fingerprint: string }): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        agent: false,
        // The chain is self-signed, so no CA check can pass: the certificate is
        // trusted by its fingerprint alone (checked below, at the handshake).
        rejectUnauthorized: false,
        headers: opts.bearer === undefined ? {} : { authorization: `Bearer ${opts.bearer}` },
      },
      (res) => {
        const socket = res.socket as TLSSocket;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            fingerprint256: socket.getPeerCertificate().fingerprint256,
            authorized: socket.authorized,
          }),
        );
      },
    );
    req.on('socket', (socket) => {
      socket.once('secureConnect', () => {
        const shown = (socket as TLSSocket).getPeerCertificate().fingerprint256;
        if (shown !== opts.fingerprint) socket.destroy(new Error(`pinned certificate mismatch: ${shown}`));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

export function httpGet(url: string, bearer?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false, headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

export function fails(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => assert.fail('the request succeeded'),
    (err: unknown) => err as Error,
  );
}
