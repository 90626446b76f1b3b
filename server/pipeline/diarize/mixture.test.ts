import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../../simulator/seeded-random.ts';
import type { Block } from './blocks.ts';
import { MEL_FILTERS, emptyStats } from './features.ts';
import { fitGmm, gmmLogLikelihood } from './gmm.ts';
import { mixtureOverlapSpans } from './mixture.ts';

/** Gaussian noise from a seeded generator (Box–Muller), so the frames are the same on every run. */
function gaussian(random: { next(): number }): number {
  return Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
}

type Voice = (random: { next(): number }) => Float64Array;

/** A voice: log mel energies around a spectral shape, a few "sounds" (shifts of it) and some spread. */
function voice(shape: (m: number) => number): Voice {
  return (random) => {
    const sound = Math.floor(random.next() * 3) - 1;
    return Float64Array.from({ length: MEL_FILTERS }, (_, m) => shape(m + 2 * sound) + 0.4 * gaussian(random));
  };
}

/** Two voices at once: their mel energies added. */
function both(a: Voice, b: Voice): Voice {
  return (random) => {
    const x = a(random);
    const y = b(random);
    return x.map((v, m) => Math.log(Math.exp(v) + Math.exp(y[m]!)));
  };
}

/** A block of 25 frames of `source` (statistics empty: the detector reads the log mel energies). */
function block(i: number, source: Voice, random: { next(): number }): Block {
  const logMel = new Float32Array(25 * MEL_FILTERS);
  for (let f = 0; f < 25; f++) logMel.set(source(random), f * MEL_FILTERS);
  return { start: i * 0.25, end: (i + 1) * 0.25, region: 0, stats: { ...emptyStats(), n: 25 }, logMel };
}

describe('mixtureOverlapSpans (a second speaker where the mixture of two voices explains a block best)', () => {
  const low = voice((m) => 4 - 0.25 * m);
  const high = voice((m) => -2 + 0.25 * m);
  const random = seededRandom(7);
  // A speaks blocks 0–39, the last two with B already talking (still A's turn), then B alone.
  const blocks = [
    ...Array.from({ length: 38 }, (_, i) => block(i, low, random)),
    block(38, both(low, high), random),
    block(39, both(low, high), random),
    ...Array.from({ length: 40 }, (_, i) => block(40 + i, high, random)),
  ];
  const spoken = Int32Array.from(blocks, (_, i) => (i < 40 ? 0 : 1));
  const turns = [
    { label: 0, start: 0, end: 10 },
    { label: 1, start: 10, end: 20 },
  ];

  it('does nothing when off (margin null)', () => {
    assert.deepEqual(mixtureOverlapSpans(blocks, spoken, turns, { margin: null }), []);
  });

  it('gives the mixed blocks at the end of A’s turn to B as well', () => {
    assert.deepEqual(mixtureOverlapSpans(blocks, spoken, turns, { margin: 0.4 }), [{ label: 1, start: 9.5, end: 10 }]);
  });

  it('gives nothing where each block is one voice', () => {
    const single = [...blocks.slice(0, 38), block(38, low, random), block(39, low, random), ...blocks.slice(40)];
    assert.deepEqual(mixtureOverlapSpans(single, spoken, turns, { margin: 0.4 }), []);
  });

  it('leaves a mixture away from the change alone unless asked to look everywhere', () => {
    const inside = [
      ...blocks.slice(0, 20),
      block(20, both(low, high), random),
      ...blocks.slice(21, 38),
      block(38, low, random),
      block(39, low, random),
      ...blocks.slice(40),
    ];
    assert.deepEqual(mixtureOverlapSpans(inside, spoken, turns, { margin: 0.4 }), []);
    assert.deepEqual(mixtureOverlapSpans(inside, spoken, turns, { margin: 0.4, scope: 'everywhere' }), [{ label: 1, start: 5, end: 5.25 }]);
  });
});

describe('fitGmm', () => {
  it('fits two separated groups better with two components than with one, and the same on every run', () => {
    const random = seededRandom(1);
    const frames = Array.from({ length: 400 }, (_, i) => Float64Array.from([gaussian(random) + (i % 2 === 0 ? -5 : 5), gaussian(random)]));
    const one = gmmLogLikelihood(fitGmm(frames, 1), frames);
    const two = gmmLogLikelihood(fitGmm(frames, 2), frames);
    assert.ok(two > one + 0.5, `${two} > ${one} + 0.5`);
    assert.equal(gmmLogLikelihood(fitGmm(frames, 2), frames), two);
  });
});
