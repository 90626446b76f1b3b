import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CheckResult } from '../runner/result.ts';
import { judge, readExpectedFailures } from './expected-failures.ts';

const result = (id: string, outcome: CheckResult['outcome'], clauses: string[], failed: string[] = []): CheckResult =>
  ({ id, outcome, clauses, failures: failed.map((clause) => ({ clause, what: 'x' })) }) as unknown as CheckResult;

const known = { checks: new Set(['a/one', 'a/two', 'b/three']), clauses: new Set(['a.x', 'a.y', 'b.z']) };

function fileOf(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'conf-expected-')), 'expected.txt');
  writeFileSync(path, text);
  return path;
}

test('an empty file tolerates nothing: every FAIL and ERROR is unexpected', () => {
  const v = judge(readExpectedFailures(fileOf('# nothing yet\n\n'), known), [
    result('a/one', 'FAIL', ['a.x'], ['a.x']),
    result('a/two', 'ERROR', ['a.y']),
    result('b/three', 'PASS', ['b.z']),
  ]);
  assert.deepEqual(
    v.unexpected.map((r) => r.id),
    ['a/one', 'a/two'],
  );
  assert.deepEqual(v.stale, []);
});

test('a clause entry covers a check whose failures all name listed clauses, and goes stale once they pass', () => {
  const expected = readExpectedFailures(fileOf('a.x  not yet\nb.z\n'), known);
  const v = judge(expected, [
    result('a/one', 'FAIL', ['a.x', 'a.y'], ['a.x']),
    result('a/two', 'FAIL', ['a.x', 'a.y'], ['a.x', 'a.y']),
    result('b/three', 'PASS', ['b.z']),
  ]);
  assert.deepEqual(
    v.expected.map((x) => [x.result.id, x.entry.line, x.entry.reason]),
    [['a/one', 1, 'not yet']],
  );
  assert.deepEqual(
    v.unexpected.map((r) => r.id),
    ['a/two'],
  );
  assert.deepEqual(
    v.stale.map((e) => [e.id, e.line]),
    [['b.z', 2]],
  );
});

test('an entry whose checks were skipped or not selected is not stale', () => {
  const expected = readExpectedFailures(fileOf('a/one\nb/three\n'), known);
  const v = judge(expected, [result('a/one', 'SKIPPED', ['a.x'])]);
  assert.deepEqual(v.stale, []);
});

test('a line naming no check or clause, or one listed twice, is a usage error naming the line', () => {
  assert.throws(() => readExpectedFailures(fileOf('a/one\nnope\n'), known), /expected\.txt:2: "nope" is neither/);
  assert.throws(() => readExpectedFailures(fileOf('a/one\na/one again\n'), known), /:2: a\/one is listed already on line 1/);
  assert.throws(() => readExpectedFailures(join(tmpdir(), 'no-such-dir-x', 'f.txt'), known), /cannot read/);
});
