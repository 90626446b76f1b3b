/**
 * LAN mode through the gateway: off by default, lan_enabled applies at
 * startup and restart only, HTTPS with the data folder's self-signed
 * certificate (pinned by fingerprint), and the loopback listener stays plain
 * HTTP (docs/decisions/016-lan-mode.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gateway } from '../gateway.ts';
import { fails, httpGet, httpsGet } from '../testing/tls-client.ts';
import { tlsPaths } from './self-signed-cert.ts';
import { listenerTestOptions } from '../testing/gateway.ts';

async function withGateway(
  run: (g: Gateway, dataDir: string) => Promise<void>,
  dataDir = mkdtempSync(join(tmpdir(), 'mas-lan-')),
): Promise<void> {
  const gateway = await Gateway.start(
    listenerTestOptions(dataDir, {
      control: { host: '127.0.0.1', port: 0, secret: 'lan-test-control-secret-0123456789' },
      lanHost: '127.0.0.1',
      lanPort: 0,
    }),
  );
  try {
    await run(gateway, dataDir);
  } finally {
    await gateway.stop();
  }
}

/** Read through a function: TypeScript would otherwise keep a getter's value narrowed across restarts. */
function lanOf(g: Gateway) {
  return g.lan;
}

function control(g: Gateway, method: string, path: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      `${g.control!.url}${path}`,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${g.controlSecret}`,
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

test("LAN mode: off by default; lan_enabled applies at restart; HTTPS with the data folder's certificate; loopback stays plain HTTP", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-lan-'));
  try {
    await withGateway(async (g) => {
      assert.equal(lanOf(g), null, 'nothing listens for the LAN by default');
      assert.equal(statSafe(tlsPaths(dataDir).cert), null, 'no certificate is made while LAN mode is off');

      assert.equal(await control(g, 'PATCH', '/control/settings', { lan_enabled: true }), 200);
      await g.lanSettled();
      assert.equal(lanOf(g), null, 'a startup setting: nothing changes before the restart');

      assert.equal(await control(g, 'POST', '/control/restart'), 204);
      await g.lanSettled();
      const lan = lanOf(g);
      assert.ok(lan !== null);
      assert.match(lan.url, /^https:\/\/127\.0\.0\.1:\d+$/);

      const paths = tlsPaths(dataDir);
      assert.equal(statSync(paths.key).mode & 0o777, 0o600);
      assert.equal(statSync(paths.cert).mode & 0o777, 0o600);
      const fingerprint = new X509Certificate(readFileSync(paths.cert)).fingerprint256;

      const whoami = await httpsGet(`${lan.url}/v1/whoami`, { bearer: g.startupToken, fingerprint });
      assert.equal(whoami.status, 200);
      assert.equal(JSON.parse(whoami.body).origin, 'loopback', 'the token is a loopback one; the connection makes the caller remote');
      assert.equal((await httpsGet(`${lan.url}/health`, { fingerprint })).status, 200);

      // The loopback listener is still plain HTTP, and does not speak TLS.
      assert.equal((await httpGet(`${g.api.url}/v1/whoami`, g.startupToken)).status, 200);
      await fails(httpsGet(`${g.api.url.replace('http:', 'https:')}/health`, { fingerprint }));

      // Restarting with LAN still on keeps the certificate.
      assert.equal(await control(g, 'POST', '/control/restart'), 204);
      await g.lanSettled();
      const again = lanOf(g);
      assert.ok(again !== null);
      assert.equal((await httpsGet(`${again.url}/health`, { fingerprint })).fingerprint256, fingerprint);

      // Switched off, the next restart closes the LAN listener.
      const oldUrl = again.url;
      assert.equal(await control(g, 'PATCH', '/control/settings', { lan_enabled: false }), 200);
      assert.ok(lanOf(g) !== null);
      assert.equal(await control(g, 'POST', '/control/restart'), 204);
      await g.lanSettled();
      assert.equal(lanOf(g), null);
      const refused = await fails(httpsGet(`${oldUrl}/health`, { fingerprint }));
      assert.equal((refused as NodeJS.ErrnoException).code, 'ECONNREFUSED');

      assert.equal(await control(g, 'PATCH', '/control/settings', { lan_enabled: true }), 200);
    }, dataDir);

    // lan_enabled stored on: the next start opens the LAN listener at once, with the same certificate.
    const fingerprint = new X509Certificate(readFileSync(tlsPaths(dataDir).cert)).fingerprint256;
    await withGateway(async (g) => {
      const lan = lanOf(g);
      assert.ok(lan !== null);
      const res = await httpsGet(`${lan.url}/health`, { fingerprint });
      assert.equal(res.status, 200);
    }, dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

function statSafe(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
