/**
 * Vocabulary bias for pocketsphinx through its language model: the stock
 * trigram model with the user's words made more probable, renormalized, and
 * the words it lacks added (decision 032).
 *
 * The stock English model ships only as a binary trie (en-us.lm.bin), and
 * the Debian sphinx_lm_convert cannot write it as ARPA text: its header
 * declares six more bigrams than the trie holds and the writer asserts they
 * match. So the adapted model is written in the same binary format directly:
 *
 *   header "Trie Language Model", order (u8), n-gram counts (u32 × order);
 *   quantization: a u32, then 16-bit bin tables (prob and backoff per middle
 *   order, prob for the highest);
 *   unigrams: (count + 1) × {f32 prob, f32 backoff, u32 first bigram}, the
 *   last a sentinel that ends the previous one's bigram range;
 *   the bit-packed bigram and trigram arrays (each bigram: word id, 16-bit
 *   backoff and 16-bit prob codes, index of its first trigram);
 *   the words: i32 byte length, then NUL-terminated strings.
 *
 * Probabilities are natural-ish logs in base 1.0001 (pocketsphinx's logmath).
 *
 * What changes (a unigram boost, renormalized, with backoffs recomputed):
 * - each bias word's unigram probability is multiplied by `boost`, and raised
 *   to at least `floor`; words the model lacks are appended with `floor`;
 * - all unigrams are divided by their new sum, so they sum to one again;
 * - each bigram history's backoff weight is recomputed so its conditional
 *   distribution still sums to one: with S₁ the unigram mass of the words
 *   that follow it explicitly, bow' = bow · (1 − S₁) / (1 − S₁'), since the
 *   explicit bigram probabilities do not change;
 * - trigram histories keep their backoffs: their lower order is the bigram
 *   distribution, whose explicit entries (the suffixes of the trigrams) do
 *   not change.
 * Bigram and trigram arrays are copied byte for byte: word ids of existing
 * words stay, new ones come after them, and the width of a word id (bits for
 * the vocabulary size) must not change (it holds up to 131 071 words).
 */
import { readFileSync } from 'node:fs';

const HEADER = 'Trie Language Model';
/** Natural log of pocketsphinx's log base (1.0001): a stored value times this is a natural log. */
const LOG_BASE = Math.log(1.0001);
/** Bits of a quantized probability or backoff. */
const QUANT_BITS = 16;

export interface TrieLanguageModel {
  bytes: Buffer;
  order: number;
  counts: number[];
  unigramOffset: number;
  ngramOffset: number;
  ngramBytes: number;
  words: string[];
  index: Map<string, number>;
}

function requiredBits(max: number): number {
  if (max === 0) return 0;
  let bits = 0;
  while ((max >>>= 1) !== 0) bits++;
  return bits + 1;
}

function packedBytes(entries: number, bitsPerEntry: number): number {
  // One more entry for the end of the last range, and eight spare bytes for 64-bit reads.
  return Math.floor(((1 + entries) * bitsPerEntry + 7) / 8) + 8;
}

/** Reads a trigram trie model's layout; throws for anything else. */
export function readTrieModel(path: string): TrieLanguageModel {
  const bytes = readFileSync(path);
  if (bytes.toString('latin1', 0, HEADER.length) !== HEADER) throw new Error(`${path} is not a binary trie language model`);
  const order = bytes.readUInt8(HEADER.length);
  if (order !== 3) throw new Error(`${path} is a ${order}-gram model; only trigram models are adapted`);
  const counts = [0, 1, 2].map((i) => bytes.readUInt32LE(HEADER.length + 1 + 4 * i));
  const quantBytes = 4 + ((order - 2) * 2 + 1) * (1 << QUANT_BITS) * 4;
  const unigramOffset = HEADER.length + 1 + 4 * order + quantBytes;
  const ngramOffset = unigramOffset + (counts[0]! + 1) * 12;
  const wordBits = requiredBits(counts[0]!);
  const ngramBytes =
    packedBytes(counts[1]!, wordBits + 2 * QUANT_BITS + requiredBits(counts[2]!)) + packedBytes(counts[2]!, wordBits + QUANT_BITS);
  const wordsOffset = ngramOffset + ngramBytes;
  const length = bytes.readInt32LE(wordsOffset);
  if (wordsOffset + 4 + length !== bytes.length) throw new Error(`${path}: the layout does not add up to the file size`);
  const words = bytes.toString('utf8', wordsOffset + 4, wordsOffset + 4 + length - 1).split('\0');
  if (words.length !== counts[0]) throw new Error(`${path}: ${words.length} words for ${counts[0]} unigrams`);
  const index = new Map<string, number>();
  words.forEach((w, i) => {
    if (!index.has(w)) index.set(w, i);
  });
  return { bytes, order, counts, unigramOffset, ngramOffset, ngramBytes, words, index };
}

export interface UnigramBias {
  /** Words to favour, as the model spells them (lower case). */
  words: readonly string[];
  /** Factor on a listed word's probability. */
  boost: number;
  /** Least probability of a listed word, and that of a word the model lacks. */
  floor: number;
}

