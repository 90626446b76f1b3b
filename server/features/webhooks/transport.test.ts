/**
 * One attempt on the wire, against real receivers on 127.0.0.1: the answer
 * or the network failure, no redirects, the timeout, and pinning (the socket
 * goes to the checked address; the Host header and TLS name stay the URL's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSelfSignedCertificate } from '../../lan/self-signed-cert.ts';
import type { CheckedDestination, ResolvedAddress } from './destination.ts';
import { closedPort, startReceiver } from '../../testing/webhook-receiver.ts';
import { createHttpTransport, pinnedLookup, type AttemptRequest } from './transport.ts';

const transport = createHttpTransport({ userAgent: 'test-agent/1' });

function destination(url: string, addresses: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }]): CheckedDestination {
  const u = new URL(url);
  return { url: u, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)), addresses };
}

function attempt(url: string, extra: Partial<AttemptRequest> = {}): AttemptRequest {
  return {
    destination: destination(url),
    body: '{"event":"x"}',
    headers: { 'Content-Type': 'application/json', 'X-Test': '1' },
    timeoutMs: 5000,
    ...extra,
  };
}

test('pinnedLookup answers with the checked addresses only, whatever name it is asked about', () => {
  const lookup = pinnedLookup([
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
  ]);
  const seen: unknown[] = [];
  lookup('evil.example', {}, (err, address, family) => seen.push([err, address, family]));
  lookup('evil.example', { all: true }, (err, address) => seen.push([err, address]));
  lookup('evil.example', { family: 6 }, (err, address, family) => seen.push([err, address, family]));
  lookup('evil.example', { family: 4, all: true }, (err, address) => seen.push([err, address]));
  assert.deepEqual(seen, [
    [null, '93.184.216.34', 4],
    [
      null,
      [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
    ],
    [null, '2606:2800:220:1:248:1893:25c8:1946', 6],
    [null, [{ address: '93.184.216.34', family: 4 }]],
  ]);
  const none = pinnedLookup([{ address: '93.184.216.34', family: 4 }]);
  none('x', { family: 6 }, (err) => assert.equal(err?.code, 'ENOTFOUND'));
});

test('a POST reaches the receiver with the body, the headers and the User-Agent; the status comes back', async () => {
  const r = await startReceiver();
  try {
    r.answer = 204;
    assert.deepEqual(await transport(attempt(r.url + '?q=1')), { kind: 'response', status: 204 });
    const [got] = await r.waitFor(1);
    assert.equal(got!.method, 'POST');
    assert.equal(got!.url, '/hook?q=1');
    assert.equal(got!.rawBody.toString(), '{"event":"x"}');
    assert.equal(got!.headers['content-type'], 'application/json');
    assert.equal(got!.headers['x-test'], '1');
    assert.equal(got!.headers['user-agent'], 'test-agent/1');
    assert.equal(got!.headers['content-length'], '13');

    for (const status of [200, 400, 404, 500, 503]) {
      r.answer = status;
      assert.deepEqual(await transport(attempt(r.url)), { kind: 'response', status });
    }
  } finally {
    await r.close();
  }
});

test('pinning: the socket goes to the checked address, the Host header keeps the name (DNS is never asked)', async () => {
  const r = await startReceiver();
  try {
    // rebound.invalid cannot resolve: only the pinned lookup can have found the receiver.
    const req = attempt(`http://rebound.invalid:${r.port}/hook`);
    assert.deepEqual(await transport(req), { kind: 'response', status: 200 });
    const [got] = await r.waitFor(1);
    assert.equal(got!.headers.host, `rebound.invalid:${r.port}`);
  } finally {
    await r.close();
  }
});

test('pinning: a checked address that is not where DNS would point wins over DNS', async () => {
  const r = await startReceiver();
  try {
    // DNS says localhost is 127.0.0.1, where the receiver listens. Pinned to
    // 127.0.0.2 (where nothing listens on that port), the attempt must fail:
    // the name is never looked up again.
    const url = `http://localhost:${r.port}/`;
    const pinnedElsewhere = { ...attempt(url), destination: destination(url, [{ address: '127.0.0.2', family: 4 }]) };
    const result = await transport(pinnedElsewhere);
    assert.equal(result.kind, 'network');
    assert.equal(r.received.length, 0);
    // Pinned to 127.0.0.1 it arrives, with the name in the Host header.
    const pinnedHere = { ...attempt(url), destination: destination(url, [{ address: '127.0.0.1', family: 4 }]) };
    assert.deepEqual(await transport(pinnedHere), { kind: 'response', status: 200 });
    assert.equal((await r.waitFor(1))[0]!.headers.host, `localhost:${r.port}`);
  } finally {
    await r.close();
  }
});

test('redirects are answers, not followed', async () => {
  const target = await startReceiver();
  const r = await startReceiver();
  try {
    r.answer = (res) => {
      res.statusCode = 307;
      res.setHeader('Location', target.url);
      res.end();
    };
    assert.deepEqual(await transport(attempt(r.url)), { kind: 'response', status: 307 });
    assert.equal(target.received.length, 0);
  } finally {
    await r.close();
    await target.close();
  }
});

test('network failures: refused, reset, no answer in time', async () => {
  const port = await closedPort();
  const refused = await transport(attempt(`http://127.0.0.1:${port}/`));
  assert.deepEqual(refused, { kind: 'network', detail: 'connection refused (ECONNREFUSED)' });

  const r = await startReceiver();
  try {
    r.answer = 'reset';
    const reset = await transport(attempt(r.url));
    assert.equal(reset.kind, 'network');
    assert.match((reset as { detail: string }).detail, /reset|ECONNRESET/);

    r.answer = 'hang';
    const started = Date.now();
    const slow = await transport(attempt(r.url, { timeoutMs: 300 }));
    assert.deepEqual(slow, { kind: 'network', detail: 'no answer within 0.3 s' });
    assert.ok(Date.now() - started < 2000);
  } finally {
    await r.close();
  }
});

test('an aborted attempt ends at once as a network failure', async () => {
  const r = await startReceiver();
  try {
    r.answer = 'hang';
    const abort = new AbortController();
    const pending = transport(attempt(r.url, { signal: abort.signal }));
    await r.waitFor(1);
    abort.abort();
    assert.equal((await pending).kind, 'network');
  } finally {
    await r.close();
  }
});

test('https: the certificate is checked against the URL host name (a self-signed one fails as TLS)', async () => {
  const tls = createSelfSignedCertificate({ dnsNames: ['localhost'] });
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const result = await transport(attempt(`https://localhost:${port}/`));
    assert.equal(result.kind, 'network');
    assert.match((result as { detail: string }).detail, /^TLS failure/);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a huge reply is cut off, not read to the end', async () => {
  const r = await startReceiver();
  try {
    r.answer = (res) => {
      res.statusCode = 200;
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
      res.on('error', () => undefined);
    };
    assert.deepEqual(await transport(attempt(r.url)), { kind: 'response', status: 200 });
  } finally {
    await r.close();
  }
});
