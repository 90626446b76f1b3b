/**
 * The adapted language model, on the stock English model when it is
 * installed: the layout is read exactly, favoured words gain, the unigrams
 * still sum to one, every bigram history still gives a distribution that sums
 * to one, new words are added, and the bigram and trigram arrays are untouched.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { biasTrieModel, followers, readTrieModel, unigramProbability, type TrieLanguageModel } from './lm-bias.ts';

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

    // A history's mass left for backing off, bow·(1 − S₁), is what its explicit bigrams leave: unchanged.
    for (const h of ['the', 'of', 'update', 'wrong', 'billing']) {
      const a = followers(stock, h)!;
      const b = followers(biased, h)!;
      assert.deepEqual(a.ids, b.ids, `${h}: the same followers`);
      const mass = (m: TrieLanguageModel, ids: number[]) => ids.reduce((sum, id) => sum + unigramProbability(m, m.words[id]!)!, 0);
      const left = (m: TrieLanguageModel, f: { ids: number[]; backoff: number }) => Math.exp(f.backoff) * (1 - mass(m, f.ids));
      assert.ok(Math.abs(left(biased, b) / left(stock, a) - 1) < 1e-3, `${h}: ${left(biased, b)} vs ${left(stock, a)}`);
    }
    // The n-gram arrays are copied byte for byte.
    assert.ok(stock.bytes.subarray(stock.ngramOffset, stock.ngramOffset + stock.ngramBytes).equals(biased.bytes.subarray(biased.ngramOffset, biased.ngramOffset + biased.ngramBytes)));
  });

  it('refuses what is not a binary trie model', () => {
    const file = join(dir, 'text.lm');
    writeFileSync(file, '\\data\\\nngram 1=1\n');
    assert.throws(() => readTrieModel(file), /not a binary trie/);
  });
});
