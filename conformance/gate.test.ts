/**
 * The gate options through the command line, with their exit codes: an empty
 * selection, --fail-on, --min-coverage, --wait-for-target, the config file,
 * --reporter github, the User-Agent, --ca/--insecure for an HTTPS target, and
 * hints that name the command the suite was started with.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort } from './reference.ts';
import type { LocalServer } from './harness/testing.ts';
import { localServer } from './harness/testing.ts';
import { invocation } from './gate.ts';

const CLI = join(import.meta.dirname, 'cli.ts');
const HEALTH = '{"status":"ok","version":"1","webhooks":{"events_dropped":0,"deliveries_failed":0},"license":{"fail_open_total":0}}';

function run(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? tmpdir(),
      env: {
        ...process.env,
        CI: 'true',
        MAS_BASE_URL: '',
        MAS_CONTROL_URL: '',
        MAS_CONTROL_SECRET: '',
        MAS_TOKEN: '',
        npm_lifecycle_event: '',
        ...options.env,
      },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const agents: string[] = [];
function serve(req: IncomingMessage, res: ServerResponse): void {
  agents.push(String(req.headers['user-agent']));
  res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
  res.end(req.url === '/health' ? HEALTH : '{"error":{"code":"not_found","message":"no"}}');
}

let target: LocalServer;
before(async () => {
  target = await localServer(serve);
});
after(() => target.close());

/** health/no-auth passes against this target; meetings/delete-cascade is SKIPPED (no token). */
const SOME = ['--only', 'health/no-auth,meetings/delete-cascade', '--seed', '1', '--no-retry'];

test('--only/--skip that select no check: exit 2 with the reason, for a run and for --list', async () => {
  for (const args of [
    [`--base-url=${target.url}`, '--only', 'no-such-area/'],
    ['--list', '--only', 'nothing.'],
    [`--base-url=${target.url}`, '--only', 'health/', '--skip', 'health/'],
  ]) {
    const r = await run(args);
    assert.equal(r.code, 2, `${args.join(' ')}\n${r.out}${r.err}`);
    assert.match(r.err, /selects no check/);
  }
});

test('--fail-on: a SKIPPED check fails the run only when asked; bad values are usage errors', async () => {
  const plain = await run([`--base-url=${target.url}`, ...SOME]);
  assert.equal(plain.code, 0, plain.out + plain.err);
  assert.match(plain.out, /SKIPPED +meetings\/delete-cascade/);
  const gated = await run([`--base-url=${target.url}`, ...SOME, '--fail-on', 'skipped,flaky']);
  assert.equal(gated.code, 1, gated.out);
  assert.match(gated.out, /Gate: --fail-on skipped: 1 check SKIPPED \(meetings\/delete-cascade\)/);
  const informational = await run([`--base-url=${target.url}`, ...SOME, '--fail-on', 'informational,non_strict']);
  assert.equal(informational.code, 0, informational.out);
  const bad = await run([`--base-url=${target.url}`, ...SOME, '--fail-on', 'skiped']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--fail-on takes skipped, flaky, non_strict, informational/);
});

test('--min-coverage: below it exits 1 and says how much was exercised', async () => {
  const low = await run([`--base-url=${target.url}`, ...SOME, '--min-coverage', '50']);
  assert.equal(low.code, 1, low.out);
  assert.match(low.out, /Gate: --min-coverage 50%: \d+ of \d+ checkable clauses exercised \(\d+\.\d%\)/);
  assert.equal((await run([`--base-url=${target.url}`, ...SOME, '--min-coverage', '0'])).code, 0);
  assert.equal((await run([`--base-url=${target.url}`, ...SOME, '--min-coverage', '101'])).code, 2);
});

