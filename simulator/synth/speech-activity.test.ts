import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SPEECH_THRESHOLD, speechSegments, speechSpan } from './speech-activity.ts';

const RATE = 16_000;

/** Silence with loud square-wave bursts at the given [start, end) sample ranges. */
function bursts(length: number, ranges: [number, number][]): Int16Array {
  const out = new Int16Array(length);
  for (const [from, to] of ranges) for (let i = from; i < to; i++) out[i] = i % 2 === 0 ? 8000 : -8000;
  return out;
}

describe('speechSpan', () => {
  it('finds the first and last loud sample exactly', () => {
    const span = speechSpan(bursts(RATE, [[4003, 9001]]), RATE);
    assert.deepEqual(span, { start: 4003, end: 9001 });
  });

  it('ignores sound below the threshold', () => {
    const quiet = new Int16Array(RATE).fill(SPEECH_THRESHOLD - 1);
    assert.equal(speechSpan(quiet, RATE), undefined);
  });

  it('returns undefined for silence', () => {
    assert.equal(speechSpan(new Int16Array(RATE), RATE), undefined);
  });
});

describe('speechSegments', () => {
  const signal = bursts(RATE, [
    [1000, 3000],
    [3400, 5000],
    [9000, 12000],
  ]); // gaps of 25 ms and 250 ms

  it('bridges gaps shorter than the minimum', () => {
    assert.deepEqual(speechSegments(signal, RATE, 0.1), [
      { start: 1000, end: 5000 },
      { start: 9000, end: 12000 },
    ]);
  });

  it('splits at gaps at least as long as the minimum', () => {
    assert.equal(speechSegments(signal, RATE, 0.02).length, 3);
  });
});
