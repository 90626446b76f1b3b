/**
 * Secrets never reach a log or a file they do not belong in
 * (docs/decisions/022-host-origin-and-secrets.md).
 *
 * One real gateway process (node server/main.ts, temporary data folder,
 * --control, --enable-api, ephemeral ports, its log at its most talkative:
 * MAS_LOG_LEVEL=trace and the access log on), its stdout and stderr captured,
 * driven through a run that touches every kind of secret:
 *
 *  - the startup token (printed once in the start banner, on purpose);
 *  - the control secret (generated into <data>/control-secret);
 *  - a token minted through the Control API, then revoked and presented again;
 *  - a token minted by pairing approval, collected by the device's poll;
 *  - webhook signing secrets, one chosen by the client and one generated;
 *  - a webhook URL carrying a secret in its query, and one carrying a
 *    password in its user info (refused at registration);
 *  - tokens presented in failing requests (unknown, revoked, insufficient
 *    scope, in a query string, in the path, malformed headers, in a body);
 *  - deliveries that fail (the receiver answers 500, or drops the connection);
 *  - an internal failure (the uploads folder replaced by a file, so an import
 *    fails with a 500 and a logged stack).
 *
 * Then every line of output and every text file in the data folder other than
 * the database and the control-secret file (each secret's own home) is
 * searched for each secret as is, in base64, base64url and hex, and for the
 * random bytes inside a token in those forms. The one allowed appearance: the
 * startup token in the two banner lines main.ts prints for the person who
 * started the gateway ("Startup token …" and the ready-to-run curl line).
 *
 * The same run also checks that the database holds no raw token (only
 * hashes), and the modes of the files that hold secrets after a real start.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, type CallReply } from '../testing/http-call.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = process.execPath;

interface Secret {
  what: string;
  value: string;
}

/** The forms a secret could leak in: as is, base64/base64url/hex of its text, and of the random bytes of a token. */
function forms(value: string): string[] {
  const out = new Set<string>([value]);
  const text = Buffer.from(value, 'utf8');
  out.add(text.toString('base64').replace(/=+$/, ''));
  out.add(text.toString('base64url'));
  out.add(text.toString('hex'));
  const random = /^(?:mas_|whsec_)?([A-Za-z0-9_-]{40,})$/.exec(value)?.[1];
  if (random !== undefined) {
    const bytes = Buffer.from(random, 'base64url');
    out.add(bytes.toString('hex'));
    out.add(bytes.toString('base64').replace(/=+$/, ''));
    if (random !== value) out.add(random);
  }
  // Forms shorter than 16 characters would match by chance; every secret here is longer.
  return [...out].filter((f) => f.length >= 16);
}

function findLeaks(where: string, text: string, secrets: readonly Secret[]): string[] {
  const leaks: string[] = [];
  const lower = text.toLowerCase();
  for (const s of secrets) {
    for (const f of forms(s.value)) {
      // hex is matched case-insensitively; the other forms are case-sensitive.
      const hit = /^[0-9a-f]+$/.test(f) ? lower.includes(f) : text.includes(f);
      if (hit) leaks.push(`${s.what} found in ${where} (form ${f.slice(0, 12)}…)`);
    }
  }
  return leaks;
}

