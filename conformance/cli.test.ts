import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { LocalServer } from './harness/testing.ts';
import { localServer } from './harness/testing.ts';
import { nodeTooOld } from './cli.ts';

const CLI = join(import.meta.dirname, 'cli.ts');

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, CI: 'true', MAS_BASE_URL: '', MAS_CONTROL_URL: '', MAS_CONTROL_SECRET: '', MAS_TOKEN: '', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

let target: LocalServer;
before(async () => {
  // A target that serves a health body and nothing else.
  target = await localServer((req, res) => {
    res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(
      req.url === '/health'
        ? '{"status":"ok","version":"1","webhooks":{"events_dropped":0,"deliveries_failed":0},"license":{"fail_open_total":0}}'
        : '{"error":{"code":"not_found","message":"no"}}',
    );
  });
});
after(() => target.close());

test('--help and --list need no target and exit 0', async () => {
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /--base-url URL/);
  const list = await run(['--list', '--only', 'health/']);
  assert.equal(list.code, 0);
  assert.match(list.out, /health\/no-auth/);
  assert.match(list.out, /checks over \d+ clauses/);
  assert.doesNotMatch(list.out, /meetings\//);
  const version = await run(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.out, /^mas-conformance \d+\.\d+\.\d+\n$/);
});

test('a reader that closes the pipe early (--list | head) ends the run quietly: exit 0, no EPIPE trace', async () => {
  const child = spawn(process.execPath, [CLI, '--list'], { env: { ...process.env, CI: 'true' } });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // Like `head -1`: read the first chunk, then close our end of the pipe.
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, err);
  assert.doesNotMatch(err, /EPIPE/);
});

test('--only/--skip take the section headings of API.md, in any case; --list says what each selector selected', async () => {
  const list = await run(['--list', '--only', 'endpoints > JOBS > import', '--skip', 'Job states']);
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /^jobs\/import-validation /m);
  assert.doesNotMatch(list.out, /^meetings\//m);
  assert.match(list.out, /^--only "endpoints > JOBS > import": \d+ checks \(.*section "Endpoints > Jobs > Import"\)$/m);
  assert.match(list.out, /^--skip "Job states": \d+ checks \(.*section "States and transitions > Job states"\)$/m);
  const comma = await run(['--list', '--only', 'Health, identity, search, devices, models']);
  assert.equal(comma.code, 0, comma.err);
  assert.match(comma.out, /^search\//m, 'a heading holding commas is one selector');
});

test('a Node older than the suite needs is named, not silently ignored', () => {
  assert.equal(nodeTooOld('v20.20.2'), true);
  assert.equal(nodeTooOld('v24.1.0'), true);
  assert.equal(nodeTooOld('v24.2.0'), false);
  assert.equal(nodeTooOld('v25.0.0'), false);
});

test('--help fits a screen with the common options; --help-all has every option', async () => {
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  const lines = help.out.trimEnd().split('\n');
  assert.ok(lines.length <= 24, `--help is ${lines.length} lines:\n${help.out}`);
  for (const o of ['--base-url', '--control-url', '--token', '--only', '--skip', '--list', '--json', '--junit', '--reporter', '--help-all'])
    assert.match(help.out, new RegExp(`${o}\\b`), o);
  const all = await run(['--help-all']);
  assert.equal(all.code, 0);
  assert.ok(all.out.split('\n').length > 24);
  for (const o of [
    '--control-capabilities',
    '--recorder-alone',
    '--lan-host',
    '--receiver-host',
    '--replay',
    '--no-reset',
    '--ca',
    '--insecure',
  ])
    assert.match(all.out, new RegExp(`${o}\\b`), o);
  const merge = await run(['merge', '--help']);
  assert.equal(merge.code, 0);
  assert.match(merge.out, /merge DIR/);
});

test('bad usage exits 2 with one line and the hint', async () => {
  for (const args of [['--bogus'], ['--base-url', 'ftp://x'], [], ['merge']]) {
    const r = await run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, /^conformance: [^\n]+\nrun with --help for usage: node conformance\/cli\.ts --help\n$/, r.err);
  }
});

test('every kind of bad usage exits 2', async () => {
  for (const args of [
    ['--bogus'],
    ['--base-url', 'ftp://x'],
    ['--seed', 'abc', '--base-url', 'http://x'],
    ['--shard', '3/2', '--list'],
    ['--base-url', 'http://x', '--control-url', 'http://y'],
    [],
  ]) {
    const r = await run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, /--help for usage/);
  }
});

test('a run with failures exits 1 and writes every report; merge joins them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conf-cli-'));
  const r = await run([
    `--base-url=${target.url}`,
    '--only',
    'health/,versioning/version-strings',
    '--seed',
    '3',
    `--json=${join(dir, 'json')}`,
    `--junit=${join(dir, 'j.xml')}`,
    `--html=${join(dir, 'r.html')}`,
    `--md=${join(dir, 'r.md')}`,
  ]);
  assert.equal(r.code, 0, `no failure expected: health passes, the rest is skipped\n${r.out}${r.err}`);
  assert.match(r.out, /PASS +health\/no-auth/);
  assert.match(r.out, /SKIPPED +health\/always-200/);
  const f = await run([
    `--base-url=${target.url}`,
    '--only',
    'meetings/list-shape',
    '--token',
    't0k3n',
    '--no-retry',
    `--json=${join(dir, 'json2')}`,
  ]);
  assert.equal(f.code, 1, f.out + f.err);
  assert.match(f.out, /FAIL +meetings\/list-shape/);
  assert.match(f.out, /Clause: meetings.list.shape/);
  assert.doesNotMatch(
    readFileSync(join(dir, 'json2', 'checks', 'meetings', 'list-shape.json'), 'utf8'),
    /t0k3n/,
    'the --token never reaches a report',
  );
  for (const file of ['json/index.json', 'j.xml', 'r.html', 'r.md']) assert.ok(existsSync(join(dir, file)), file);
  const m = await run(['merge', join(dir, 'json'), join(dir, 'json2'), `--json=${join(dir, 'merged')}`, `--md=${join(dir, 'merged.md')}`]);
  assert.equal(m.code, 1, m.out + m.err);
  const index = JSON.parse(readFileSync(join(dir, 'merged', 'index.json'), 'utf8')) as { checks: unknown[] };
  assert.ok(index.checks.length >= 6);
});

test('an unreachable Control API stops the run with exit 3 (the run could not start)', async () => {
  const r = await run([`--base-url=${target.url}`, '--control-url', 'http://127.0.0.1:9', '--control-secret', 's', '--only', 'health/']);
  assert.equal(r.code, 3);
  assert.match(r.err, /Control API at http:\/\/127.0.0.1:9 cannot be used/);
});