test('--wait-for-target: a target that never answers is exit 3 (not reached); one that comes up in time runs', async () => {
  const port = await freePort();
  const never = await run(['--base-url', `http://127.0.0.1:${port}`, ...SOME, '--wait-for-target', '1']);
  assert.equal(never.code, 3, never.out + never.err);
  assert.match(never.err, /did not answer GET \/health within 1 s/);
  const late = await freePort();
  const pending = run(['--base-url', `http://127.0.0.1:${late}`, ...SOME, '--wait-for-target', '30']);
  // Comes up once the suite is already polling (it is not a timing bound: the wait allows 30 s).
  await new Promise((r) => setTimeout(r, 500));
  const server = (await import('node:http')).createServer(serve);
  await new Promise<void>((r) => server.listen(late, '127.0.0.1', () => r()));
  try {
    const r = await pending;
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /PASS +health\/no-auth/);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a config file holds any option; flags win; unknown keys and wrong types are usage errors', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conf-config-'));
  writeFileSync(
    join(dir, 'mas-conformance.config.json'),
    JSON.stringify({
      baseUrl: target.url,
      only: ['health/no-auth', 'meetings/delete-cascade'],
      'fail-on': 'skipped',
      seed: 1,
      'no-retry': true,
    }),
  );
  const fromFile = await run([], { cwd: dir });
  assert.equal(fromFile.code, 1, fromFile.out + fromFile.err);
  assert.match(fromFile.out, /Gate: --fail-on skipped/);
  const flagsWin = await run(['--only', 'health/no-auth'], { cwd: dir });
  assert.equal(flagsWin.code, 0, flagsWin.out + flagsWin.err);
  assert.doesNotMatch(flagsWin.out, /meetings\/delete-cascade/);
  const other = join(dir, 'other.json');
  writeFileSync(other, JSON.stringify({ 'base-url': target.url, only: 'health/no-auth' }));
  assert.equal((await run([`--config=${other}`])).code, 0);
  writeFileSync(other, JSON.stringify({ baseURL: target.url }));
  const unknown = await run([`--config=${other}`]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown option "baseURL"/);
  writeFileSync(other, JSON.stringify({ slow: 'yes' }));
  assert.equal((await run([`--config=${other}`, '--list'])).code, 2);
});

test('--reporter github prints workflow annotations; every request names the suite in its User-Agent', async () => {
  agents.length = 0;
  const r = await run([`--base-url=${target.url}`, ...SOME, '--reporter', 'github']);
  assert.equal(r.code, 0, r.out + r.err);
  // Every SKIP in one notice; no file= since the run's directory holds no check file.
  assert.match(r.out, /^::notice title=\d+ checks? SKIPPED::.*%0A- needs[^%]*\(\d+\): [^%]*meetings\/delete-cascade/m);
  assert.doesNotMatch(r.out, /file=/);
  assert.match(r.out, /^::notice title=clause coverage::\d+ of \d+ checkable clauses exercised/m);
  assert.ok(agents.length > 0);
  for (const a of agents) assert.match(a, /^mas-conformance\/\d+\.\d+\.\d+$/);
  assert.equal((await run([`--base-url=${target.url}`, ...SOME, '--reporter', 'tap'])).code, 2);
});

test('an HTTPS target with a self-signed certificate: refused without --ca/--insecure, checked with either', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conf-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, serve);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const refused = await run([`--base-url=${url}`, '--only', 'health/no-auth', '--no-retry']);
    // A certificate the suite does not trust: the target cannot be reached (exit 3), and the log says why.
    assert.equal(refused.code, 3, refused.out);
    assert.match(refused.err, /the target could not be reached: .*(CERT|certificate)/i, refused.err);
    const ca = await run([`--base-url=${url}`, '--only', 'health/no-auth', '--no-retry', `--ca=${cert}`]);
    assert.equal(ca.code, 0, ca.out + ca.err);
    const insecure = await run([`--base-url=${url}`, '--only', 'health/no-auth', '--no-retry', '--insecure']);
    assert.equal(insecure.code, 0, insecure.out + insecure.err);
    assert.equal((await run([`--base-url=${url}`, '--only', 'health/no-auth', `--ca=${join(dir, 'missing.pem')}`])).code, 2);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('hints name the command the suite was started with', async () => {
  assert.equal(invocation({ npm_lifecycle_event: 'conformance' }, '/x/conformance/cli.ts'), 'npm run conformance --');
  assert.equal(invocation({}, '/x/node_modules/meeting-automation-service/dist/conformance/gate.js'), 'npx mas-conformance');
  assert.equal(invocation({}, '/x/conformance/gate.ts'), 'node conformance/cli.ts');
  const viaNpm = await run(['--bogus'], { env: { npm_lifecycle_event: 'conformance' } });
  assert.equal(viaNpm.code, 2);
  assert.match(viaNpm.err, /^run with --help for usage: npm run conformance -- --help$/m);
  const direct = await run([`--base-url=${target.url}`, '--only', 'health/no-auth', '--seed', '1']);
  assert.doesNotMatch(direct.out, /npm run/);
  const failed = await run([`--base-url=${target.url}`, '--only', 'meetings/list-shape', '--token', 'x', '--no-retry'], {
    env: { npm_lifecycle_event: 'conformance' },
  });
  assert.equal(failed.code, 1);
  assert.match(failed.out, /Replay one check: npm run conformance -- --base-url/);
});
