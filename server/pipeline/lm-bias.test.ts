/**
 * The adapted language model, on the stock English model when it is
 * installed: the layout is read exactly, favoured words gain, the unigrams
 * still sum to one, one-word histories still give distributions that sum to
 * one with the favoured words' share raised, and new words are added.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { biasTrieModel, historyMass, readTrieModel, unigramProbability, type TrieLanguageModel } from './lm-bias.ts';

const STOCK = '/usr/share/pocketsphinx/model/en-us/en-us.lm.bin';
const dir = mkdtempSync(join(tmpdir(), 'mas-lm-bias-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function unigramSum(model: TrieLanguageModel): number {
  let sum = 0;
  for (const w of model.words) sum += unigramProbability(model, w)!;
  return sum;
}

describe('biasTrieModel', { skip: existsSync(STOCK) ? false : 'the pocketsphinx-en-us model is not installed' }, () => {
  it('favours the words, renormalizes, keeps each history a distribution, adds the missing words', () => {
    const stock = readTrieModel(STOCK);
    assert.deepEqual(stock.counts.length, 3);
    const file = join(dir, 'biased.lm.bin');
    writeFileSync(file, biasTrieModel(stock, { words: ['budget', 'invoices', 'priya', 'okonkwo'], boost: 30, floor: 1e-4 }));
    const biased = readTrieModel(file);

    assert.equal(biased.counts[0], stock.counts[0]! + 2, 'two new words');
    assert.deepEqual(biased.counts.slice(1), stock.counts.slice(1));
    assert.ok(Math.abs(unigramSum(biased) - 1) < 1e-3, `unigrams sum to ${unigramSum(biased)}`);
    // A common word gains the boost; a rare one is raised to the floor.
    assert.ok(unigramProbability(stock, 'budget')! * 30 > 1e-4);
    const gain = unigramProbability(biased, 'budget')! / unigramProbability(stock, 'budget')!;
    assert.ok(gain > 25 && gain < 31, `budget gained ×${gain}`);
    assert.ok(Math.abs(unigramProbability(biased, 'invoices')! - 1e-4) < 1e-5);
    assert.ok(Math.abs(unigramProbability(biased, 'priya')! - 1e-4) < 1e-5);
    const the = unigramProbability(biased, 'the')! / unigramProbability(stock, 'the')!;
    assert.ok(the < 1 && the > 0.99, 'everything else loses a little');

    // Every one-word history still spreads exactly its whole probability, keeps its explicit mass, and gives the favoured words a bigger share of it.
    for (const h of ['the', 'road', 'in', 'update', 'wrong']) {
      const a = historyMass(stock, h, ['budget', 'invoices'])!;
      const b = historyMass(biased, h, ['budget', 'invoices'])!;
      const total = (m: typeof a) => m.explicit + m.backoff * (1 - m.lower);
      assert.ok(Math.abs(total(b) - 1) < 2e-3, `${h}: sums to ${total(b)}`);
      assert.ok(Math.abs(b.explicit - a.explicit) < 2e-3, `${h}: explicit mass ${a.explicit} → ${b.explicit}`);
      if (a.favoured > 0) assert.ok(b.favoured > 10 * a.favoured, `${h}: favoured ${a.favoured} → ${b.favoured}`);
    }
  });

  it('refuses what is not a binary trie model', () => {
    const file = join(dir, 'text.lm');
    writeFileSync(file, '\\data\\\nngram 1=1\n');
    assert.throws(() => readTrieModel(file), /not a binary trie/);
  });
});
