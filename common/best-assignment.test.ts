import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bestAssignment } from './best-assignment.ts';

/** The best total by trying every injective mapping of rows to columns (or none). */
function bruteForceBest(weights: number[][], cols: number): number {
  const rows = weights.length;
  let best = 0;
  const used = new Array<boolean>(cols).fill(false);
  const walk = (r: number, total: number): void => {
    if (r === rows) {
      best = Math.max(best, total);
      return;
    }
    walk(r + 1, total); // row left out
    for (let c = 0; c < cols; c++) {
      if (used[c]) continue;
      used[c] = true;
      walk(r + 1, total + weights[r]![c]!);
      used[c] = false;
    }
  };
  walk(0, 0);
  return best;
}

function total(weights: number[][], assignment: number[]): number {
  return assignment.reduce((sum, c, r) => sum + (c >= 0 ? weights[r]![c]! : 0), 0);
}

describe('bestAssignment', () => {
  it('takes the pairing with the larger total, not the greedy first choice', () => {
    // Greedy would pair row 0 with column 0 (9) and leave row 1 with 1: total 10.
    assert.deepEqual(
      bestAssignment([
        [9, 8],
        [8, 1],
      ]),
      [1, 0],
    ); // 8 + 8 = 16
  });

  it('leaves the weakest rows out when there are more rows than columns', () => {
    assert.deepEqual(bestAssignment([[1], [5], [3]]), [-1, 0, -1]);
  });

  it('handles more columns than rows, and empty input', () => {
    assert.deepEqual(bestAssignment([[0, 0, 7]]), [2]);
    assert.deepEqual(bestAssignment([]), []);
  });

  it('is one-to-one and optimal (checked against brute force)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 6 })
          .chain((cols) =>
            fc.tuple(
              fc.constant(cols),
              fc.array(fc.array(fc.nat(50), { minLength: cols, maxLength: cols }), { minLength: 1, maxLength: 6 }),
            ),
          ),
        ([cols, weights]) => {
          const assignment = bestAssignment(weights);
          const taken = assignment.filter((c) => c >= 0);
          assert.equal(new Set(taken).size, taken.length, 'a column used twice');
          assert.ok(taken.every((c) => c < cols));
          assert.equal(total(weights, assignment), bruteForceBest(weights, cols));
        },
      ),
      { seed: 4242, numRuns: 300 },
    );
  });
});
