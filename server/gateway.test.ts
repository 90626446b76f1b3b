/**
 * The gateway over real sockets: a listening Gateway on ephemeral ports with
 * a temporary data folder, driven with node:http (one connection per call, so
 * a restart never meets a pooled connection by surprise).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Gateway, GatewayStartError, type GatewayOptions } from './gateway.ts';
import { openDatabase } from './kernel/store/database.ts';
import { RESET_SETTINGS, SettingsRepo } from './kernel/store/settings-repo.ts';
import { call, type CallReply as Reply } from './testing/http-call.ts';
import { listenerTestOptions } from './testing/gateway.ts';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mas-gateway-'));
}

const startOpts = listenerTestOptions;

async function withGateway(run: (g: Gateway, dataDir: string) => Promise<void>, extra: Partial<GatewayOptions> = {}): Promise<void> {
  const dataDir = tempDir();
  const gateway = await Gateway.start(startOpts(dataDir, extra));
  try {
    await run(gateway, dataDir);
  } finally {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function ctl(g: Gateway, path: string, opts: { method?: string; body?: unknown } = {}): Promise<Reply> {
  const control = g.control;
  assert.ok(control !== null && g.controlSecret !== null);
  return call(`${control.url}${path}`, { ...opts, bearer: g.controlSecret });
}

function api(g: Gateway, path: string, bearer?: string): Promise<Reply> {
  return call(`${g.api.url}${path}`, bearer === undefined ? {} : { bearer });
}

/** A raw connection that has had one keep-alive exchange and stays open. */
async function openKeepAlive(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((res, rej) => {
    socket.once('connect', res);
    socket.once('error', rej);
  });
  socket.write(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
  await new Promise<void>((res) => socket.once('data', () => res()));
  return socket;
}

function closed(socket: Socket, ms = 3000): Promise<boolean> {
  if (socket.destroyed || socket.readableEnded) return Promise.resolve(true);
  return new Promise((res) => {
    const timer = setTimeout(() => res(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      res(true);
    });
    socket.resume();
  });
}

test('API and Control API both serve; the startup token holds all four scopes', () =>
  withGateway(async (g, dataDir) => {
    assert.notEqual(g.api.port, 0);
    assert.equal(g.api.host, '127.0.0.1');
    assert.equal(g.control?.host, '127.0.0.1');
    assert.notEqual(g.control?.port, g.api.port);

    const health = await api(g, '/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');

    const who = await api(g, '/v1/whoami', g.startupToken);
    assert.equal(who.status, 200);
    assert.deepEqual(who.body.scopes, ['read', 'record', 'write', 'delete']);

    const discovery = await ctl(g, '/control');
    assert.equal(discovery.status, 200);
    assert.equal(discovery.body.version, 1);

    // The secret was generated into the data folder, owner-only.
    const file = join(dataDir, 'control-secret');
    assert.equal(g.controlSecretFile, file);
    assert.equal(readFileSync(file, 'utf8').trim(), g.controlSecret);
    assert.equal(statSync(file).mode & 0o777, 0o600);

    // Neither credential opens the other door.
    assert.equal((await call(`${g.control?.url}/control`, { bearer: g.startupToken })).status, 401);
    assert.equal((await api(g, '/v1/whoami', g.controlSecret ?? '')).status, 401);
    // An unknown API route is the API's 404, not the control app's.
    const unknown = await api(g, '/control', g.startupToken);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
  }));

test('a given control secret is used as is and no file is written', () => {
  const secret = 'given-secret-0123456789abcdef';
  return withGateway(
    async (g, dataDir) => {
      assert.equal(g.controlSecret, secret);
      assert.equal(g.controlSecretFile, null);
      assert.throws(() => statSync(join(dataDir, 'control-secret')), /ENOENT/);
      assert.equal((await ctl(g, '/control')).status, 200);
    },
    { control: { host: '127.0.0.1', port: 0, secret } },
  );
});

test('control off: no control listener, no secret', () =>
  withGateway(
    async (g) => {
      assert.equal(g.control, null);
      assert.equal(g.controlSecret, null);
      assert.equal((await api(g, '/health')).status, 200);
    },
    { control: null },
  ));

test('a fresh data folder starts clean: API off until switched on, no meetings', () =>
  withGateway(
    async (g) => {
      const off = await api(g, '/v1/whoami', g.startupToken);
      assert.equal(off.status, 403);
      assert.equal(off.body.error.code, 'api_disabled');
      assert.equal((await api(g, '/health')).status, 200);
      const settings = await ctl(g, '/control/settings');
      assert.equal(settings.body.automation_api_enabled, false);
      assert.equal(settings.body.license, 'pro');
      assert.equal(settings.body.webhooks_enabled, false);

      await ctl(g, '/control/settings', { method: 'PATCH', body: { automation_api_enabled: true } });
      const list = await api(g, '/v1/meetings', g.startupToken);
      assert.equal(list.status, 200);
      assert.equal(list.body.total, 0);
    },
    { enableApi: false },
  ));

test('data survives a stop and a start with the same data folder; the startup token is replaced', async () => {
  const dataDir = tempDir();
  try {
    const first = await Gateway.start(startOpts(dataDir));
    const seeded = await ctl(first, '/control/meetings', {
      method: 'POST',
      body: { title: 'Kept', segments: [{ speaker: 'S1', start: 0, end: 1, text: 'still here' }] },
    });
    assert.equal(seeded.status, 201);
    const made = await ctl(first, '/control/tokens', { method: 'POST', body: { scopes: ['read'] } });
    await ctl(first, '/control/settings', { method: 'PATCH', body: { remote_recording_prearmed: true } });
    const firstSecret = first.controlSecret;
    const firstToken = first.startupToken;
    await first.stop();
    await first.stop(); // idempotent

    const second = await Gateway.start(startOpts(dataDir, { enableApi: false }));
    try {
      assert.equal(second.controlSecret, firstSecret);
      assert.notEqual(second.startupToken, firstToken);
      assert.equal((await api(second, '/v1/whoami', firstToken)).status, 401);
      // The switch flipped by the first start's --enable-api is stored.
      const meeting = await api(second, `/v1/meetings/${seeded.body.id}`, second.startupToken);
      assert.equal(meeting.status, 200);
      assert.equal(meeting.body.title, 'Kept');
      assert.equal((await api(second, '/v1/whoami', made.body.token)).status, 200);
      assert.equal((await ctl(second, '/control/settings')).body.remote_recording_prearmed, true);
      const tokens = second.deps.tokens.list().filter((t) => t.name === 'startup');
      assert.equal(tokens.length, 1);
      assert.equal(tokens[0]?.kind, 'first_party');
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  const fresh = tempDir();
  try {
    const g = await Gateway.start(startOpts(fresh));
    try {
      const list = await api(g, '/v1/meetings', g.startupToken);
      assert.equal(list.body.total, 0);
    } finally {
      await g.stop();
    }
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});

test('restart keeps the port, closes open API connections, keeps data and devices, re-reads settings', () =>
  withGateway(async (g, dataDir) => {
    const port = g.api.port;
    const depsBefore = g.deps;
    const seeded = await ctl(g, '/control/meetings', { method: 'POST', body: { title: 'Across restart', segments: [] } });
    await ctl(g, '/control/devices', { method: 'POST', body: { name: 'Sim Mic', device_type: 'input', script: null } });
    const idle = await openKeepAlive(g.api.url);
    // A request still arriving (headers incomplete), like a client in the middle of a call.
    const pending = connect(port, '127.0.0.1');
    await new Promise<void>((res) => pending.once('connect', () => res()));
    pending.write('GET /v1/whoami HTTP/1.1\r\nHost: x\r\n');

    const controlIdle = await openKeepAlive(g.control?.url ?? '');
    const restarted = await ctl(g, '/control/restart', { method: 'POST' });
    assert.equal(restarted.status, 204);

    assert.equal(await closed(idle), true, 'the idle keep-alive connection was closed');
    assert.equal(await closed(pending), true, 'the connection with a request in progress was closed');
    assert.equal(await closed(controlIdle, 300), false, 'control connections are not API connections');
    controlIdle.destroy();

    assert.equal(g.api.port, port);
    assert.notEqual(g.deps, depsBefore);
    assert.equal((await api(g, '/health')).status, 200);
    assert.equal((await api(g, `/v1/meetings/${seeded.body.id}`, g.startupToken)).status, 200, 'data and the startup token survive');
    const devices = await ctl(g, '/control/devices');
    assert.deepEqual(
      devices.body.devices.map((d: { name: string }) => d.name),
      ['Sim Mic'],
    );

    // Settings are read from the store again: a change written behind the app's back shows only after restart.
    const other = openDatabase(join(dataDir, 'gateway.sqlite'));
    new SettingsRepo(other).update({ license: 'none' });
    other.close();
    assert.equal((await api(g, '/v1/whoami', g.startupToken)).status, 200, 'the running app still has its settings');
    await ctl(g, '/control/restart', { method: 'POST' });
    assert.equal((await api(g, '/v1/whoami', g.startupToken)).status, 402);
  }));

test('reset restores settings, erases tokens and meetings, unplugs devices, and restarts', () =>
  withGateway(async (g) => {
    await ctl(g, '/control/meetings', { method: 'POST', body: { title: 'Erased', segments: [], audio: true } });
    await ctl(g, '/control/devices', { method: 'POST', body: { name: 'Sim Mic', device_type: 'input', script: null } });
    await ctl(g, '/control/settings', {
      method: 'PATCH',
      body: { automation_api_enabled: false, license: 'unverifiable', lan_enabled: true, local_webhook_targets: ['10.0.0.2:80'] },
    });
    const idle = await openKeepAlive(g.api.url);
    const depsBefore = g.deps;

    const reset = await ctl(g, '/control/reset', { method: 'POST' });
    assert.equal(reset.status, 204);
    assert.equal(await closed(idle), true);
    assert.notEqual(g.deps, depsBefore, 'reset applies the settings as a restart does');

    assert.deepEqual((await ctl(g, '/control/settings')).body, RESET_SETTINGS);
    assert.deepEqual((await ctl(g, '/control/devices')).body, { devices: [] });
    assert.equal((await api(g, '/v1/whoami', g.startupToken)).status, 401, 'tokens are erased, the startup token too');
    const made = await ctl(g, '/control/tokens', { method: 'POST', body: { scopes: ['read'] } });
    const list = await api(g, '/v1/meetings', made.body.token);
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 0);
  }));

test('through the real API: a disabled token gets 403 consumer_disabled, a deleted one 401', () =>
  withGateway(async (g) => {
    const made = await ctl(g, '/control/tokens', { method: 'POST', body: { scopes: ['read'], name: 'ci' } });
    assert.equal(made.status, 201);
    assert.equal((await api(g, '/v1/whoami', made.body.token)).status, 200);

    const off = await ctl(g, `/control/tokens/${made.body.token_id}`, { method: 'PATCH', body: { enabled: false } });
    assert.equal(off.status, 200);
    const disabled = await api(g, '/v1/whoami', made.body.token);
    assert.equal(disabled.status, 403);
    assert.equal(disabled.body.error.code, 'consumer_disabled');

    assert.equal((await ctl(g, `/control/tokens/${made.body.token_id}`, { method: 'DELETE' })).status, 204);
    const deleted = await api(g, '/v1/whoami', made.body.token);
    assert.equal(deleted.status, 401);
    assert.equal(deleted.body.error.code, 'unauthorized');
  }));

test('an unparsable request gets the error envelope on the raw socket', () =>
  withGateway(async (g) => {
    const socket = connect(g.api.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.write('THIS IS NOT HTTP\r\n\r\n');
    await new Promise<void>((res) => socket.once('close', () => res()));
    const text = Buffer.concat(chunks).toString('utf8');
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.equal(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error.code, 'bad_request');
  }));

test('a port in use and an unusable data folder are start errors with one clear line', async () => {
  const blocker = createServer();
  await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', () => res()));
  const busy = (blocker.address() as AddressInfo).port;
  const dataDir = tempDir();
  try {
    await assert.rejects(Gateway.start(startOpts(dataDir, { port: busy })), (err: unknown) => {
      assert.ok(err instanceof GatewayStartError);
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${busy}: the port is already in use`));
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
    await assert.rejects(
      Gateway.start(startOpts(dataDir, { control: { host: '127.0.0.1', port: busy, secret: null } })),
      /Control API .*already in use/,
    );
    // The failed starts released everything: a normal start on the same folder works.
    const g = await Gateway.start(startOpts(dataDir));
    await g.stop();

    const notAFolder = join(dataDir, 'file');
    writeFileSync(notAFolder, 'x');
    await assert.rejects(Gateway.start(startOpts(join(notAFolder, 'data'))), (err: unknown) => {
      assert.ok(err instanceof GatewayStartError);
      assert.match(err.message, /^cannot create the data folder/);
      return true;
    });
    await assert.rejects(Gateway.start(startOpts(notAFolder)), GatewayStartError);
  } finally {
    blocker.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

// ── main.ts, as a process ───────────────────────────────────────────────────

const MAIN = resolve(import.meta.dirname, 'main.ts');

function runMain(args: string[]): { child: ReturnType<typeof spawn>; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  return { child, output: () => out, exited };
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('main.ts prints a banner with a working token and curl line, and stops cleanly on SIGTERM', async () => {
  const dataDir = tempDir();
  try {
    const run = runMain(['--port', '0', '--control-port', '0', '--enable-api', `--data-dir=${dataDir}`]);
    await waitFor(() => run.output().includes('Press Ctrl+C'), 20_000);
    const out = run.output();
    const token = /Startup token\s+(mas_\S+)/.exec(out)?.[1];
    const apiUrl = /Automation API\s+(http:\/\/\S+)/.exec(out)?.[1];
    const controlUrl = /Control API\s+(http:\/\/\S+)/.exec(out)?.[1];
    assert.ok(token !== undefined && apiUrl !== undefined && controlUrl !== undefined, out);
    assert.ok(out.includes(`curl -H "Authorization: Bearer ${token}" ${apiUrl}/v1/whoami`), out);
    assert.ok(out.includes(join(dataDir, 'control-secret')), out);
    assert.equal((await call(`${apiUrl}/v1/whoami`, { bearer: token })).status, 200);
    const secret = readFileSync(join(dataDir, 'control-secret'), 'utf8').trim();
    assert.equal((await call(`${controlUrl}/control`, { bearer: secret })).status, 200);
    assert.equal(statSync(join(dataDir, 'gateway.sqlite')).mode & 0o077, 0, 'the database is owner-only');

    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('main.ts: a port in use prints one line and exits 1', async () => {
  const blocker = createServer();
  await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', () => res()));
  const dataDir = tempDir();
  try {
    const run = runMain(['--port', String((blocker.address() as AddressInfo).port), `--data-dir=${dataDir}`]);
    assert.equal(await run.exited, 1);
    const lines = run.output().trimEnd().split('\n');
    assert.equal(lines.length, 1, run.output());
    assert.match(lines[0] ?? '', /^mas: cannot start: cannot serve the Automation API on 127\.0\.0\.1:\d+: the port is already in use/);
  } finally {
    blocker.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
