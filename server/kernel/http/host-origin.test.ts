/**
 * The Host and Origin rules of kernel/http/host-origin.ts on the Automation API
 * (docs/decisions/022-host-origin-and-secrets.md): the pure helpers, then the
 * app on a real loopback listener (plain HTTP) and on a TLS listener built
 * like the LAN one, with fixed hostile cases and fast-check properties.
 * Every refused request must leave nothing behind: the pairing list stays
 * empty and no token is minted.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { canonicalOrigin, hostName, hostRefusal, isLoopbackAddress, isLoopbackHostName, originRefusal } from './host-origin.ts';
import { createLanServer } from '../../lan/lan-listener.ts';
import { loadOrCreateTlsMaterial } from '../../lan/self-signed-cert.ts';
import { testGateway, type TestGateway } from '../../testing/gateway.ts';
import type { IncomingMessage } from 'node:http';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request on its own connection; headers are sent exactly as given (Host included). */
function send(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  const url = new URL(path, base);
  const tls = url.protocol === 'https:';
  const request = tls ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent: false,
        // The LAN-style listener's certificate is self-signed; these tests are about headers, not trust.
        ...(tls ? { rejectUnauthorized: false } : {}),
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function code(reply: Reply): string | undefined {
  try {
    return (JSON.parse(reply.body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

function fakeReq(init: { local?: string; host?: string; origin?: string; site?: string; tls?: boolean }): IncomingMessage {
  const headers: IncomingHttpHeaders = {};
  if (init.host !== undefined) headers.host = init.host;
  if (init.origin !== undefined) headers.origin = init.origin;
  if (init.site !== undefined) headers['sec-fetch-site'] = init.site;
  return { headers, socket: { localAddress: init.local ?? '127.0.0.1', encrypted: init.tls === true } } as unknown as IncomingMessage;
}

describe('helpers', () => {
  test('names and addresses of this machine', () => {
    for (const name of ['localhost', 'a.localhost', 'localhost.', '127.0.0.1', '127.1.2.3', '[::1]'])
      assert.ok(isLoopbackHostName(name), name);
    for (const name of [
      'evil.example',
      'localhost.evil.example',
      '0.0.0.0',
      '10.0.0.1',
      '[::ffff:127.0.0.1]',
      '127.0.0.01',
      '2130706433',
      '[::]',
    ]) {
      assert.equal(isLoopbackHostName(name), false, name);
    }
    assert.equal(hostName('LOCALHOST:8420'), 'localhost');
    for (const addr of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) assert.ok(isLoopbackAddress(addr), addr);
    for (const addr of ['192.168.1.10', '::ffff:10.0.0.1', 'fe80::1', undefined])
      assert.equal(isLoopbackAddress(addr), false, String(addr));
  });

  test('origins compare in one spelling', () => {
    assert.equal(canonicalOrigin('HTTP://LocalHost:80'), 'http://localhost');
    assert.equal(canonicalOrigin('https://127.0.0.1:443'), 'https://127.0.0.1');
    assert.equal(canonicalOrigin('http://[::1]:08420'), 'http://[::1]:8420');
    for (const bad of ['null', '', 'http://a/b', 'http://u@a', 'file://', 'http://a, http://b', 'ftp://a'])
      assert.equal(canonicalOrigin(bad), null, bad);
  });

  test('the Host rule keys on the connection: LAN connections are reached under any name', () => {
    assert.equal(hostRefusal(fakeReq({ host: 'evil.example' }))?.code, 'bad_request');
    assert.equal(hostRefusal(fakeReq({ host: 'evil.example', local: '::ffff:127.0.0.1' }))?.code, 'bad_request');
    assert.equal(hostRefusal(fakeReq({ host: 'mybox.lan:8421', local: '192.168.1.10', tls: true })), null);
    assert.equal(hostRefusal(fakeReq({ host: 'localhost:1' })), null);
    // On a LAN connection the Origin rule still holds, with the https scheme of the connection.
    assert.equal(
      originRefusal(fakeReq({ host: 'mybox.lan:8421', origin: 'https://mybox.lan:8421', local: '192.168.1.10', tls: true })),
      null,
    );
    assert.equal(
      originRefusal(fakeReq({ host: 'mybox.lan:8421', origin: 'http://mybox.lan:8421', local: '192.168.1.10', tls: true }))?.code,
      'forbidden',
    );
    assert.equal(
      originRefusal(fakeReq({ host: 'mybox.lan:8421', origin: 'https://evil.example', local: '192.168.1.10', tls: true }))?.code,
      'forbidden',
    );
  });
});

/** The hostile cases every listener must refuse; `own` is the listener's origin, `host` its Host. */
function hostileCases(host: string, own: string): { what: string; headers: Record<string, string>; status: number; code: string }[] {
  const otherPort = own.replace(/:(\d+)$/, (_m, p: string) => `:${Number(p) + 1}`);
  return [
    { what: 'rebound name', headers: { host: 'evil.example' }, status: 400, code: 'bad_request' },
    { what: 'rebound name with the port', headers: { host: `evil.example:${host.split(':').at(-1)}` }, status: 400, code: 'bad_request' },
    { what: 'name ending in localhost', headers: { host: 'evillocalhost' }, status: 400, code: 'bad_request' },
    { what: 'a LAN address', headers: { host: '192.168.1.10' }, status: 400, code: 'bad_request' },
    { what: 'foreign origin', headers: { host, origin: 'http://evil.example' }, status: 403, code: 'forbidden' },
    { what: 'another loopback port', headers: { host, origin: otherPort }, status: 403, code: 'forbidden' },
    { what: 'origin null', headers: { host, origin: 'null' }, status: 403, code: 'forbidden' },
    {
      what: 'other scheme',
      headers: { host, origin: own.startsWith('https') ? own.replace('https', 'http') : own.replace('http', 'https') },
      status: 403,
      code: 'forbidden',
    },
    { what: 'two origins', headers: { host, origin: `${own}, http://evil.example` }, status: 403, code: 'forbidden' },
    { what: 'cross-site fetch', headers: { host, 'sec-fetch-site': 'cross-site' }, status: 403, code: 'forbidden' },
    { what: 'same-site fetch (another port)', headers: { host, 'sec-fetch-site': 'same-site' }, status: 403, code: 'forbidden' },
  ];
}

const ROUTES: { method: string; path: string; body?: string; contentType?: string }[] = [
  { method: 'POST', path: '/v1/pair/request', body: '{"client_name":"evil","scopes":["read"]}', contentType: 'text/plain' },
  { method: 'POST', path: '/v1/pair/request', body: '{"client_name":"evil","scopes":["read"]}', contentType: 'application/json' },
  { method: 'GET', path: '/v1/pair/pair_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
  { method: 'OPTIONS', path: '/v1/pair/request' },
  { method: 'HEAD', path: '/health' },
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/v1/whoami' },
  {
    method: 'POST',
    path: '/v1/webhooks',
    body: '{"url":"https://example.com/h","events":["job.completed"]}',
    contentType: 'application/json',
  },
];

for (const kind of ['loopback HTTP', 'LAN-style HTTPS'] as const) {
  describe(`the Automation API on a ${kind} listener`, () => {
    let gw: TestGateway;
    let server: Server | HttpsServer;
    let base: string;
    let host: string;
    let own: string;
    let token: string;
    let tlsDir: string;
    let refused = 0;

    before(async () => {
      gw = testGateway();
      token = gw.token(['read', 'record', 'write', 'delete']);
      tlsDir = mkdtempSync(join(tmpdir(), 'mas-host-origin-'));
      server = kind === 'loopback HTTP' ? createServer(gw.app) : createLanServer(loadOrCreateTlsMaterial(tlsDir), gw.app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const scheme = kind === 'loopback HTTP' ? 'http' : 'https';
      base = `${scheme}://127.0.0.1:${port}`;
      host = `127.0.0.1:${port}`;
      own = base;
    });

    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      gw.close();
      rmSync(tlsDir, { recursive: true, force: true });
      process.stdout.write(`# ${kind}: ${refused} hostile requests refused\n`);
    });

    function assertNothingCreated(): void {
      assert.equal(gw.deps.pairing.list().length, 0, 'no pairing request was created');
      assert.equal(gw.deps.tokens.list().length, 1, 'no token was minted');
    }

    test('every hostile case on every route is refused with the envelope, without CORS', async () => {
      for (const route of ROUTES) {
        for (const c of hostileCases(host, own)) {
          const headers: Record<string, string> = { ...c.headers, authorization: `Bearer ${token}` };
          if (route.contentType !== undefined) headers['content-type'] = route.contentType;
          if (route.method === 'OPTIONS') headers['access-control-request-method'] = 'POST';
          const reply = await send(base, route.method, route.path, headers, route.body);
          const what = `${route.method} ${route.path} (${c.what})`;
          assert.equal(reply.status, c.status, what);
          if (route.method !== 'HEAD') assert.equal(code(reply), c.code, what);
          for (const name of Object.keys(reply.headers)) assert.ok(!name.startsWith('access-control-'), `${what}: ${name}`);
          refused += 1;
        }
      }
      assertNothingCreated();
    });

    test('property: any Host that is not a name of this machine is refused (400)', async () => {
      const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
      const foreign = fc.oneof(
        fc.tuple(label, fc.constantFrom('example', 'com', 'lan', 'local', 'localhost.evil.example')).map(([a, b]) => `${a}.${b}`),
        fc.ipV4().filter((ip) => !ip.startsWith('127.')),
        fc
          .ipV6()
          .filter((ip) => ip !== '::1' && !/^0{0,4}(:0{0,4}){0,6}:0*1$/.test(ip))
          .map((ip) => `[${ip}]`),
      );
      await fc.assert(
        fc.asyncProperty(foreign, fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), async (name, port) => {
          const reply = await send(
            base,
            'POST',
            '/v1/pair/request',
            { host: port === undefined ? name : `${name}:${port}`, 'content-type': 'text/plain' },
            '{"client_name":"x","scopes":["read"]}',
          );
          assert.equal(reply.status, 400, name);
          refused += 1;
        }),
        { numRuns: 60, seed: 22 },
      );
      assertNothingCreated();
    });

    test('property: any Origin but the listener’s own is refused (403)', async () => {
      const origins = fc
        .oneof(
          fc.webUrl().map((u) => new URL(u).origin),
          fc.integer({ min: 1, max: 65535 }).map((p) => `${own.split('://')[0]}://127.0.0.1:${p}`),
          fc.constantFrom('null', 'file://', 'chrome-extension://abc'),
        )
        .filter((o) => canonicalOrigin(o) !== canonicalOrigin(own));
      await fc.assert(
        fc.asyncProperty(origins, async (origin) => {
          const reply = await send(
            base,
            'POST',
            '/v1/pair/request',
            { host, origin, 'content-type': 'text/plain' },
            '{"client_name":"x","scopes":["read"]}',
          );
          assert.equal(reply.status, 403, origin);
          refused += 1;
        }),
        { numRuns: 60, seed: 22 },
      );
      assertNothingCreated();
    });

    test('loopback names and the listener’s own origin are served', async () => {
      const port = host.split(':').at(-1) ?? '';
      for (const name of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `[::1]:${port}`, '127.8.9.10', 'app.localhost:1']) {
        const reply = await send(base, 'GET', '/v1/whoami', { host: name, authorization: `Bearer ${token}` });
        assert.equal(reply.status, 200, name);
      }
      const same = await send(base, 'GET', '/v1/whoami', {
        host,
        origin: own,
        'sec-fetch-site': 'same-origin',
        authorization: `Bearer ${token}`,
      });
      assert.equal(same.status, 200);
      const typed = await send(base, 'GET', '/health', { host, 'sec-fetch-site': 'none' });
      assert.equal(typed.status, 200);
      // The own origin with its default port spelled out, or in upper case, is the same origin.
      const upper = await send(base, 'GET', '/health', { host, origin: own.toUpperCase() });
      assert.equal(upper.status, 200);
      // A request from the own origin does create: the refusals above were the rule, not a broken route.
      const created = await send(
        base,
        'POST',
        '/v1/pair/request',
        { host, origin: own, 'content-type': 'application/json' },
        '{"client_name":"own","scopes":["read"]}',
      );
      assert.equal(created.status, 202);
      assert.equal(gw.deps.pairing.list().length, 1);
    });
  });
}
