/**
 * The options of a team on its way to conformance, through the command line
 * against a target that serves /health and nothing else (meetings/list-shape
 * FAILs there, health/ passes): --expected-failures, --write-expected-failures,
 * --rerun-failed, --max-failures, and the exit code of an unreachable target.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { LocalServer } from '../harness/testing.ts';
import { localServer } from '../harness/testing.ts';
import { freePort } from '../reference.ts';

const CLI = join(import.meta.dirname, '..', 'cli.ts');

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, CI: 'true', MAS_BASE_URL: '', MAS_CONTROL_URL: '', MAS_CONTROL_SECRET: '', MAS_TOKEN: '' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

let target: LocalServer;
let dir: string;
before(async () => {
  target = await localServer((req, res) => {
    res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(
      req.url === '/health'
        ? '{"status":"ok","version":"1","webhooks":{"events_dropped":0,"deliveries_failed":0},"license":{"fail_open_total":0}}'
        : '{"error":{"code":"not_found","message":"no"}}',
    );
  });
  dir = mkdtempSync(join(tmpdir(), 'conf-baseline-'));
});
after(() => target.close());

const against = (): string[] => [`--base-url=${target.url}`, '--token', 't0k3n', '--no-retry', '--seed=7'];

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('a listed FAIL does not fail the run and is shown apart; an unlisted one does', async () => {
  const listed = file('listed.txt', '# known\nmeetings/list-shape   the list is not built yet\n');
  const md = join(dir, 'listed.md');
  const ok = await run([...against(), '--only', 'meetings/list-shape,health/no-auth', `--expected-failures=${listed}`, `--md=${md}`]);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(
    ok.out,
    /Expected failures \(.*listed\.txt; they do not fail the run\):\n {2}FAIL meetings\/list-shape \(line 2: the list is not built yet\)/,
  );
  assert.doesNotMatch(ok.out, /── FAIL meetings\/list-shape/, 'the failure is not detailed with those that fail the run');
  const report = readFileSync(md, 'utf8');
  assert.match(report, /^# ✅ /, 'the Markdown report is not red for a listed failure');
  assert.match(
    report,
    /## Expected failures \(`.*listed\.txt`\)[\s\S]*\| `meetings\/list-shape` \| FAIL \| 2 \| the list is not built yet \|/,
  );
  assert.doesNotMatch(report, /## Failures and remarks/);
  const byClause = file('clause.txt', 'meetings.list.shape\n');
  assert.equal((await run([...against(), '--only', 'meetings/list-shape', `--expected-failures=${byClause}`])).code, 0);
  const empty = file('empty.txt', '');
  const unlisted = await run([...against(), '--only', 'meetings/list-shape', `--expected-failures=${empty}`]);
  assert.equal(unlisted.code, 1, unlisted.out + unlisted.err);
  assert.match(unlisted.out, /── FAIL meetings\/list-shape/);
});

test('a listed check that now passes fails the run as stale, naming the line to delete', async () => {
  const stale = file('stale.txt', 'meetings/list-shape not yet\nhealth/no-auth  fixed since\n');
  const r = await run([...against(), '--only', 'meetings/list-shape,health/no-auth', `--expected-failures=${stale}`]);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /Stale expected failure: .*stale\.txt:2 health\/no-auth now passes; delete that line/);
  assert.doesNotMatch(r.out, /Stale expected failure: .*meetings\/list-shape/);
});

test('an expected-failures line naming no check or clause is bad usage', async () => {
  const typo = file('typo.txt', 'meetings/list-shap\n');
  const r = await run([...against(), '--only', 'health/', `--expected-failures=${typo}`]);
  assert.equal(r.code, 2, r.out + r.err);
  assert.match(r.err, /typo\.txt:1: "meetings\/list-shap" is neither a check id nor a clause id/);
});

test('--write-expected-failures writes the failures as a file the next run accepts', async () => {
  const out = join(dir, 'written.txt');
  const first = await run([...against(), '--only', 'meetings/list-shape,health/no-auth', `--write-expected-failures=${out}`]);
  assert.equal(first.code, 1, 'writing the baseline does not change the verdict');
  const written = readFileSync(out, 'utf8');
  assert.match(written, /^meetings\/list-shape {2}FAIL: /m);
  assert.doesNotMatch(written, /^health\//m);
  const second = await run([...against(), '--only', 'meetings/list-shape,health/no-auth', `--expected-failures=${out}`]);
  assert.equal(second.code, 0, second.out + second.err);
});

test('--rerun-failed runs exactly the checks that FAILed or ERRORed, with that run seed', async () => {
  const report = join(dir, 'first');
  const first = await run([...against(), '--seed=12345', '--only', 'meetings/list-shape,health/', `--json=${report}`]);
  assert.equal(first.code, 1);
  const again = await run([`--rerun-failed=${report}`, '--token', 't0k3n', '--no-retry']);
  assert.equal(again.code, 1, again.out + again.err);
  assert.match(again.out, /: 1 check against http:\/\/127\.0\.0\.1:\d+, seed 12345/);
  assert.match(again.out, /FAIL +meetings\/list-shape/);
  assert.doesNotMatch(again.out, /health\//);
  const clean = join(dir, 'clean');
  await run([...against(), '--only', 'health/no-auth', `--json=${clean}`]);
  const nothing = await run([`--rerun-failed=${join(clean, 'index.json')}`]);
  assert.equal(nothing.code, 0, nothing.out + nothing.err);
  assert.match(nothing.out, /nothing FAILed or ERRORed/);
});

test('--max-failures N stops after N unexpected failures and reports what ran', async () => {
  const r = await run([...against(), '--only', 'meetings/', '--max-failures', '1']);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /Stopped after 1 unexpected failures \(--max-failures\): (\d+) of (\d+) checks ran/);
  const [, ran, of] = /(\d+) of (\d+) checks ran/.exec(r.out)!;
  assert.ok(Number(ran) < Number(of), r.out);
  assert.equal((r.out.match(/^── FAIL/gm) ?? []).length, 1);
});

test('a target that cannot be reached exits 3, apart from a broken requirement (1) and bad usage (2)', async () => {
  const port = await freePort();
  const r = await run([`--base-url=http://127.0.0.1:${port}`, '--only', 'health/']);
  assert.equal(r.code, 3, r.out + r.err);
  assert.match(r.err, /the target could not be reached/);
  const waited = await run([`--base-url=http://127.0.0.1:${port}`, '--only', 'health/', '--wait-for-target', '1']);
  assert.equal(waited.code, 3);
  const help = await run(['--help']);
  assert.match(help.out, /3 the target could not be reached or the run could not start/);
});
