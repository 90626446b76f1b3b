/**
 * Vocabulary bias for pocketsphinx through its language model: the stock
 * trigram model with the user's words made more probable, renormalized, and
 * the words it lacks added (decision 032).
 *
 * It sits in the pipeline, not with the pocketsphinx adapter, because the
 * pipeline's worker thread builds it (off-thread-worker.ts) and the pipeline
 * imports no adapter; the adapter's cache (adapters/asr/pocketsphinx-lm-cache.ts)
 * imports it from here to build in place (decision 087, amended).
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
 *   the bit-packed bigram and trigram arrays, n-grams stored reversed (each
 *   bigram: word id, 16-bit backoff and 16-bit prob codes, index of its
 *   first trigram; each trigram: word id, 16-bit prob code);
 *   the words: i32 byte length, then NUL-terminated strings.
 *
 * Probabilities and backoffs are logarithms in base 1.0001 (pocketsphinx's logmath).
 *
 * What changes is described at biasTrieModel: every history gives the
 * favoured words `boost` times the share of the other words among its
 * explicit followers, unigrams likewise (renormalized, with a floor), words
 * the model lacks are added, and every backoff weight is recomputed from the
 * stored probabilities so each history's distribution sums to one. Changed
 * probabilities and backoffs are written back as the nearest code of the
 * model's own quantization bins. The width of a word id (bits for the
 * vocabulary size) must not change (it holds up to 131 071 words).
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

export interface VocabularyBias {
  /** Words to favour, as the model spells them (lower case). */
  words: readonly string[];
  /** Factor on a listed word's probability against the other words of the same history. */
  boost: number;
  /** Least unigram probability of a listed word, and that of a word the model lacks. */
  floor: number;
}

/** Field layout of the bit-packed arrays. */
interface Packing {
  wordBits: number;
  wordMask: number;
  bigramBits: number;
  trigramBits: number;
  /** Bit offset of the trigram array from the start of the n-gram memory. */
  trigramStart: number;
}

function packing(counts: readonly number[]): Packing {
  const wordBits = requiredBits(counts[0]!);
  const bigramBits = wordBits + 2 * QUANT_BITS + requiredBits(counts[2]!);
  return {
    wordBits,
    wordMask: 2 ** wordBits - 1,
    bigramBits,
    trigramBits: wordBits + QUANT_BITS,
    trigramStart: packedBytes(counts[1]!, bigramBits) * 8,
  };
}

function readBits(buf: Buffer, bit: number, length: number): number {
  return (buf.readUInt32LE(bit >>> 3) >>> (bit & 7)) & (2 ** length - 1);
}

function writeBits(buf: Buffer, bit: number, length: number, value: number): void {
  const byte = bit >>> 3;
  const shift = bit & 7;
  const mask = ((2 ** length - 1) * 2 ** shift) >>> 0;
  const current = buf.readUInt32LE(byte);
  buf.writeUInt32LE(((current & ~mask) | ((value * 2 ** shift) >>> 0)) >>> 0, byte);
}

