import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../../simulator/seeded-random.ts';
import type { Block } from './blocks.ts';
import { indistinctPair, mixedSpeaker } from './clustering.ts';
import { CEPSTRA, emptyStats } from './features.ts';

/** Gaussian noise from a seeded generator (Box–Muller), so the statistics are the same on every run. */
function gaussian(random: { next(): number }): number {
  return Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
}

/**
 * A block of 25 frames of one synthetic voice: cepstra around `mean` with unit
 * spread, log2 F0 around `pitch` with a spread of a quarter octave.
 */
function block(i: number, mean: readonly number[], pitch: number, random: { next(): number }): Block {
  const stats = emptyStats();
  for (let f = 0; f < 25; f++) {
    const x = mean.map((m) => m + gaussian(random));
    stats.n++;
    for (let a = 0; a < CEPSTRA; a++) {
      stats.sum[a]! += x[a]!;
      for (let b = 0; b < CEPSTRA; b++) stats.outer[a * CEPSTRA + b]! += x[a]! * x[b]!;
    }
    const p = pitch + 0.25 * gaussian(random);
    stats.pn++;
    stats.psum += p;
    stats.psq += p * p;
  }
  return { start: i * 0.25, end: (i + 1) * 0.25, region: 0, stats };
}

describe('indistinctPair (the clustering test on the turns as output)', () => {
  const random = seededRandom(11);
  const voiceA = Array.from({ length: CEPSTRA }, () => 0);
  const voiceB = Array.from({ length: CEPSTRA }, (_, i) => (i % 2 === 0 ? 2 : -2));
  const blocks = [
    ...Array.from({ length: 60 }, (_, i) => block(i, voiceA, 7, random)),
    ...Array.from({ length: 60 }, (_, i) => block(60 + i, voiceB, 7.5, random)),
  ];
  const bar = 0.4;

  it('merges one voice given two labels, whatever the labels are called', () => {
    // Voice A's blocks alternate between labels 3 and 5, voice B is label 1.
    const labels = Int32Array.from(blocks, (_, i) => (i < 60 ? (i % 10 < 5 ? 3 : 5) : 1));
    const pair = indistinctPair(blocks, labels, bar);
    assert.ok(pair !== null);
    assert.deepEqual([...pair].sort(), [3, 5]);
  });

  it('keeps two voices apart, and ignores blocks no turn covers (−1)', () => {
    const labels = Int32Array.from(blocks, (_, i) => (i < 60 ? 0 : 1));
    assert.equal(indistinctPair(blocks, labels, bar), null);
    labels[10] = -1;
    labels[70] = -1;
    assert.equal(indistinctPair(blocks, labels, bar), null);
    assert.equal(indistinctPair(blocks, new Int32Array(blocks.length), bar), null, 'one speaker: no pair');
  });

  it('asks more of a pair whose pitch gives no sign of two voices (decision 092)', () => {
    // Two voices a little apart in their cepstra (split score about 0.3): with the same pitch they need the
    // bar plus PITCHLESS_SPLIT_MARGIN (0.15), with half an octave between them the bar alone.
    const near = Array.from({ length: CEPSTRA }, (_, i) => (i < 3 ? 1.33 : 0));
    const pair = (pitchB: number): Block[] => {
      const r = seededRandom(5);
      return [
        ...Array.from({ length: 60 }, (_, i) => block(i, voiceA, 7, r)),
        ...Array.from({ length: 60 }, (_, i) => block(60 + i, near, pitchB, r)),
      ];
    };
    const labels = Int32Array.from({ length: 120 }, (_, i) => (i < 60 ? 0 : 1));
    assert.equal(indistinctPair(pair(7), labels, 0.05), null);
    assert.deepEqual(indistinctPair(pair(7), labels, 0.2), [0, 1]);
    assert.equal(indistinctPair(pair(7.5), labels, 0.2), null);
  });
});

describe('mixedSpeaker (a speaker that is two others at once)', () => {
  const random = seededRandom(17);
  const voiceA = Array.from({ length: CEPSTRA }, () => 0);
  const voiceB = Array.from({ length: CEPSTRA }, (_, i) => (i % 2 === 0 ? 3 : -3));
  const both = voiceA.map((a, i) => (a + voiceB[i]!) / 2);
  const voiceC = Array.from({ length: CEPSTRA }, (_, i) => (i % 2 === 0 ? -3 : 3));
  const blocks = (third: readonly number[], thirdPitch: number): Block[] => [
    ...Array.from({ length: 60 }, (_, i) => block(i, voiceA, 7, random)),
    ...Array.from({ length: 60 }, (_, i) => block(60 + i, voiceB, 7.5, random)),
    ...Array.from({ length: 20 }, (_, i) => block(120 + i, third, thirdPitch, random)),
  ];
  const labels = Int32Array.from({ length: 140 }, (_, i) => (i < 60 ? 0 : i < 120 ? 1 : 2));
  const bar = 0.4;

  it('finds frames that lie between two voices, where both voices are heard, and gives them to one of the two', () => {
    const pair = mixedSpeaker(blocks(both, 7.25), labels, bar);
    assert.ok(pair !== null);
    assert.equal(pair[1], 2);
    assert.ok(pair[0] === 0 || pair[0] === 1);
  });

  it('keeps a third voice of its own, and needs three speakers', () => {
    assert.equal(mixedSpeaker(blocks(voiceC, 6.5), labels, bar), null);
    assert.equal(
      mixedSpeaker(
        blocks(both, 7.25),
        Int32Array.from({ length: 140 }, (_, i) => (i < 60 ? 0 : 1)),
        bar,
      ),
      null,
    );
  });
});
