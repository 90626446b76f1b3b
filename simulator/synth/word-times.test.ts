import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { characterWeight, groupIslands, layOutWords, tokenizeLine, wordLengths } from './word-times.ts';

const RATE = 22_050;

function bursts(length: number, ranges: [number, number][]): Int16Array {
  const out = new Int16Array(length);
  for (const [from, to] of ranges) for (let i = from; i < to; i++) out[i] = i % 2 === 0 ? 8000 : -8000;
  return out;
}

describe('tokenizeLine', () => {
  it('keeps words, drops punctuation-only tokens, marks clause ends but not the last word', () => {
    assert.deepEqual(tokenizeLine('Okay, the budget — is done. Right?'), [
      { text: 'Okay', endsClause: true },
      { text: 'the', endsClause: false },
      { text: 'budget', endsClause: false },
      { text: 'is', endsClause: false },
      { text: 'done', endsClause: true },
      { text: 'Right', endsClause: false },
    ]);
  });
});

describe('characterWeight', () => {
  it('counts letters, and digits as three letters each', () => {
    assert.equal(characterWeight('budget'), 6);
    assert.equal(characterWeight('Q3'), 4);
    assert.equal(characterWeight("isn't"), 4);
  });
});

describe('groupIslands', () => {
  it('gives each word its own island when the counts match the characters', () => {
    assert.deepEqual(groupIslands([100, 300], [1, 3]), [100, 300]);
  });

  it('shares an island among the words whose characters fit it best', () => {
    // Words of 2, 2, 8 characters and islands of 400 and 800 samples:
    // the first two words ("of the") share the first island.
    assert.deepEqual(groupIslands([400, 800], [2, 2, 8]), [200, 200, 800]);
    // With islands of 900 and 300, the short last word stands alone.
    assert.deepEqual(groupIslands([900, 300], [8, 2, 2]).map(Math.round), [900, 150, 150]);
  });

  it('refuses more islands than words', () => {
    assert.throws(() => groupIslands([1, 2, 3], [1, 1]), /cannot share 3 islands among 2 words/);
  });
});

describe('wordLengths', () => {
  const tokens = tokenizeLine('the quarterly budget');

  it('measures words one-to-one from the spaced-out render', () => {
    const measured = bursts(RATE * 2, [
      [0, 1000],
      [8000, 14000],
      [21000, 25000],
    ]);
    assert.deepEqual(wordLengths(tokens, measured, RATE, 175), { lengths: [1000, 6000, 4000], source: 'measured' });
  });

  it('groups when the synthesizer bound two words into one island', () => {
    const measured = bursts(RATE * 2, [
      [0, 7000],
      [14000, 18000],
    ]);
    const { lengths, source } = wordLengths(tokens, measured, RATE, 175);
    assert.equal(source, 'grouped');
    assert.deepEqual(lengths.map(Math.round), [1750, 5250, 4000]); // 3 : 9 characters share the 7000
  });

  it('joins the closest islands when a word was split in two', () => {
    const measured = bursts(RATE * 2, [
      [0, 1000],
      [8000, 11000],
      [15000, 18000],
      [25000, 29000],
    ]);
    assert.deepEqual(wordLengths(tokens, measured, RATE, 175), { lengths: [1000, 10000, 4000], source: 'grouped' });
  });

  it('falls back to characters for a silent measuring render', () => {
    assert.deepEqual(wordLengths(tokens, new Int16Array(RATE), RATE, 175), { lengths: [3, 9, 6], source: 'characters' });
  });
});

describe('layOutWords', () => {
  it('places each clause in its own stretch of sound, words back to back by weight', () => {
    const tokens = tokenizeLine('Yes, the budget.');
    const line = bursts(RATE * 2, [
      [1000, 5000],
      [10000, 20000],
    ]);
    const { words, clauseAnchored } = layOutWords(tokens, [10, 2, 8], line, RATE, 175);
    assert.equal(clauseAnchored, true);
    assert.deepEqual(words, [
      { text: 'Yes', start: 1000, end: 5000 },
      { text: 'the', start: 10000, end: 12000 },
      { text: 'budget', start: 12000, end: 20000 },
    ]);
  });

  it('spreads the words over the whole line when the pauses do not match the punctuation', () => {
    const tokens = tokenizeLine('Yes, the budget.');
    const line = bursts(RATE, [[1000, 11000]]);
    const { words, clauseAnchored } = layOutWords(tokens, [1, 1, 3], line, RATE, 175);
    assert.equal(clauseAnchored, false);
    assert.deepEqual(
      words.map((w) => [w.start, w.end]),
      [
        [1000, 3000],
        [3000, 5000],
        [5000, 11000],
      ],
    );
  });
});