/** Every regular file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
}

async function until<T>(what: string, probe: () => Promise<T | null>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A raw request with headers exactly as given (call() would add its own). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method,
        agent: false,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('secrets in a real run', { timeout: 120_000 }, () => {
  let dataDir: string;
  let child: ChildProcess;
  let output = '';
  let receiver: Server;
  const received: string[] = [];
  const secrets: Secret[] = [];
  /** Error bodies the API sent back; a secret the client did not send itself must not be in one. */
  const errorBodies: string[] = [];
  let startupToken = '';
  const modesAfterStart: Record<string, string> = {};
  let exitCode: number | null = null;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mas-secrets-'));
    // A receiver that fails every delivery: 500 on /fail, a dropped connection on /drop.
    receiver = createServer((req, res) => {
      received.push(req.url ?? '');
      req.resume();
      if ((req.url ?? '').startsWith('/drop')) req.socket.destroy();
      else res.writeHead(500, { 'content-type': 'text/plain' }).end('handler failed');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const target = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    child = spawn(NODE, ['server/main.ts', `--data-dir=${dataDir}`, '--port', '0', '--control', '--control-port', '0', '--enable-api'], {
      cwd: ROOT,
      env: { ...process.env, MAS_CONTROL_SECRET: '', MAS_HOST: '', MAS_PORT: '', MAS_LOG_LEVEL: 'trace', MAS_ACCESS_LOG: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const exited = new Promise<void>((resolve) =>
      child.on('exit', (code) => {
        exitCode = code;
        resolve();
      }),
    );

    const banner = await until('the start banner', async () => (/Press Ctrl\+C to stop\./.test(output) ? output : null));
    const api = /Automation API\s+(http:\/\/\S+)/.exec(banner)?.[1] ?? '';
    const control = /Control API\s+(http:\/\/\S+)/.exec(banner)?.[1] ?? '';
    startupToken = /Startup token\s+(\S+)/.exec(banner)?.[1] ?? '';
    assert.ok(api !== '' && control !== '' && startupToken !== '', banner);
    const controlSecret = readFileSync(join(dataDir, 'control-secret'), 'utf8').trim();
    secrets.push({ what: 'the startup token', value: startupToken }, { what: 'the control secret', value: controlSecret });

    for (const f of ['', 'gateway.sqlite', 'gateway.sqlite-wal', 'gateway.sqlite-shm', 'control-secret']) {
      const path = join(dataDir, f);
      if (existsSync(path)) modesAfterStart[f === '' ? 'data folder' : f] = mode(path);
    }

    const ctl = (method: string, path: string, body?: unknown) =>
      call(`${control}${path}`, { method, bearer: controlSecret, ...(body === undefined ? {} : { body }) });
    const as = (bearer: string) => (method: string, path: string, body?: unknown) =>
      call(`${api}${path}`, { method, bearer, ...(body === undefined ? {} : { body }) });
    const keepError = (r: CallReply) => {
      if (r.status >= 400) errorBodies.push(JSON.stringify(r.body));
      return r;
    };
    const admin = as(startupToken);
    assert.equal((await admin('GET', '/v1/whoami')).status, 200);

    // A token minted through the Control API, used, then revoked and presented again.
    const minted = await ctl('POST', '/control/tokens', { name: 'ci', scopes: ['read'] });
    assert.equal(minted.status, 201);
    const mintedToken = minted.body.token as string;
    secrets.push({ what: 'a control-minted token', value: mintedToken });
    assert.equal((await as(mintedToken)('GET', '/v1/whoami')).status, 200);
    assert.equal(keepError(await as(mintedToken)('DELETE', '/v1/meetings/mtg_missing')).status, 403);
    assert.equal((await ctl('DELETE', `/control/tokens/${minted.body.token_id as string}`)).status, 204);
    assert.equal(keepError(await as(mintedToken)('GET', '/v1/whoami')).status, 401);

    // Pairing: request, approve, collect the token on the first poll, use it where its scopes fall short.
    const pair = await call(`${api}/v1/pair/request`, { method: 'POST', body: { client_name: 'phone', scopes: ['read', 'write'] } });
    assert.equal(pair.status, 202);
    assert.equal((await ctl('POST', `/control/pairings/${pair.body.pairing_id as string}/approve`, {})).status, 200);
    const poll = await call(`${api}/v1/pair/${pair.body.pairing_id as string}`);
    const pairedToken = poll.body.token as string;
    assert.match(pairedToken, /^mas_/);
    secrets.push({ what: 'a paired token', value: pairedToken });
    assert.equal(keepError(await as(pairedToken)('DELETE', '/v1/meetings/mtg_missing')).status, 403);
    assert.equal(keepError(await as(pairedToken)('POST', '/v1/recording/start', { consent_attested: true })).status, 403);

    // Webhooks: on, the receiver allowlisted, restart so the allowlist applies.
    assert.equal((await ctl('PATCH', '/control/settings', { webhooks_enabled: true, local_webhook_targets: [target] })).status, 200);
    assert.equal((await ctl('POST', '/control/restart')).status, 204);
    await until('the API after restart', async () => ((await call(`${api}/health`)).status === 200 ? true : null));

    const querySecret = 'qs-0f1e2d3c4b5a69788796a5b4c3d2e1f0';
    const chosenSecret = 'whs-chosen-7c1d9e2f4a6b8c0d1e3f5a7b';
    secrets.push(
      { what: 'a secret in a webhook URL query', value: querySecret },
      { what: 'a client-chosen signing secret', value: chosenSecret },
    );
    const hookA = await admin('POST', '/v1/webhooks', {
      url: `http://${target}/fail?key=${querySecret}`,
      events: ['job.completed'],
      secret: chosenSecret,
    });
    assert.equal(hookA.status, 201, JSON.stringify(hookA.body));
    const hookB = await admin('POST', '/v1/webhooks', {
      url: `http://${target}/drop?key=${querySecret}`,
      events: ['job.failed'],
      delivery_mode: 'at-most-once',
    });
    assert.equal(hookB.status, 201, JSON.stringify(hookB.body));
    secrets.push({ what: 'a generated signing secret', value: hookB.body.hmac_secret as string });
    const userinfoPassword = 'pw-a8b7c6d5e4f3a2b1c0d9';
    secrets.push({ what: 'a password in a webhook URL', value: userinfoPassword });
    assert.equal(
      keepError(await admin('POST', '/v1/webhooks', { url: `http://user:${userinfoPassword}@${target}/x`, events: ['job.completed'] }))
        .status,
      400,
    );
    assert.equal(
      keepError(await admin('POST', '/v1/webhooks', { url: `http://user:${userinfoPassword}@example.com/x`, events: ['job.completed'] }))
        .status,
      400,
    );
    for (const hook of [hookA, hookB]) {
      assert.equal((await ctl('POST', `/control/webhooks/${hook.body.id as string}/approval`, { state: 'allowed' })).status, 200);
      assert.equal((await admin('POST', `/v1/webhooks/${hook.body.id as string}/test`)).status, 202);
    }
    await until('both test deliveries at the receiver', async () => (received.length >= 2 ? true : null));
    await until('the failed deliveries in the log', async () => {
      const a = await admin('GET', `/v1/webhooks/${hookA.body.id as string}/deliveries`);
      const b = await admin('GET', `/v1/webhooks/${hookB.body.id as string}/deliveries`);
      return JSON.stringify(a.body).includes('handler_error') && JSON.stringify(b.body).includes('delivery_failed') ? true : null;
    });

    // Tokens presented in failing requests, in every wrong way a client might.
    const bogus = `mas_${Buffer.alloc(32, 7).toString('base64url')}`;
    secrets.push({ what: 'an unknown token a client sent', value: bogus });
    for (const t of [bogus, mintedToken]) {
      assert.equal(await raw(`${api}/v1/whoami`, 'GET', { authorization: `Bearer ${t}` }), 401);
      assert.equal(await raw(`${api}/v1/whoami`, 'GET', { authorization: `Token ${t}` }), 401);
      assert.equal(await raw(`${api}/v1/whoami`, 'GET', { authorization: `Bearer ${t} ${t}` }), 401);
      assert.equal(await raw(`${api}/v1/whoami?access_token=${t}`, 'GET', {}), 401);
      assert.equal(await raw(`${api}/v1/meetings/${t}`, 'GET', { authorization: `Bearer ${startupToken}` }), 404);
      assert.equal(await raw(`${control}/control`, 'GET', { authorization: `Bearer ${t}` }), 401);
    }
    assert.equal(
      await raw(
        `${api}/v1/webhooks`,
        'POST',
        { authorization: `Bearer ${startupToken}`, 'content-type': 'application/json' },
        `{"url": "${pairedToken}`,
      ),
      400,
    );
    assert.equal(await raw(`${api}/v1/search?q=`, 'GET', { authorization: `Bearer ${pairedToken}` }), 400);
    assert.equal(
      await raw(
        `${control}/control/settings`,
        'PATCH',
        { authorization: `Bearer ${controlSecret}`, 'content-type': 'application/json' },
        '{"license": 5}',
      ),
      422,
    );
    assert.equal(await raw(`${api}/v1/whoami`, 'GET', { authorization: `Bearer ${startupToken}`, host: 'evil.example' }), 400);
    assert.equal(await raw(`${api}/v1/whoami`, 'GET', { authorization: `Bearer ${startupToken}`, origin: 'http://evil.example' }), 403);

    // An internal failure: the uploads folder becomes a file, so an import cannot be written.
    const uploads = join(dataDir, 'uploads');
    rmSync(uploads, { recursive: true, force: true });
    writeFileSync(uploads, '');
    const failed = await raw(
      `${api}/v1/jobs/import?filename=a.wav`,
      'POST',
      { authorization: `Bearer ${startupToken}`, 'content-type': 'application/octet-stream' },
      'RIFF....WAVE',
    );
    assert.equal(failed, 500, 'the import fails on the service side');
    // The child writes its log line around the time it answers; the pipe may deliver it just after the reply.
    const logged = /"level":"error".*"method":"POST","route":"\/v1\/jobs\/import".*"msg":"request failed"/;
    for (let i = 0; i < 200 && !logged.test(output); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(output, logged, 'and the failure was logged');
    assert.match(output, /"route":"\/v1\/whoami","status":401,.*"msg":"request"/, 'the access log was on');
    rmSync(uploads, { force: true });

    child.kill('SIGTERM');
    await exited;
  });

  after(async () => {
    if (exitCode === null && child !== undefined) child.kill('SIGKILL');
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the output holds no secret, the banner’s startup token excepted', () => {
    assert.equal(exitCode, 0, output);
    const lines = output.split('\n');
    // The one deliberate print: the banner's two lines for the person who started the gateway, once each.
    const allowed = [
      `  Startup token    ${startupToken}`,
      new RegExp(`^  curl -H "Authorization: Bearer ${startupToken}" http://\\S+/v1/whoami$`),
    ];
    const kept = lines.filter((line, i) => {
      if (i < 30 && line === allowed[0]) return false;
      if (i < 30 && (allowed[1] as RegExp).test(line)) return false;
      return true;
    });
    assert.equal(lines.length - kept.length, 2, 'the banner printed the startup token on its two lines');
    assert.deepEqual(findLeaks('the output', kept.join('\n'), secrets), []);
    process.stdout.write(
      `# ${secrets.length} secrets, ${secrets.reduce((n, s) => n + forms(s.value).length, 0)} forms, ${lines.length} output lines scanned\n`,
    );
  });

  test('no text file in the data folder holds a secret (the database and control-secret are their homes)', () => {
    const homes = new Set(['gateway.sqlite', 'gateway.sqlite-wal', 'gateway.sqlite-shm', 'control-secret']);
    const files = filesUnder(dataDir).filter((f) => !homes.has(relative(dataDir, f)));
    const leaks = files.flatMap((f) => findLeaks(relative(dataDir, f), readFileSync(f).toString('latin1'), secrets));
    assert.deepEqual(leaks, []);
    process.stdout.write(`# ${files.length} data-folder files scanned: ${files.map((f) => relative(dataDir, f)).join(', ') || 'none'}\n`);
  });

  test('error answers never echo a secret the client did not put in that very request', () => {
    // A token presented in a refused request is the client's own; what must never appear is any other secret.
    const others = secrets.filter((s) => !/token/.test(s.what) && s.what !== 'a password in a webhook URL');
    assert.deepEqual(findLeaks('an error answer', errorBodies.join('\n'), others), []);
    assert.ok(!errorBodies.some((b) => b.includes('pw-a8b7c6d5e4f3a2b1c0d9')), 'the refused URL’s password is not echoed');
  });

  test('the database holds token hashes, never a raw token', () => {
    const bytes = Buffer.concat(
      ['gateway.sqlite', 'gateway.sqlite-wal'].filter((f) => existsSync(join(dataDir, f))).map((f) => readFileSync(join(dataDir, f))),
    ).toString('latin1');
    assert.ok(bytes.length > 0);
    const tokens = secrets.filter((s) => /token/.test(s.what));
    assert.equal(tokens.length, 4);
    assert.deepEqual(findLeaks('the database', bytes, tokens), []);
    assert.ok(!bytes.includes('mas_'), 'no token prefix at all in the database');
  });

  test('files holding secrets were owner-only right after start', () => {
    assert.deepEqual(modesAfterStart, {
      'data folder': '0700',
      'gateway.sqlite': '0600',
      'gateway.sqlite-wal': '0600',
      'gateway.sqlite-shm': '0600',
      'control-secret': '0600',
    });
  });
});