/** The model with the bias applied, as the bytes of a new binary trie file. */
export function biasTrieModel(model: TrieLanguageModel, bias: UnigramBias): Buffer {
  const { bytes, counts } = model;
  const n = counts[0]!;
  const known: number[] = [];
  const added: string[] = [];
  for (const w of new Set(bias.words)) {
    if (w === '' || w.startsWith('<')) continue;
    const i = model.index.get(w);
    if (i === undefined) added.push(w);
    else known.push(i);
  }
  const total = n + added.length;
  if (requiredBits(total) !== requiredBits(n)) throw new Error('too many new words for the model’s word-id width');

  const prob = new Float64Array(total);
  const backoff = new Float64Array(total);
  const next = new Uint32Array(total + 1);
  for (let i = 0; i <= n; i++) {
    const at = model.unigramOffset + 12 * i;
    if (i < n) {
      prob[i] = Math.exp(bytes.readFloatLE(at) * LOG_BASE);
      backoff[i] = bytes.readFloatLE(at + 4);
    }
    next[i] = bytes.readUInt32LE(at + 8);
  }
  const before = Float64Array.from(prob);
  for (const i of known) prob[i] = Math.max(prob[i]! * bias.boost, bias.floor);
  added.forEach((_, k) => {
    prob[n + k] = bias.floor;
    next[n + k + 1] = next[n]!; // no bigrams follow a new word: an empty range
  });
  next[total] = next[n]!;
  let sum = 0;
  for (let i = 0; i < total; i++) sum += prob[i]!;
  for (let i = 0; i < total; i++) prob[i] = prob[i]! / sum;

  // Backoffs of bigram histories: unigram mass of each history's explicit followers, before and after.
  const wordBits = requiredBits(n);
  const wordMask = 2 ** wordBits - 1;
  const bigramBits = wordBits + 2 * QUANT_BITS + requiredBits(counts[2]!);
  const wordOf = (entry: number): number => {
    const bit = entry * bigramBits;
    const byte = model.ngramOffset + (bit >>> 3);
    return (bytes.readUInt32LE(byte) >>> (bit & 7)) & wordMask;
  };
  for (let h = 0; h < n; h++) {
    const from = next[h]!;
    const to = next[h + 1]!;
    if (to <= from) continue;
    let oldMass = 0;
    let newMass = 0;
    for (let e = from; e < to; e++) {
      const w = wordOf(e);
      oldMass += before[w]!;
      newMass += prob[w]!;
    }
    if (oldMass >= 1 || newMass >= 1) continue;
    const factor = (1 - oldMass) / (1 - newMass);
    backoff[h] = backoff[h]! + Math.log(factor) / LOG_BASE;
  }

  // Assemble: header and quantization unchanged but for the unigram count.
  const head = Buffer.from(bytes.subarray(0, model.unigramOffset));
  head.writeUInt32LE(total, HEADER.length + 1);
  const unigrams = Buffer.alloc((total + 1) * 12);
  for (let i = 0; i <= total; i++) {
    if (i < total) {
      unigrams.writeFloatLE(Math.log(prob[i]!) / LOG_BASE, 12 * i);
      unigrams.writeFloatLE(backoff[i]!, 12 * i + 4);
    }
    unigrams.writeUInt32LE(next[i]!, 12 * i + 8);
  }
  const ngrams = bytes.subarray(model.ngramOffset, model.ngramOffset + model.ngramBytes);
  const strings = Buffer.from([...model.words, ...added].map((w) => `${w}\0`).join(''), 'utf8');
  const length = Buffer.alloc(4);
  length.writeInt32LE(strings.length);
  return Buffer.concat([head, unigrams, ngrams, length, strings]);
}

/** The words that follow a word explicitly (its bigrams), by word id, and its backoff weight as a natural log. */
export function followers(model: TrieLanguageModel, word: string): { ids: number[]; backoff: number } | null {
  const h = model.index.get(word);
  if (h === undefined) return null;
  const { bytes, counts } = model;
  const wordBits = requiredBits(counts[0]!);
  const bigramBits = wordBits + 2 * QUANT_BITS + requiredBits(counts[2]!);
  const at = model.unigramOffset + 12 * h;
  const ids: number[] = [];
  for (let e = bytes.readUInt32LE(at + 8); e < bytes.readUInt32LE(at + 20); e++) {
    const bit = e * bigramBits;
    ids.push((bytes.readUInt32LE(model.ngramOffset + (bit >>> 3)) >>> (bit & 7)) & (2 ** wordBits - 1));
  }
  return { ids, backoff: bytes.readFloatLE(at + 4) * LOG_BASE };
}

/** The unigram probability of a word in the model (tests, measurements); null for a word it lacks. */
export function unigramProbability(model: TrieLanguageModel, word: string): number | null {
  const i = model.index.get(word);
  return i === undefined ? null : Math.exp(model.bytes.readFloatLE(model.unigramOffset + 12 * i) * LOG_BASE);
}
