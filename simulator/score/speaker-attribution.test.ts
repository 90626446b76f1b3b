import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { speakerAttribution } from './speaker-attribution.ts';
import type { HypothesisWord, TruthWordWithSpeaker } from './speaker-attribution.ts';

// Alice says four words, then Bob says three, then Alice two more.
const truth: TruthWordWithSpeaker[] = [
  { text: 'is', start: 0.0, end: 0.2, speaker: 'alice' },
  { text: 'the', start: 0.2, end: 0.3, speaker: 'alice' },
  { text: 'budget', start: 0.3, end: 0.8, speaker: 'alice' },
  { text: 'ready', start: 0.8, end: 1.2, speaker: 'alice' },
  { text: 'not', start: 2.0, end: 2.3, speaker: 'bob' },
  { text: 'yet', start: 2.3, end: 2.6, speaker: 'bob' },
  { text: 'sorry', start: 2.6, end: 3.1, speaker: 'bob' },
  { text: 'no', start: 4.0, end: 4.3, speaker: 'alice' },
  { text: 'problem', start: 4.3, end: 4.9, speaker: 'alice' },
];

/** The truth as a recognizer would return it, with clusters renamed and times nudged. */
function hyp(clusterOf: (w: TruthWordWithSpeaker, i: number) => string, shift = 0.05): HypothesisWord[] {
  return truth.map((w, i) => ({ text: w.text, start: w.start + shift, end: w.end + shift, cluster: clusterOf(w, i) }));
}

describe('speakerAttribution', () => {
  it('is 1 when clusters match speakers, whatever their names', () => {
    const r = speakerAttribution(
      hyp((w) => (w.speaker === 'alice' ? 'SPEAKER_01' : 'SPEAKER_00')),
      truth,
    );
    assert.equal(r.accuracy, 1);
    assert.deepEqual(r.mapping, { SPEAKER_00: 'bob', SPEAKER_01: 'alice' });
    assert.equal(r.aligned_words, 9);
  });

  it('counts the words of a wrongly attributed stretch', () => {
    // The recognizer gives Bob's last word to Alice's cluster.
    const r = speakerAttribution(
      hyp((w, i) => (w.speaker === 'alice' || i === 6 ? 'A' : 'B')),
      truth,
    );
    assert.equal(r.correct_words, 8);
    assert.equal(r.accuracy, 8 / 9);
  });

  it('gives one-cluster output the share of the majority speaker', () => {
    const r = speakerAttribution(
      hyp(() => 'X'),
      truth,
    );
    assert.equal(r.accuracy, 6 / 9);
    assert.deepEqual(r.mapping, { X: 'alice' });
  });

  it('maps clusters one-to-one: a surplus cluster earns nothing', () => {
    // Alice split in two clusters: only the larger half can map to her.
    const r = speakerAttribution(
      hyp((w, i) => (w.speaker === 'bob' ? 'B' : i < 4 ? 'A1' : 'A2')),
      truth,
    );
    assert.deepEqual(r.mapping, { A1: 'alice', A2: null, B: 'bob' });
    assert.equal(r.accuracy, 7 / 9);
  });

  it('leaves hypothesis words in long silences unaligned', () => {
    const words = [...hyp(() => 'A'), { text: 'uh', start: 3.5, end: 3.6, cluster: 'B' }];
    const r = speakerAttribution(words, truth);
    assert.equal(r.aligned_words, 9);
    assert.equal(r.hypothesis_words, 10);
  });

  it('aligns a word slightly outside every truth word within the tolerance', () => {
    const r = speakerAttribution([{ text: 'sorry', start: 3.2, end: 3.3, cluster: 'A' }], truth, { toleranceSeconds: 0.2 });
    assert.equal(r.aligned_words, 1);
    assert.deepEqual(r.mapping, { A: 'bob' });
  });

  it('prefers the same word when two speakers overlap in time', () => {
    const overlapping: TruthWordWithSpeaker[] = [
      { text: 'agreed', start: 1.0, end: 1.5, speaker: 'bob' },
      { text: 'deadline', start: 1.0, end: 1.5, speaker: 'alice' },
    ];
    const r = speakerAttribution([{ text: 'Deadline', start: 1.0, end: 1.5, cluster: 'C' }], overlapping);
    assert.deepEqual(r.mapping, { C: 'alice' });
  });

  it('can align by text instead of time', () => {
    // Times are useless (all zero) but the words line up.
    const words = truth.map((w) => ({ text: w.text, start: 0, end: 0, cluster: w.speaker === 'alice' ? 'A' : 'B' }));
    const r = speakerAttribution(words, truth, { align: 'text' });
    assert.equal(r.accuracy, 1);
  });

  it('reports 0 with nothing aligned', () => {
    const r = speakerAttribution([], truth);
    assert.deepEqual(r, { accuracy: 0, aligned_words: 0, correct_words: 0, hypothesis_words: 0, reference_words: 9, mapping: {} });
  });
});