/** The code of the bin whose centre is nearest (bins ascend). */
function nearestBin(bins: Float32Array, value: number): number {
  let lo = 0;
  let hi = bins.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bins[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  if (lo === 0) return 0;
  if (lo === bins.length) return bins.length - 1;
  return value - bins[lo - 1]! < bins[lo]! - value ? lo - 1 : lo;
}

const toLog = (p: number) => Math.log(p) / LOG_BASE;
const toProb = (l: number) => Math.exp(l * LOG_BASE);

/** The unigram level of a biased model: probabilities (linear), backoffs (log) and each word's first bigram entry. */
interface Unigrams {
  p1: Float64Array;
  bo1: Float64Array;
  next1: Uint32Array;
}

/** Unigrams: favoured ones ×boost (at least `floor`), missing ones added at `floor` with no n-grams, all divided by their sum. */
function biasedUnigrams(model: TrieLanguageModel, favoured: ReadonlySet<number>, added: readonly string[], bias: VocabularyBias): Unigrams {
  const { bytes } = model;
  const n = model.counts[0]!;
  const total = n + added.length;
  const p1 = new Float64Array(total);
  const bo1 = new Float64Array(total);
  const next1 = new Uint32Array(total + 1);
  for (let i = 0; i <= n; i++) {
    const at = model.unigramOffset + 12 * i;
    if (i < n) {
      p1[i] = toProb(bytes.readFloatLE(at));
      bo1[i] = bytes.readFloatLE(at + 4);
    }
    next1[i] = bytes.readUInt32LE(at + 8);
  }
  for (const i of favoured) p1[i] = Math.max(p1[i]! * bias.boost, bias.floor);
  added.forEach((_, k) => {
    p1[n + k] = bias.floor;
    next1[n + k + 1] = next1[n]!; // no n-grams end in a new word: an empty range
  });
  next1[total] = next1[n]!;
  let sum = 0;
  for (let i = 0; i < total; i++) sum += p1[i]!;
  for (let i = 0; i < total; i++) p1[i] = p1[i]! / sum;
  return { p1, bo1, next1 };
}

/** The new trie file: header and quantization unchanged but for the unigram count, then unigrams, n-grams and words. */
function assemble(model: TrieLanguageModel, added: readonly string[], { p1, bo1, next1 }: Unigrams, ngrams: Buffer): Buffer {
  const total = p1.length;
  const head = Buffer.from(model.bytes.subarray(0, model.unigramOffset));
  head.writeUInt32LE(total, HEADER.length + 1);
  const unigrams = Buffer.alloc((total + 1) * 12);
  for (let i = 0; i <= total; i++) {
    if (i < total) {
      unigrams.writeFloatLE(toLog(p1[i]!), 12 * i);
      unigrams.writeFloatLE(bo1[i]!, 12 * i + 4);
    }
    unigrams.writeUInt32LE(next1[i]!, 12 * i + 8);
  }
  const strings = Buffer.from([...model.words, ...added].map((w) => `${w}\0`).join(''), 'utf8');
  const length = Buffer.alloc(4);
  length.writeInt32LE(strings.length);
  return Buffer.concat([head, unigrams, ngrams, length, strings]);
}

/** The bigram entry "u y": under unigram node y (entries next1[y] to next1[y + 1], sorted by word), the entry whose word is u, else −1. */
function bigramEntry(next1: Uint32Array, bWord: Uint32Array, u: number, y: number): number {
  let lo = next1[y]!;
  let hi = next1[y + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bWord[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return lo < next1[y + 1]! && bWord[lo] === u ? lo : -1;
}

/**
 * The model with the bias applied, as the bytes of a new binary trie file.
 *
 * The trie stores n-grams reversed: a unigram node x holds the bigrams
 * "y x" (P(x | y) and the backoff of history "y x"), and a bigram entry
 * "y x" holds the trigrams "u y x" (P(x | u y)). Every n-gram that predicts
 * a favoured word x therefore sits in x's subtree.
 *
 * For every history h (a word, or two): within the mass h gives its explicit
 * followers, favoured words get `boost` times the share of the others, and
 * the explicit mass stays what it was; the favoured words h reaches only by
 * backing off gain through the lower order, which is boosted the same way.
 * Then each backoff weight is recomputed from the stored probabilities so
 * each history's distribution sums to one: bow(h) = (1 − Σ P'(x | h)) /
 * (1 − Σ P'(x | h′)) over the explicit followers x. Unigrams: favoured ones
 * ×boost (at least `floor`), missing ones added at `floor`, all divided by
 * their sum.
 */
export function biasTrieModel(model: TrieLanguageModel, bias: VocabularyBias): Buffer {
  const { bytes, counts } = model;
  const n = counts[0]!;
  const bigrams = counts[1]!;
  const trigrams = counts[2]!;
  const favoured = new Set<number>();
  const added: string[] = [];
  for (const w of new Set(bias.words)) {
    if (w === '' || w.startsWith('<')) continue;
    const i = model.index.get(w);
    if (i === undefined) added.push(w);
    else favoured.add(i);
  }
  const total = n + added.length;
  if (requiredBits(total) !== requiredBits(n)) throw new Error('too many new words for the model’s word-id width');
  const pk = packing(counts);
  const ngrams = Buffer.from(bytes.subarray(model.ngramOffset, model.ngramOffset + model.ngramBytes));
  const quantOffset = HEADER.length + 1 + 4 * model.order + 4;
  const table = (i: number) => {
    const out = new Float32Array(1 << QUANT_BITS);
    for (let k = 0; k < out.length; k++) out[k] = bytes.readFloatLE(quantOffset + (i * (1 << QUANT_BITS) + k) * 4);
    return out;
  };
  const bigramProbBins = table(0);
  const bigramBackoffBins = table(1);
  const trigramProbBins = table(2);

  // ── Unigrams ──
  const { p1, bo1, next1 } = biasedUnigrams(model, favoured, added, bias);

  // ── Bigrams "y x", stored under x ──
  const bWord = new Uint32Array(bigrams + 1);
  const bEnd = new Uint32Array(bigrams + 1); // x of each entry
  const p2 = new Float64Array(bigrams);
  const bNext = new Uint32Array(bigrams + 1);
  for (let x = 0; x < n; x++) for (let e = next1[x]!; e < next1[x + 1]!; e++) bEnd[e] = x;
  for (let e = 0; e <= bigrams; e++) {
    const bit = e * pk.bigramBits;
    bWord[e] = readBits(ngrams, bit, pk.wordBits);
    if (e < bigrams) p2[e] = toProb(bigramProbBins[readBits(ngrams, bit + pk.wordBits + QUANT_BITS, QUANT_BITS)]!);
    bNext[e] = readBits(ngrams, bit + pk.wordBits + 2 * QUANT_BITS, requiredBits(trigrams));
  }
  // Per history y: explicit mass of favoured and other followers, then the factor keeping their sum.
  const favouredMass = new Float64Array(n);
  const otherMass = new Float64Array(n);
  for (let e = 0; e < bigrams; e++) {
    const y = bWord[e]!;
    if (favoured.has(bEnd[e]!)) favouredMass[y] = favouredMass[y]! + p2[e]!;
    else otherMass[y] = otherMass[y]! + p2[e]!;
  }
  const scale = (fav: number, other: number) => (fav === 0 ? 1 : (fav + other) / (fav * bias.boost + other));
  const p2New = new Float64Array(bigrams);
  const lower1 = new Float64Array(n);
  for (let e = 0; e < bigrams; e++) {
    const y = bWord[e]!;
    const x = bEnd[e]!;
    p2New[e] = p2[e]! * (favoured.has(x) ? bias.boost : 1) * scale(favouredMass[y]!, otherMass[y]!);
    lower1[y] = lower1[y]! + p1[x]!;
  }
  for (let y = 0; y < n; y++) {
    const left = 1 - favouredMass[y]! - otherMass[y]!;
    if (lower1[y] === 0 && left === 1) continue; // no explicit followers
    if (left > 0 && lower1[y]! < 1) bo1[y] = toLog(left / (1 - lower1[y]!));
  }

  // ── Trigrams "u y x", stored under bigram entry "y x" ──
  const tHistory = new Int32Array(trigrams);
  const tParent = new Uint32Array(trigrams);
  const p3 = new Float64Array(trigrams);
  const favouredMass2 = new Float64Array(bigrams);
  const otherMass2 = new Float64Array(bigrams);
  for (let e = 0; e < bigrams; e++) {
    const y = bWord[e]!;
    const x = bEnd[e]!;
    for (let t = bNext[e]!; t < bNext[e + 1]!; t++) {
      const bit = pk.trigramStart + t * pk.trigramBits;
      const u = readBits(ngrams, bit, pk.wordBits);
      p3[t] = toProb(trigramProbBins[readBits(ngrams, bit + pk.wordBits, QUANT_BITS)]!);
      tParent[t] = e;
      const h = bigramEntry(next1, bWord, u, y);
      tHistory[t] = h;
      if (h < 0) continue;
      if (favoured.has(x)) favouredMass2[h] = favouredMass2[h]! + p3[t]!;
      else otherMass2[h] = otherMass2[h]! + p3[t]!;
    }
  }
  const lower2 = new Float64Array(bigrams);
  for (let t = 0; t < trigrams; t++) {
    const h = tHistory[t]!;
    if (h < 0) continue;
    const e = tParent[t]!;
    const x = bEnd[e]!;
    const factor = (favoured.has(x) ? bias.boost : 1) * scale(favouredMass2[h]!, otherMass2[h]!);
    if (factor !== 1) {
      writeBits(
        ngrams,
        pk.trigramStart + t * pk.trigramBits + pk.wordBits,
        QUANT_BITS,
        nearestBin(trigramProbBins, toLog(p3[t]! * factor)),
      );
    }
    lower2[h] = lower2[h]! + p2New[e]!;
  }
  for (let e = 0; e < bigrams; e++) {
    const bit = e * pk.bigramBits + pk.wordBits;
    if (p2New[e] !== p2[e]) writeBits(ngrams, bit + QUANT_BITS, QUANT_BITS, nearestBin(bigramProbBins, toLog(p2New[e]!)));
    const left = 1 - favouredMass2[e]! - otherMass2[e]!;
    if (lower2[e]! > 0 && left > 0 && lower2[e]! < 1)
      writeBits(ngrams, bit, QUANT_BITS, nearestBin(bigramBackoffBins, toLog(left / (1 - lower2[e]!))));
  }

  return assemble(model, added, { p1, bo1, next1 }, ngrams);
}

/**
 * How a one-word history spreads its probability (tests, measurements): the
 * mass of its explicit followers, their unigram mass, and its backoff weight;
 * explicit + backoff × (1 − lower) is the sum of its distribution.
 */
export function historyMass(
  model: TrieLanguageModel,
  word: string,
  favoured: readonly string[] = [],
): { explicit: number; lower: number; backoff: number; favoured: number } | null {
  const y = model.index.get(word);
  if (y === undefined) return null;
  const { bytes, counts } = model;
  const pk = packing(counts);
  const quantOffset = HEADER.length + 1 + 4 * model.order + 4;
  const favouredIds = new Set(favoured.map((w) => model.index.get(w)));
  let explicit = 0;
  let lower = 0;
  let favouredMass = 0;
  let e = 0;
  for (let x = 0; x < counts[0]!; x++) {
    const end = bytes.readUInt32LE(model.unigramOffset + 12 * (x + 1) + 8);
    for (; e < end; e++) {
      const bit = e * pk.bigramBits;
      if (readBits(bytes.subarray(model.ngramOffset), bit, pk.wordBits) !== y) continue;
      const code = readBits(bytes.subarray(model.ngramOffset), bit + pk.wordBits + QUANT_BITS, QUANT_BITS);
      const p = toProb(bytes.readFloatLE(quantOffset + code * 4));
      explicit += p;
      if (favouredIds.has(x)) favouredMass += p;
      lower += toProb(bytes.readFloatLE(model.unigramOffset + 12 * x));
    }
  }
  return { explicit, lower, backoff: toProb(bytes.readFloatLE(model.unigramOffset + 12 * y + 4)), favoured: favouredMass };
}

/** The unigram probability of a word in the model (tests, measurements); null for a word it lacks. */
export function unigramProbability(model: TrieLanguageModel, word: string): number | null {
  const i = model.index.get(word);
  return i === undefined ? null : toProb(model.bytes.readFloatLE(model.unigramOffset + 12 * i));
}
