import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { overlapShare } from './truth-formats-agreement.ts';

describe('overlapShare', () => {
  it('is the share of speech time with two or more turns running', () => {
    // Speech from 0 to 5 s; two talk from 2 to 3 s.
    assert.equal(
      overlapShare([
        { start: 0, end: 3 },
        { start: 2, end: 5 },
      ]),
      1 / 5,
    );
    assert.equal(
      overlapShare([
        { start: 0, end: 1 },
        { start: 1, end: 2 },
      ]),
      0,
    );
    assert.equal(overlapShare([]), 0);
  });
});
