// For the formats' tests only: how a refused hypothesis is asserted, the same for every format.
import assert from 'node:assert/strict';
import { HypothesisSyntaxError } from './hypothesis.ts';

/** Asserts that `fn` throws a HypothesisSyntaxError at `where` whose message matches `expected`. */
export function refuses(fn: () => unknown, where: string, expected: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof HypothesisSyntaxError, String(error));
    assert.equal(error.where, where);
    assert.match(error.message, expected);
    return true;
  });
}
