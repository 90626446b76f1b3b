import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeWords } from './normalize-words.ts';
import { alignWords, wordErrorRate } from './word-error-rate.ts';

describe('normalizeWords', () => {
  it('lowercases, strips punctuation, keeps numbers as written', () => {
    assert.deepEqual(normalizeWords('Okay, the Q3 budget is 12 percent OVER!'), [
      'okay',
      'the',
      'q3',
      'budget',
      'is',
      '12',
      'percent',
      'over',
    ]);
  });

  it('joins contractions and splits hyphenated compounds', () => {
    assert.deepEqual(normalizeWords('We don’t need a follow-up.'), ['we', 'dont', 'need', 'a', 'follow', 'up']);
  });

  it('keeps letters beyond ASCII', () => {
    assert.deepEqual(normalizeWords('Café Müller.'), ['café', 'müller']);
  });
});

describe('wordErrorRate', () => {
  it("sclite's alignment weighs substitutions 4 and gaps 3: where many words are wrong it can count more edits than the least", () => {
    // sclite -i rm on these two as trn utterances prints 0 substituted, 4 deleted, 7 inserted (decision 165).
    const ref = 'b a a d b d c a b b c c'.split(' ');
    const hyp = 'a d b a b b a c c c a d b d b'.split(' ');
    const least = wordErrorRate(ref, hyp);
    const nist = wordErrorRate(ref, hyp, 'sclite');
    assert.deepEqual([least.substitutions, least.deletions, least.insertions], [7, 0, 3]);
    assert.deepEqual([nist.substitutions, nist.deletions, nist.insertions], [0, 4, 7]);
  });

  it('the two alignments agree wherever few words are wrong', () => {
    const ref = 'we ship the release on friday after the review'.split(' ');
    const hyp = 'we shipped release on a friday after review'.split(' ');
    assert.deepEqual(wordErrorRate(ref, hyp, 'sclite'), wordErrorRate(ref, hyp));
  });

  it('is 0 for the same words, whatever the case and punctuation', () => {
    assert.deepEqual(wordErrorRate('The budget, please.', 'the BUDGET please'), {
      wer: 0,
      substitutions: 0,
      deletions: 0,
      insertions: 0,
      reference_words: 3,
    });
  });

  it('counts a substitution', () => {
    assert.deepEqual(wordErrorRate('ship it on friday', 'ship it on monday'), {
      wer: 0.25,
      substitutions: 1,
      deletions: 0,
      insertions: 0,
      reference_words: 4,
    });
  });

  it('counts a deletion and an insertion', () => {
    const r = wordErrorRate('the release is due friday', 'release is due on friday');
    assert.deepEqual(r, { wer: 0.4, substitutions: 0, deletions: 1, insertions: 1, reference_words: 5 });
  });

  it('does not read digits as the spelled number', () => {
    assert.equal(wordErrorRate('twelve weeks', '12 weeks').substitutions, 1);
  });

  it('can exceed 1 when the hypothesis adds more than the reference has', () => {
    assert.equal(wordErrorRate('yes', 'no no no').wer, 3);
  });

  it('handles empty sides', () => {
    assert.deepEqual(wordErrorRate('', ''), { wer: 0, substitutions: 0, deletions: 0, insertions: 0, reference_words: 0 });
    assert.deepEqual(wordErrorRate('a b', ''), { wer: 1, substitutions: 0, deletions: 2, insertions: 0, reference_words: 2 });
    assert.deepEqual(wordErrorRate('', 'a b'), { wer: 2, substitutions: 0, deletions: 0, insertions: 2, reference_words: 0 });
  });

  it('takes word arrays too', () => {
    // roadmap → road is a substitution, map an insertion: 2 errors over 2 reference words.
    assert.deepEqual(wordErrorRate(['The', 'roadmap.'], ['the', 'road', 'map']), {
      wer: 1,
      substitutions: 1,
      deletions: 0,
      insertions: 1,
      reference_words: 2,
    });
  });
});

describe('alignWords', () => {
  it('pairs every word and prefers substitution over a deletion plus an insertion', () => {
    assert.deepEqual(alignWords(['a', 'b', 'c'], ['a', 'x', 'c']), [
      { op: 'match', ref: 0, hyp: 0 },
      { op: 'substitution', ref: 1, hyp: 1 },
      { op: 'match', ref: 2, hyp: 2 },
    ]);
  });

  it('covers every reference and hypothesis index exactly once', () => {
    const ref = 'we need the budget by friday for the customer'.split(' ');
    const hyp = 'we need a budget friday for for customer please'.split(' ');
    const steps = alignWords(ref, hyp);
    const refs = steps.flatMap((s) => ('ref' in s ? [s.ref] : []));
    const hyps = steps.flatMap((s) => ('hyp' in s ? [s.hyp] : []));
    assert.deepEqual(
      refs,
      ref.map((_, i) => i),
    );
    assert.deepEqual(
      hyps,
      hyp.map((_, i) => i),
    );
    // the→a, by deleted, the→for, please inserted.
    assert.deepEqual(
      steps.filter((s) => s.op !== 'match').map((s) => s.op),
      ['substitution', 'deletion', 'substitution', 'insertion'],
    );
  });
});
