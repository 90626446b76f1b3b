/**
 * Floors under what a target without a Control API gets checked: runs the
 * suite against spawned reference gateways with one full-scope token, then
 * with the tokens file (coverage-ladder.ts), and asserts the clauses each run
 * exercised stay at or above the counts published in conformance/README.md,
 * so a change that makes checks skip without a Control API cannot pass
 * unnoticed. Slow (both runs import real speech for their meetings and jobs:
 * about 5 + 8 minutes on 2 busy cores), so it is not among the *.test.ts files of
 * `npm run test:unit`; `npm run test:conformance-floors` runs it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { measure } from './coverage-ladder.ts';

/**
 * Clauses exercised against the reference (README "Without a Control API": 163 and 225, with the
 * ladder's microphone, docs/decisions/077), less a small margin for checks whose premise is a real job
 * still running when asked (docs/decisions/054 and 059: a real import or diarization that ends first),
 * which a busy machine can make SKIPPED.
 */
export const FLOORS = { token: 157, 'tokens-file': 217 } as const;

test('without a Control API the reference still has its floors of clauses exercised', { timeout: 30 * 60_000 }, async () => {
  const rows = await measure(['token', 'tokens-file']);
  for (const row of rows) {
    const floor = FLOORS[row.rung as keyof typeof FLOORS];
    assert.ok(row.exercised >= floor, `${row.rung}: ${row.exercised} of ${row.checkable} clauses exercised, below the floor ${floor}`);
    assert.equal(row.outcomes.FAIL ?? 0, 0, `${row.rung}: no FAIL against the reference`);
    assert.equal(row.outcomes.ERROR ?? 0, 0, `${row.rung}: no ERROR against the reference`);
  }
  const [token, file] = rows;
  assert.ok(file!.exercised > token!.exercised, 'the tokens file unlocks more than the single token');
});
