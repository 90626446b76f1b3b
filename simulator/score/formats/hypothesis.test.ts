import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HypothesisSyntaxError, numberAt, numberedLines, spreadWords } from './hypothesis.ts';

describe('hypothesis helpers', () => {
  it('numberAt takes seconds ≥ 0 and names the line otherwise', () => {
    assert.equal(numberAt('1.25', 3, 'x'), 1.25);
    for (const bad of ['', '-1', 'NaN', undefined]) {
      assert.throws(
        () => numberAt(bad, 3, 'the start'),
        (e: unknown) => e instanceof HypothesisSyntaxError && e.where === 'line 3',
      );
    }
  });

  it('numberedLines drops a byte-order mark and CR line ends', () => {
    assert.deepEqual(numberedLines('\uFEFFa\r\nb'), [
      { line: 1, text: 'a' },
      { line: 2, text: 'b' },
    ]);
  });

  it('spreadWords shares a segment evenly', () => {
    assert.deepEqual(
      spreadWords(' a  b ', 1, 2, 'S1').map((w) => [w.text, w.start, w.end, w.speaker]),
      [
        ['a', 1, 1.5, 'S1'],
        ['b', 1.5, 2, 'S1'],
      ],
    );
  });
});
