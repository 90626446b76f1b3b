/**
 * The language model adapted to a request's vocabulary (decision 032): which
 * words to favour, and the adapted trigram model and dictionary kept on disk,
 * written once per model file and configuration in a cache folder and reused
 * by every later run with the same words. server/pipeline/lm-bias.ts
 * computes the model itself.
 *
 * Building it costs seconds of CPU, so the recognizer is given the builder:
 * the gateway's composition root hands it the one that runs on the
 * pipeline's worker thread (decisions 035 and 087); anything else (tests,
 * benchmarks) builds in place. The adapter never imports the pipeline's
 * worker, and the worker imports no adapter: both import
 * server/pipeline/lm-bias.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isFile } from '../fs-probe.ts';
import { CancelledError, type RecognitionOptions, type StageControl } from '../../pipeline/types.ts';
import { biasTrieModel, readTrieModel, unigramProbability, type TrieLanguageModel } from '../../pipeline/lm-bias.ts';
import { dictionaryKey, loadDictionary, pronounce, tokenize } from './pronunciations.ts';

/** A word the adapted model favours: its model/dictionary key, how the user wrote it, its phones when the dictionary lacks it. */
export interface BiasWord {
  key: string;
  display: string;
  pronunciation: string | null;
}

/** The favoured words (dictionary keys) and how strongly: what the adapted model is built from. */
interface LmBiasRequest {
  words: readonly string[];
  boost: number;
  floor: number;
}

/** Builds the adapted model's bytes from the stock model at `lmPath`. */
export type BiasedModelBuilder = (lmPath: string, bias: LmBiasRequest, control: StageControl) => Promise<Buffer>;

/**
 * Measured on natural-voice meetings (decision 032): a favoured word's
 * unigram probability is multiplied by this…
 */
export const LM_BIAS_BOOST = 30;
/** …and raised to at least this (also the probability of a word the model lacks). */
export const LM_BIAS_FLOOR = 1e-4;
/** Words of the prompt more frequent than this are everyday words, not worth favouring. */
const PROMPT_COMMON_WORD = 1e-3;
/** Changes when the adaptation changes, so cached models of an older one are not used. */
const LM_BIAS_VERSION = 2;
/** Adapted models kept on disk (each about the size of the stock model). */
const LM_CACHE_KEEP = 4;

const trieModels = new Map<string, Promise<TrieLanguageModel | null>>();

/** The stock model's layout, read once per process; null when it is not a trigram trie. */
function loadTrieModel(path: string): Promise<TrieLanguageModel | null> {
  let model = trieModels.get(path);
  if (model === undefined) {
    model = Promise.resolve().then(() => {
      try {
        return readTrieModel(path);
      } catch {
        return null;
      }
    });
    trieModels.set(path, model);
  }
  return model;
}

/** Keeps the `keep` most recently used adapted models, deleting the rest. */
async function pruneCache(dir: string, keep: number): Promise<void> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.lm.bin'));
  const dated = files.map((f) => ({ f, t: statSync(join(dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 })).sort((a, b) => b.t - a.t);
  for (const { f } of dated.slice(Math.max(0, keep))) {
    const base = f.slice(0, -'.lm.bin'.length);
    await rm(join(dir, f), { force: true });
    await rm(join(dir, `${base}.dict`), { force: true });
  }
}

/** Builds the adapted model on the calling thread (tests, benchmarks; the gateway passes its worker's). */
export const buildBiasedModelInPlace: BiasedModelBuilder = async (lmPath, bias) => {
  const lm = await loadTrieModel(lmPath);
  if (lm === null) throw new Error(`${lmPath} is not a trigram trie`);
  return biasTrieModel(lm, { words: bias.words, boost: bias.boost, floor: bias.floor });
};

/**
 * The words the adapted model favours: every word of the custom words, and
 * the words of the prompt the stock model finds rare (names and jargon, not
 * "the" or "about"), each with a pronunciation when the dictionary lacks it.
 */
export async function lmVocabulary(
  model: { lm: string; dict: string },
  options: RecognitionOptions,
  findEspeak: () => Promise<string | null>,
  control: StageControl,
): Promise<BiasWord[]> {
  const dictionary = loadDictionary(model.dict);
  const lm = await loadTrieModel(model.lm);
  const entries = new Map<string, string>(); // key → display form
  for (const source of options.customWords) for (const t of tokenize(source)) entries.set(dictionaryKey(t), t);
  for (const t of tokenize(options.initialPrompt)) {
    const key = dictionaryKey(t);
    if (entries.has(key) || !/\p{L}/u.test(t)) continue;
    const p = lm === null ? null : unigramProbability(lm, key);
    if (p === null || p < PROMPT_COMMON_WORD) entries.set(key, t);
  }
  const missing = [...entries].filter(([key]) => !dictionary.has(key));
  const derived = await pronounce(missing, findEspeak, control);
  return [...entries]
    .map(([key, display]) => ({ key, display, pronunciation: dictionary.has(key) ? null : (derived.get(key) ?? '') }))
    .filter((w) => w.pronunciation !== '');
}

/**
 * The stock model with the vocabulary favoured, and the dictionary with the
 * words it lacks, written once per model file and configuration into
 * `cacheDir`. A model that cannot be adapted (not a trigram trie, or the
 * builder fails) decodes unchanged.
 */
export async function adaptedModel(
  model: { lm: string; dict: string },
  vocabulary: readonly BiasWord[],
  settings: { cacheDir: string; lmBias: { boost: number; floor: number }; build: BiasedModelBuilder },
  control: StageControl,
): Promise<{ lm: string; dict: string }> {
  const stock = { lm: model.lm, dict: model.dict };
  const lm = await loadTrieModel(model.lm);
  if (lm === null) return stock;
  const words = vocabulary.map((v) => v.key).sort();
  const extra = vocabulary
    .filter((v) => v.pronunciation !== null)
    .map((v) => `${v.key} ${v.pronunciation}\n`)
    .sort()
    .join('');
  const lmStat = statSync(model.lm);
  const key = createHash('sha256')
    .update(JSON.stringify([LM_BIAS_VERSION, model.lm, lmStat.size, lmStat.mtimeMs, model.dict, words, extra, settings.lmBias]))
    .digest('hex')
    .slice(0, 24);
  const lmFile = join(settings.cacheDir, `${key}.lm.bin`);
  const dictFile = join(settings.cacheDir, `${key}.dict`);
  if (isFile(lmFile) && isFile(dictFile)) {
    // Marks it recently used, so pruning keeps it.
    const now = new Date();
    await utimes(lmFile, now, now).catch(() => undefined);
    return { lm: lmFile, dict: dictFile };
  }
  await control.checkpoint();
  let bytes: Buffer;
  try {
    bytes = await settings.build(model.lm, { words, ...settings.lmBias }, control);
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    return stock;
  }
  await mkdir(settings.cacheDir, { recursive: true, mode: 0o700 });
  await pruneCache(settings.cacheDir, LM_CACHE_KEEP - 1);
  // Written under temporary names and renamed, so a concurrent run never reads half a file.
  const suffix = `.${process.pid}.${Date.now()}.tmp`;
  await writeFile(lmFile + suffix, bytes);
  await writeFile(dictFile + suffix, Buffer.concat([readFileSync(model.dict), Buffer.from(extra)]));
  await rename(dictFile + suffix, dictFile);
  await rename(lmFile + suffix, lmFile);
  return { lm: lmFile, dict: dictFile };
}
