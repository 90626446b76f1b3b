import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concatenatedPermutationWer, editDistance, wordsBySpeaker } from './cpwer.ts';

const s = (speaker: string, text: string) => ({ speaker, words: text.split(' ') });

describe('editDistance', () => {
  it('counts the least edits', () => {
    assert.equal(editDistance(['a', 'b', 'c'], ['a', 'x', 'c', 'd']), 2);
    assert.equal(editDistance([], ['a']), 1);
  });
});

describe('concatenatedPermutationWer', () => {
  it('is 0 for the right words under other speaker names', () => {
    const r = concatenatedPermutationWer([s('A', 'hello there'), s('B', 'fine thanks')], [s('x', 'fine thanks'), s('y', 'hello there')]);
    assert.equal(r.cpwer, 0);
    assert.deepEqual(r.mapping, { x: 'B', y: 'A' });
  });

  it('charges words given to the wrong speaker, which plain WER does not', () => {
    // Overlapping speech: B's backchannel recognized but attributed to A.
    const r = concatenatedPermutationWer([s('A', 'so the plan is fixed'), s('B', 'mm hmm')], [s('x', 'so the plan mm hmm is fixed')]);
    // x pairs with A: B's two words are insertions there, and deletions from B, left unpaired.
    assert.equal(r.insertions, 2);
    assert.equal(r.deletions, 2);
    assert.equal(r.errors, 4);
    assert.equal(r.reference_words, 7);
  });

  it('inserts every word of an extra hypothesis speaker and deletes a missing one', () => {
    const r = concatenatedPermutationWer([s('A', 'one two three')], [s('x', 'one two three'), s('y', 'four five')]);
    assert.equal(r.insertions, 2);
    assert.equal(r.mapping.y, null);
    const missing = concatenatedPermutationWer([s('A', 'one two'), s('B', 'three')], [s('x', 'one two')]);
    assert.equal(missing.deletions, 1);
  });

  it('finds the least total, not a greedy pairing', () => {
    // Greedy would pair x with A (2 matches) and leave y with B poorly; the best pairing is x–B, y–A.
    const r = concatenatedPermutationWer([s('A', 'a b c d'), s('B', 'a b e f')], [s('x', 'a b e f'), s('y', 'c d')]);
    assert.equal(r.errors, 2);
    assert.deepEqual(r.mapping, { x: 'B', y: 'A' });
  });

  it('normalizes words as WER does', () => {
    assert.equal(concatenatedPermutationWer([s('A', "Don't stop.")], [s('x', 'dont STOP')]).cpwer, 0);
  });
});

describe('wordsBySpeaker', () => {
  it('keeps each speaker’s words in order', () => {
    assert.deepEqual(
      wordsBySpeaker([
        { text: 'a', speaker: 'S2' },
        { text: 'b', speaker: 'S1' },
        { text: 'c', speaker: 'S2' },
      ]),
      [
        { speaker: 'S1', words: ['b'] },
        { speaker: 'S2', words: ['a', 'c'] },
      ],
    );
  });
});
