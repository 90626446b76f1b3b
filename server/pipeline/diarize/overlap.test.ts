import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../../simulator/seeded-random.ts';
import type { Block } from './blocks.ts';
import { CEPSTRA, emptyStats } from './features.ts';
import { OVERLAP_MARGIN_FRACTION, overlapSpans } from './overlap.ts';

/** Gaussian noise from a seeded generator (Box–Muller), so the statistics are the same on every run. */
function gaussian(random: { next(): number }): number {
  return Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
}

/** A block of 25 frames whose cepstra lie around `mean` with unit spread (no pitch: the margin is the cepstra's). */
function block(i: number, mean: readonly number[], random: { next(): number }): Block {
  const stats = emptyStats();
  for (let f = 0; f < 25; f++) {
    const x = mean.map((m) => m + gaussian(random));
    stats.n++;
    for (let a = 0; a < CEPSTRA; a++) {
      stats.sum[a]! += x[a]!;
      for (let b = 0; b < CEPSTRA; b++) stats.outer[a * CEPSTRA + b]! += x[a]! * x[b]!;
    }
  }
  return { start: i * 0.25, end: (i + 1) * 0.25, region: 0, stats };
}

describe('overlapSpans (a second speaker where two voices are heard at once)', () => {
  const random = seededRandom(3);
  const voiceA = Array.from({ length: CEPSTRA }, () => 0);
  const voiceB = Array.from({ length: CEPSTRA }, (_, i) => (i % 2 === 0 ? 2 : -2));
  const between = voiceA.map((a, i) => (a + voiceB[i]!) / 2);
  // A speaks blocks 0–39, then two blocks that sit between both voices (the overlap, still A's turn), then B.
  const blocks = [
    ...Array.from({ length: 40 }, (_, i) => block(i, voiceA, random)),
    block(
      40,
      between.map((v, i) => v + (i % 2 === 0 ? -0.1 : 0.1)),
      random,
    ),
    block(
      41,
      between.map((v, i) => v + (i % 2 === 0 ? -0.1 : 0.1)),
      random,
    ),
    ...Array.from({ length: 40 }, (_, i) => block(42 + i, voiceB, random)),
  ];
  const spoken = Int32Array.from(blocks, (_, i) => (i < 42 ? 0 : 1));
  const turns = [
    { label: 0, start: 0, end: 10.5 },
    { label: 1, start: 10.5, end: 20.5 },
  ];

  it('is off by default (decision 156: it did not help)', () => {
    assert.equal(OVERLAP_MARGIN_FRACTION, 0);
    assert.deepEqual(overlapSpans(blocks, spoken, turns), []);
  });

  it('gives the blocks between two voices, next to the change, the speaker across it', () => {
    const spans = overlapSpans(blocks, spoken, turns, { marginFraction: 0.3 });
    assert.deepEqual(spans, [{ label: 1, start: 10, end: 10.5 }]);
  });

  it('leaves them alone far from a change of speaker', () => {
    // The same two blocks in the middle of A's turn, 5 s from the change.
    const inside = [...blocks.slice(0, 20), ...blocks.slice(40, 42), ...blocks.slice(20, 40), ...blocks.slice(42)].map((b, i) => ({
      ...b,
      start: i * 0.25,
      end: (i + 1) * 0.25,
    }));
    assert.deepEqual(overlapSpans(inside, spoken, turns, { marginFraction: 0.3, nearChangeSeconds: 1 }), []);
  });
});
