/**
 * The fast part of the release artifacts' tests (the whole of it, every
 * artifact against the reference gateway from an empty folder, is
 * release.slow-test.ts): the Node version line, and the bundle (esbuild,
 * seconds) built into a temporary folder and run from an empty one on this
 * Node (24) for --version and --list, and on the machine's Node 20 when there
 * is one, which must get the one refusal line and nothing else.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { checkFiles } from '../runner/registry.ts';
import { SUITE_NAME, SUITE_VERSION } from '../version.ts';
import { BUNDLE_NAME, bundle } from './build.ts';
import { MIN_NODE_MAJOR, nodeRefusal } from './node-guard.ts';

test('nodeRefusal: one line naming the supported versions below 22, none from 22 on', () => {
  const line = nodeRefusal('20.20.2');
  assert.ok(line !== null);
  assert.doesNotMatch(line, /\n/);
  assert.match(line, /needs Node\.js 22 or later \(tested on 22 and 24\); this is Node\.js v20\.20\.2/);
  assert.notEqual(nodeRefusal('v18.20.0'), null);
  assert.equal(nodeRefusal('22.0.0'), null);
  assert.equal(nodeRefusal('24.21.0'), null);
  assert.equal(nodeRefusal('v26.1.0'), null);
});

let tmp: string;
let empty: string;
let bundleFile: string;

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'mas-release-fast-'));
  await bundle(path.join(tmp, 'build', BUNDLE_NAME), 'esm');
  // Run from an empty folder holding the bundle alone: nothing of the checkout next to it.
  empty = path.join(tmp, 'empty');
  mkdirSync(empty);
  bundleFile = path.join(empty, BUNDLE_NAME);
  copyFileSync(path.join(tmp, 'build', BUNDLE_NAME), bundleFile);
});

after(() => {
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
});

function runBundle(node: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(node, [BUNDLE_NAME, ...args], { cwd: empty, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the bundle alone in an empty folder answers --version and lists every check of the sources (this Node)', () => {
  const version = runBundle(process.execPath, ['--version']);
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), `${SUITE_NAME} ${SUITE_VERSION}`);

  const list = runBundle(process.execPath, ['--list']);
  assert.equal(list.status, 0, list.stderr);
  assert.doesNotMatch(list.stdout, / BROKEN /, 'every bundled check loads');
  const listed = /^(\d+) checks over \d+ clauses$/m.exec(list.stdout);
  assert.ok(listed !== null, list.stdout);
  assert.equal(Number(listed[1]), checkFiles().length, 'every check file of the sources is in the bundle');
  assert.match(list.stdout, /^jobs\/import-no-source-path /m);
});

/** The machine's own Node when it is older than the bundle supports (the system Node 20 here), else undefined. */
function oldSystemNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    const r = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (r.status === 0 && Number(r.stdout.split('.')[0]) < MIN_NODE_MAJOR) return candidate;
  }
  return undefined;
}

test('on a Node older than 22 the bundle prints one line naming the versions it needs and exits 3 (the run could not start)', (t) => {
  const old = oldSystemNode();
  if (old === undefined) {
    t.skip('no Node older than 22 on this machine');
    return;
  }
  for (const args of [['--version'], ['--base-url=http://127.0.0.1:9', '--token=x']]) {
    const r = runBundle(old, args);
    assert.equal(r.status, 3);
    assert.equal(r.stdout, '');
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0] ?? '', /^mas-conformance needs Node\.js 22 or later \(tested on 22 and 24\); this is Node\.js v\d+\./);
  }
});
