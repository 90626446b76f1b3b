/**
 * Speech recognition with CMU PocketSphinx, the system package (Debian's
 * pocketsphinx 0.8+5prealpha), through its `pocketsphinx_continuous` tool.
 * Decisions: docs/decisions/011-recognizers-and-summarizers.md.
 *
 * One transcription is one language-model pass (`-lm`, `-time yes`) over one
 * 16-bit WAV file: every word with its start, end and lattice posterior.
 *
 * Vocabulary bias (decision 032): with custom words or an initial prompt, the
 * pass decodes with the stock trigram model adapted to them (lm-bias.ts: the
 * words' unigram probabilities raised, renormalized, backoffs recomputed,
 * words the model lacks added) and the stock dictionary plus pronunciations
 * for the words it lacks (espeak-ng's phonemes mapped to CMU phones, or
 * letter rules when espeak-ng is absent). The adapted model is written once
 * per model file and configuration and kept in a cache folder.
 *
 * The older design, a keyword-spotting pass (`-kws`) whose detections replace
 * the words of the language-model pass they cover, stays available
 * (`vocabularyBias: "kws"` or `"lm+kws"`) for measurements; it helped less.
 *
 * The file holds only the speech regions of the voice-activity stage, with a
 * second of near-silence between them, so music and long silences cost no
 * decoding time and produce no invented words; times are mapped back.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants, readFileSync, statSync } from 'node:fs';
import { isDirectory, isFile, safeReaddir } from '../fs-probe.ts';
import { access, mkdir, mkdtemp, open, readdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { wavHeader } from '../../audio/wav.ts';
import { readTrieModel, unigramProbability, type TrieLanguageModel } from './lm-bias.ts';
import { biasTrieModelOffThread } from '../../pipeline/off-thread.ts';
import {
  CancelledError,
  PIPELINE_SAMPLE_RATE,
  StageError,
  type PcmAudio,
  type RecognitionOptions,
  type RecognizedWord,
  type Recognizer,
  type SpeechRegion,
  type StageControl,
} from '../../pipeline/types.ts';

export const DEFAULT_POCKETSPHINX_MODEL_ROOT = '/usr/share/pocketsphinx/model';
export const POCKETSPHINX_BINARY = 'pocketsphinx_continuous';

export interface PocketSphinxOptions {
  /** The pocketsphinx_continuous executable: a name looked up on PATH, or a path. */
  binary?: string;
  /** Where the models live, one directory per language (en-us/…). */
  modelRoot?: string;
  /** espeak-ng, for pronunciations of custom words the dictionary lacks; letter rules when absent. */
  espeakBinary?: string;
  /**
   * How custom words and the initial prompt bias recognition (decision 032):
   * "lm" (default) decodes with the language model adapted to them, "kws"
   * adds the keyword-spotting pass to the stock model, "lm+kws" both, "off"
   * neither. `true`/`false` stand for the default and "off".
   */
  vocabularyBias?: VocabularyBiasMode | boolean;
  /** The adapted model's unigram boost and floor (measurements); decision 032's values by default. */
  lmBias?: { boost: number; floor: number };
  /** Where adapted language models are kept between runs, keyed by model file and configuration. */
  cacheDir?: string;
  /** Parent of the per-run scratch directory. */
  tmpDir?: string;
  /** PATH used to find the binaries; default process.env.PATH. */
  path?: string;
  /** More pocketsphinx_continuous options for the language-model pass (measurements: bench/quality-real-speech.ts). */
  extraArgs?: readonly string[];
}

export const VOCABULARY_BIAS_MODES = ['lm', 'kws', 'lm+kws', 'off'] as const;
export type VocabularyBiasMode = (typeof VOCABULARY_BIAS_MODES)[number];

// ── Models ───────────────────────────────────────────────────────────────

export interface PocketSphinxModel {
  /** As listed by GET /v1/models: pocketsphinx-<dir>. */
  name: string;
  /** Acoustic model directory (holds mdef). */
  hmm: string;
  /** N-gram language model. */
  lm: string;
  /** Pronunciation dictionary. */
  dict: string;
}

/** Every complete model (acoustic model + language model + dictionary) under the root. */
export function listPocketSphinxModels(root: string): PocketSphinxModel[] {
  const models: PocketSphinxModel[] = [];
  for (const lang of safeReaddir(root)) {
    const dir = join(root, lang);
    if (!isDirectory(dir)) continue;
    const entries = safeReaddir(dir);
    const hmmDir = entries.find((e) => isDirectory(join(dir, e)) && isFile(join(dir, e, 'mdef')));
    // The phonetic LM (en-us-phone.lm.bin) is for phoneme decoding, not words.
    const lms = entries.filter((e) => /\.(lm\.bin|lm|lm\.dmp|arpa)$/i.test(e) && !e.includes('phone'));
    const lm = lms.find((e) => e.startsWith(lang)) ?? lms[0];
    const dicts = entries.filter((e) => e.endsWith('.dict'));
    const dict = dicts.find((e) => e.includes(lang)) ?? dicts[0];
    if (hmmDir === undefined || lm === undefined || dict === undefined) continue;
    models.push({ name: `pocketsphinx-${lang}`, hmm: join(dir, hmmDir), lm: join(dir, lm), dict: join(dir, dict) });
  }
  return models;
}

/**
 * The model for a request: the named one when `model` is given, otherwise the
 * first whose directory matches the language ("en" and "auto" take any English
 * model). null when there is none.
 */
export function selectPocketSphinxModel(
  models: readonly PocketSphinxModel[],
  model: string | undefined,
  language: string,
): PocketSphinxModel | null {
  if (model !== undefined && model !== '') return models.find((m) => m.name === model) ?? null;
  const lang = language.toLowerCase().replace('_', '-');
  const dirOf = (m: PocketSphinxModel) => m.name.slice('pocketsphinx-'.length).toLowerCase();
  if (lang === '' || lang === 'auto') return models.find((m) => dirOf(m).startsWith('en')) ?? models[0] ?? null;
  return (
    models.find((m) => dirOf(m) === lang) ??
    models.find((m) => dirOf(m).startsWith(`${lang.split('-')[0]}-`) || dirOf(m) === lang.split('-')[0]) ??
    null
  );
}

// ── The recognizer ───────────────────────────────────────────────────────

export class PocketSphinxRecognizer implements Recognizer {
  readonly name = 'pocketsphinx';
  readonly #binary: string;
  readonly #modelRoot: string;
  readonly #espeak: string;
  readonly #bias: VocabularyBiasMode;
  readonly #lmBias: { boost: number; floor: number };
  readonly #cacheDir: string;
  readonly #tmpDir: string;
  readonly #path: string;
  readonly #extraArgs: readonly string[];

  constructor(opts: PocketSphinxOptions = {}) {
    this.#binary = opts.binary ?? POCKETSPHINX_BINARY;
    this.#modelRoot = opts.modelRoot ?? DEFAULT_POCKETSPHINX_MODEL_ROOT;
    this.#espeak = opts.espeakBinary ?? 'espeak-ng';
    const bias = opts.vocabularyBias ?? 'lm';
    this.#bias = bias === true ? 'lm' : bias === false ? 'off' : bias;
    this.#lmBias = opts.lmBias ?? { boost: LM_BIAS_BOOST, floor: LM_BIAS_FLOOR };
    this.#tmpDir = opts.tmpDir ?? tmpdir();
    this.#cacheDir = opts.cacheDir ?? join(this.#tmpDir, 'mas-pocketsphinx-models');
    this.#path = opts.path ?? process.env.PATH ?? '';
    this.#extraArgs = opts.extraArgs ?? [];
  }

  async available(): Promise<boolean> {
    return (await findExecutable(this.#binary, this.#path)) !== null && listPocketSphinxModels(this.#modelRoot).length > 0;
  }

  async transcribe(
    audio: PcmAudio,
    regions: readonly SpeechRegion[],
    options: RecognitionOptions,
    control: StageControl,
  ): Promise<RecognizedWord[]> {
    if (control.signal.aborted) throw new CancelledError();
    const binary = await findExecutable(this.#binary, this.#path);
    if (binary === null) {
      throw new StageError(`${this.#binary} was not found: install the pocketsphinx package`, { retryable: true, dependencyMissing: true });
    }
    const model = selectPocketSphinxModel(listPocketSphinxModels(this.#modelRoot), options.model, options.language);
    if (model === null) {
      const what =
        options.model !== undefined && options.model !== '' ? `model ${options.model}` : `model for language "${options.language}"`;
      throw new StageError(`no pocketsphinx ${what} is installed under ${this.#modelRoot}`, { retryable: true, dependencyMissing: true });
    }

    const plan = planDecodeSpans(regions, audio.durationSeconds);
    if (plan.spans.length === 0) return [];
    // Spotting prints its detections newest first: only ever report forward progress.
    let reported = 0;
    const progress = (fraction: number) => {
      if (fraction > reported) control.progress((reported = fraction));
    };
    const dir = await mkdtemp(join(this.#tmpDir, 'mas-pocketsphinx-'));
    try {
      const wav = join(dir, 'speech.wav');
      await writeSpansAsWav(audio, plan, wav);
      await control.checkpoint();

      const spotting = this.#bias === 'kws' || this.#bias === 'lm+kws';
      const adapting = this.#bias === 'lm' || this.#bias === 'lm+kws';
      const phrases = spotting ? await this.#customPhrases(model, options, control) : [];
      const vocabulary = adapting ? await this.#lmVocabulary(model, options, control) : [];
      const decodeWith = vocabulary.length > 0 ? await this.#adaptedModel(model, vocabulary, control) : { lm: model.lm, dict: model.dict };
      // Keyword spotting costs about a tenth of the language-model pass.
      const lmShare = phrases.length > 0 ? 0.9 : 1;
      const common = ['-infile', wav, '-hmm', model.hmm, '-time', 'yes'];

      const lmWords: FileWord[] = [];
      await runPocketSphinx(
        binary,
        [...common, '-lm', decodeWith.lm, '-dict', decodeWith.dict, ...this.#extraArgs, '-logfn', join(dir, 'lm.log')],
        join(dir, 'lm.log'),
        control,
        (line) => {
          const word = parseTimedLine(line);
          if (word === null) return;
          progress(lmShare * Math.min(1, word.end / plan.fileDuration));
          if (isSpokenWord(word.text)) lmWords.push({ ...word, text: stripAlternate(word.text) });
        },
      );
      progress(lmShare);

      let fileWords = lmWords;
      if (phrases.length > 0) {
        await control.checkpoint();
        const kws = join(dir, 'keywords.txt');
        const dict = join(dir, 'keywords.dict');
        await writeFile(kws, phrases.map((p) => `${p.keys.join(' ')} /1e-${kwsThresholdExponent(p.phones)}/\n`).join(''));
        await writeFile(dict, keywordDictionary(phrases));
        const detections: Detection[] = [];
        await runPocketSphinx(
          binary,
          [...common, '-kws', kws, '-dict', dict, '-logfn', join(dir, 'kws.log')],
          join(dir, 'kws.log'),
          control,
          (line) => {
            const hit = parseTimedLine(line);
            if (hit === null) return;
            progress(lmShare + (1 - lmShare) * Math.min(1, hit.end / plan.fileDuration));
            const phrase = phrases.find((p) => p.keys.join(' ') === hit.text.trim());
            if (phrase !== undefined) detections.push({ phrase, start: hit.start, end: hit.end, confidence: hit.confidence });
          },
        );
        fileWords = mergeDetections(lmWords, detections, phrases.length);
      }
      progress(1);

      const display = displayForms(phrases, options.customWords);
      for (const v of vocabulary) if (!display.has(v.key)) display.set(v.key, v.display);
      return mapToSourceTime(fileWords, plan, audio.durationSeconds).map((w) => ({ ...w, text: displayText(w.text, display) }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * The words the adapted model favours: every word of the custom words, and
   * the words of the prompt the stock model finds rare (names and jargon, not
   * "the" or "about"), each with a pronunciation when the dictionary lacks it.
   */
  async #lmVocabulary(model: PocketSphinxModel, options: RecognitionOptions, control: StageControl): Promise<BiasWord[]> {
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
    const derived = await this.#pronounce(missing, control);
    return [...entries]
      .map(([key, display]) => ({ key, display, pronunciation: dictionary.has(key) ? null : (derived.get(key) ?? '') }))
      .filter((w) => w.pronunciation !== '');
  }

  /**
   * The stock model with the vocabulary favoured, and the dictionary with the
   * words it lacks, written once per model file and configuration. A model
   * that cannot be adapted (not a trigram trie) decodes unchanged.
   */
  async #adaptedModel(
    model: PocketSphinxModel,
    vocabulary: readonly BiasWord[],
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
      .update(JSON.stringify([LM_BIAS_VERSION, model.lm, lmStat.size, lmStat.mtimeMs, model.dict, words, extra, this.#lmBias]))
      .digest('hex')
      .slice(0, 24);
    const lmFile = join(this.#cacheDir, `${key}.lm.bin`);
    const dictFile = join(this.#cacheDir, `${key}.dict`);
    if (isFile(lmFile) && isFile(dictFile)) {
      // Marks it recently used, so pruning keeps it.
      const now = new Date();
      await utimes(lmFile, now, now).catch(() => undefined);
      return { lm: lmFile, dict: dictFile };
    }
    await control.checkpoint();
    let bytes: Buffer;
    try {
      // Seconds of CPU: built on the pipeline's worker thread, so the gateway serves HTTP meanwhile (decision 035).
      bytes = await biasTrieModelOffThread(model.lm, { words, ...this.#lmBias }, control);
    } catch (err) {
      if (err instanceof CancelledError) throw err;
      return stock;
    }
    await mkdir(this.#cacheDir, { recursive: true, mode: 0o700 });
    await pruneCache(this.#cacheDir, LM_CACHE_KEEP - 1);
    // Written under temporary names and renamed, so a concurrent run never reads half a file.
    const suffix = `.${process.pid}.${Date.now()}.tmp`;
    await writeFile(lmFile + suffix, bytes);
    await writeFile(dictFile + suffix, Buffer.concat([readFileSync(model.dict), Buffer.from(extra)]));
    await rename(dictFile + suffix, dictFile);
    await rename(lmFile + suffix, lmFile);
    return { lm: lmFile, dict: dictFile };
  }

  /** The phrases to spot: the custom words, and the words of the prompt the dictionary lacks. */
  async #customPhrases(model: PocketSphinxModel, options: RecognitionOptions, control: StageControl): Promise<SpotPhrase[]> {
    const dictionary = loadDictionary(model.dict);
    const sources = [...options.customWords];
    for (const token of tokenize(options.initialPrompt)) {
      // Names and jargon, not numbers ("2024" would be spotted as a four-word phrase).
      if (/\p{L}/u.test(token) && !dictionary.has(token.toLowerCase())) sources.push(token);
    }
    const phrases: SpotPhrase[] = [];
    const seen = new Set<string>();
    const missing = new Map<string, string>(); // dictionary key → token to pronounce
    for (const source of sources) {
      const tokens = tokenize(source);
      if (tokens.length === 0) continue;
      const keys = tokens.map((t) => dictionaryKey(t));
      const id = keys.join(' ');
      if (seen.has(id)) continue;
      seen.add(id);
      phrases.push({ display: tokens, keys, phones: 0, pronunciations: [] });
      tokens.forEach((t, i) => {
        const key = keys[i]!;
        if (!dictionary.has(key)) missing.set(key, t);
      });
    }
    const derived = await this.#pronounce([...missing.entries()], control);
    return phrases
      .map((p) => {
        const pronunciations = p.keys.map((k) => dictionary.get(k) ?? derived.get(k) ?? '');
        return { ...p, pronunciations, phones: pronunciations.join(' ').split(' ').filter(Boolean).length };
      })
      .filter((p) => p.pronunciations.every((pr) => pr !== ''));
  }

  /** CMU pronunciations for words the dictionary lacks: espeak-ng when present, letter rules otherwise. */
  async #pronounce(words: [key: string, token: string][], control: StageControl): Promise<Map<string, string>> {
    const result = new Map<string, string>();
    const todo = words.filter(([key]) => {
      const cached = pronunciationCache.get(key);
      if (cached !== undefined) result.set(key, cached);
      return cached === undefined;
    });
    if (todo.length === 0) return result;
    const espeak = await findExecutable(this.#espeak, this.#path);
    const lines =
      espeak === null
        ? null
        : await espeakPhonemes(
            espeak,
            todo.map(([, token]) => token),
            control,
          );
    if (control.signal.aborted) throw new CancelledError();
    todo.forEach(([key, token], i) => {
      const fromEspeak = lines === null ? '' : espeakToCmu(lines[i] ?? '');
      const phones = fromEspeak !== '' ? fromEspeak : lettersToCmu(token);
      if (phones === '') return;
      pronunciationCache.set(key, phones);
      result.set(key, phones);
    });
    return result;
  }
}

// ── The adapted language model ───────────────────────────────────────────

/** A word the adapted model favours: its model/dictionary key, how the user wrote it, its phones when the dictionary lacks it. */
interface BiasWord {
  key: string;
  display: string;
  pronunciation: string | null;
}

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

// ── Running the tool ─────────────────────────────────────────────────────

async function runPocketSphinx(
  binary: string,
  args: string[],
  logFile: string,
  control: StageControl,
  onLine: (line: string) => void,
): Promise<void> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const untrack = control.track(child);
  const kill = () => child.kill('SIGKILL'); // SIGKILL also ends a paused (SIGSTOPped) process
  control.signal.addEventListener('abort', kill, { once: true });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  const lines = createInterface({ input: child.stdout });
  lines.on('line', onLine);
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
    if (control.signal.aborted) throw new CancelledError();
    if (exit.code !== 0) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      const detail = lastErrorLine(`${log}\n${stderr}`);
      const how = exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      throw new StageError(`pocketsphinx ${how}${detail === '' ? '' : `: ${detail}`}`, { retryable: true });
    }
  } catch (err) {
    if (control.signal.aborted) throw new CancelledError();
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new StageError(`${binary} was not found: install the pocketsphinx package`, {
        retryable: true,
        dependencyMissing: true,
        cause: err,
      });
    }
    if (err instanceof StageError) throw err;
    throw new StageError(`pocketsphinx could not run: ${(err as Error).message}`, { retryable: true, cause: err });
  } finally {
    control.signal.removeEventListener('abort', kill);
    lines.close();
    untrack();
  }
}

function lastErrorLine(log: string): string {
  const lines = log.split('\n').filter((l) => /ERROR|FATAL/.test(l));
  return (lines.at(-1) ?? '').trim().slice(0, 300);
}

/** A word line of `-time yes` output: "<word> <start> <end> <posterior>" (the word may hold spaces for keyphrases). */
export function parseTimedLine(line: string): FileWord | null {
  const m = /^(.*\S)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$/.exec(line);
  if (m === null) return null;
  const start = Number(m[2]);
  const end = Number(m[3]);
  if (!(end >= start)) return null;
  // The posterior is printed as exp(log posterior): already a probability, only rounding takes it past 1.
  return { text: m[1]!, start, end, confidence: clamp01(Number(m[4])) };
}

/** Silence, noise and hesitation tokens are not words of the transcript. */
export function isSpokenWord(token: string): boolean {
  if (/^[<[+]/.test(token)) return false; // <s>, </s>, <sil>, [NOISE], [BREATH], ++GARBAGE++
  return !HESITATIONS.has(stripAlternate(token));
}

const HESITATIONS = new Set(['uh', 'um', 'uhm', 'er', 'erm', 'hmm', 'mm', 'mhm']);

/** "yesterday(2)" is the second pronunciation of "yesterday". */
export function stripAlternate(token: string): string {
  return token.replace(/\(\d+\)$/, '');
}

// ── Audio layout ─────────────────────────────────────────────────────────

/** One speech region as laid out in the decoded file. */
export interface DecodeSpan {
  sourceStart: number;
  sourceEnd: number;
  fileStart: number;
}

export interface DecodePlan {
  spans: DecodeSpan[];
  fileDuration: number;
}

/** Regions closer than this are decoded as one (a pause inside a sentence). */
const MERGE_GAP_SECONDS = 0.3;
/** Near-silence between regions in the file: long enough for pocketsphinx's own VAD to close the utterance (0.5 s). */
export const SPAN_GAP_SECONDS = 1;
/** When the regions cover nearly everything, the whole recording is decoded unchanged. */
const WHOLE_FILE_COVERAGE = 0.9;

/** Lays the speech regions end to end, with a gap between them; all of it when there are no regions. */
export function planDecodeSpans(regions: readonly SpeechRegion[], duration: number): DecodePlan {
  if (duration <= 0) return { spans: [], fileDuration: 0 };
  const sorted = regions
    .map((r) => ({ start: Math.max(0, r.start), end: Math.min(duration, r.end) }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const r of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && r.start - last.end < MERGE_GAP_SECONDS) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  const covered = merged.reduce((sum, r) => sum + r.end - r.start, 0);
  if (merged.length === 0 || covered >= WHOLE_FILE_COVERAGE * duration) {
    return { spans: [{ sourceStart: 0, sourceEnd: duration, fileStart: 0 }], fileDuration: duration };
  }
  const spans: DecodeSpan[] = [];
  let at = 0;
  for (const r of merged) {
    if (spans.length > 0) at += SPAN_GAP_SECONDS;
    spans.push({ sourceStart: r.start, sourceEnd: r.end, fileStart: at });
    at += r.end - r.start;
  }
  return { spans, fileDuration: at };
}

/** Writes the plan's spans as 16 kHz 16-bit mono WAV, in blocks so long meetings never sit in memory twice. */
export async function writeSpansAsWav(audio: PcmAudio, plan: DecodePlan, file: string): Promise<void> {
  const rate = PIPELINE_SAMPLE_RATE;
  const gapSamples = Math.round(SPAN_GAP_SECONDS * rate);
  const ranges = plan.spans.map(
    (s) => [Math.round(s.sourceStart * rate), Math.min(audio.samples.length, Math.round(s.sourceEnd * rate))] as const,
  );
  const total = ranges.reduce((n, [a, b]) => n + (b - a), 0) + gapSamples * Math.max(0, ranges.length - 1);
  const fh = await open(file, 'w');
  try {
    await fh.write(wavHeader(total * 2));
    let noise = 1;
    const BLOCK = 1 << 16;
    for (let r = 0; r < ranges.length; r++) {
      if (r > 0) {
        // Digital zeros give log(0) energies in the front end; a faint deterministic dither keeps it sane.
        const gap = Buffer.alloc(gapSamples * 2);
        for (let i = 0; i < gapSamples; i++) {
          noise = (noise * 1103515245 + 12345) & 0x7fffffff;
          gap.writeInt16LE((noise % 7) - 3, i * 2);
        }
        await fh.write(gap);
      }
      const [from, to] = ranges[r]!;
      for (let i = from; i < to; i += BLOCK) {
        const end = Math.min(to, i + BLOCK);
        const buf = Buffer.alloc((end - i) * 2);
        for (let j = i; j < end; j++) buf.writeInt16LE(Math.round(Math.max(-1, Math.min(1, audio.samples[j]!)) * 32767), (j - i) * 2);
        await fh.write(buf);
      }
    }
  } finally {
    await fh.close();
  }
}

/** Maps file times back to the recording: each word to the span holding its middle, clamped inside it; times never go backwards. */
export function mapToSourceTime(words: readonly FileWord[], plan: DecodePlan, duration: number): RecognizedWord[] {
  const out: RecognizedWord[] = [];
  let last = 0;
  for (const w of [...words].sort((a, b) => a.start - b.start)) {
    const mid = (w.start + w.end) / 2;
    let span = plan.spans[0]!;
    for (const s of plan.spans) if (s.fileStart <= mid) span = s;
    const shift = span.sourceStart - span.fileStart;
    const start = Math.max(last, Math.min(span.sourceEnd, Math.max(span.sourceStart, w.start + shift)));
    const end = Math.min(duration, Math.max(start, Math.min(span.sourceEnd, w.end + shift)));
    out.push({ text: w.text, start: round3(start), end: round3(end), confidence: w.confidence });
    last = end;
  }
  return out;
}

// ── Vocabulary bias ──────────────────────────────────────────────────────

/** A word with times in the decoded file. */
export interface FileWord {
  text: string;
  start: number;
  end: number;
  confidence: number;
}

interface SpotPhrase {
  /** The tokens as the user wrote them. */
  display: string[];
  /** Their dictionary keys. */
  keys: string[];
  /** One CMU pronunciation per token. */
  pronunciations: string[];
  phones: number;
}

interface Detection {
  phrase: SpotPhrase;
  start: number;
  end: number;
  confidence: number;
}

/**
 * The detection threshold (as 1e-N) for a keyphrase of n phones. Longer
 * phrases accumulate more acoustic mismatch, so they need a lower threshold;
 * 5 per phone was tuned on synthetic speech (decision 011), capped so very
 * short names do not fire on every syllable.
 */
export function kwsThresholdExponent(phones: number): number {
  return Math.max(10, Math.min(50, Math.round(5 * phones)));
}

/** A spotting that lasts less than this per phone is a false alarm on a fragment. */
const MIN_SECONDS_PER_PHONE = 0.045;
/**
 * Spottings scored below this are dropped. The score pocketsphinx prints for a
 * detection sat at 0.82–0.93 for true names and 0.79–0.87 for false alarms on
 * synthetic speech; 0.83 kept most names and dropped most false alarms with a
 * list of up to 16 words (decision 011).
 */
const MIN_SPOT_CONFIDENCE = 0.83;
/**
 * Every listed phrase is one more chance of a false alarm, so the floor rises
 * by this much each time the list doubles beyond 16 phrases: a list of
 * hundreds of words then spots little, rather than sprinkling names all over.
 */
const CONFIDENCE_PER_DOUBLING = 0.01;
/** Pass 1 was sure of these words (duration-weighted posterior): a spotting does not overrule it. */
const SURE_POSTERIOR = 0.9;

export function minSpotConfidence(phraseCount: number): number {
  return MIN_SPOT_CONFIDENCE + CONFIDENCE_PER_DOUBLING * Math.max(0, Math.log2(phraseCount / 16));
}

/**
 * Replaces the language-model words a detection covers (by their middle) with
 * the phrase's words, its duration split by phone count. A detection must
 * cover at least one word (else it is an insertion in silence or noise), must
 * not cover words pass 1 was sure of, must last long enough for its phones
 * and score high enough for the list's size. Overlapping detections: the
 * more confident one wins.
 */
export function mergeDetections(words: readonly FileWord[], detections: readonly Detection[], phraseCount = 1): FileWord[] {
  const floor = minSpotConfidence(phraseCount);
  const covered = (d: Detection) =>
    words.filter((w) => {
      const mid = (w.start + w.end) / 2;
      return mid >= d.start && mid <= d.end;
    });
  const plausible = detections
    .filter((d) => {
      if (d.end - d.start < MIN_SECONDS_PER_PHONE * d.phrase.phones || d.confidence < floor) return false;
      const under = covered(d);
      if (under.length === 0) return false;
      const seconds = under.reduce((n, w) => n + Math.max(0.01, w.end - w.start), 0);
      const sure = under.reduce((n, w) => n + Math.max(0.01, w.end - w.start) * w.confidence, 0) / seconds;
      return sure < SURE_POSTERIOR;
    })
    .sort((a, b) => b.confidence - a.confidence || a.start - b.start);
  const kept: Detection[] = [];
  for (const d of plausible) {
    if (kept.every((k) => d.end <= k.start || d.start >= k.end)) kept.push(d);
  }
  const remaining = words.filter((w) => {
    const mid = (w.start + w.end) / 2;
    return kept.every((d) => mid < d.start || mid > d.end);
  });
  const spotted = kept.flatMap((d) => {
    const counts = d.phrase.pronunciations.map((p) => p.split(' ').length);
    const total = counts.reduce((a, b) => a + b, 0);
    let at = d.start;
    return d.phrase.keys.map((key, i) => {
      const end = i === d.phrase.keys.length - 1 ? d.end : at + ((d.end - d.start) * counts[i]!) / total;
      const word = { text: key, start: round3(at), end: round3(end), confidence: d.confidence };
      at = end;
      return word;
    });
  });
  // Words that straddle a detection's edge are trimmed so times stay in order.
  return [...remaining, ...spotted]
    .sort((a, b) => a.start - b.start)
    .map((w, i, all) => {
      const next = all[i + 1];
      return next !== undefined && w.end > next.start ? { ...w, end: Math.max(w.start, next.start) } : w;
    });
}

/** Words of a custom entry or prompt: letters, digits, inner apostrophes and hyphens. */
export function tokenize(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? []).map((t) => t.replace(/’/g, "'"));
}

/** The dictionary spells words in lower-case ASCII; other words get a stable made-up key. */
export function dictionaryKey(token: string): string {
  const lower = token.toLowerCase();
  if (/^[a-z0-9][a-z0-9'-]*$/.test(lower)) return lower;
  let hash = 0;
  for (const ch of lower) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  return `mas-word-${hash.toString(36)}`;
}

function keywordDictionary(phrases: readonly SpotPhrase[]): string {
  const entries = new Map<string, string>();
  for (const p of phrases) p.keys.forEach((k, i) => entries.set(k, p.pronunciations[i]!));
  return [...entries].map(([k, v]) => `${k} ${v}\n`).join('');
}

/** Recognized (lower-case) word → the spelling the user gave in the custom words or prompt. */
function displayForms(phrases: readonly SpotPhrase[], customWords: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const p of phrases) p.keys.forEach((k, i) => map.set(k, p.display[i]!));
  // Custom words the dictionary already knew are spotted too, but when spotting is off they still get their casing.
  for (const entry of customWords) for (const t of tokenize(entry)) if (!map.has(dictionaryKey(t))) map.set(dictionaryKey(t), t);
  return map;
}

function displayText(word: string, display: Map<string, string>): string {
  const custom = display.get(word);
  if (custom !== undefined) return custom;
  // pocketsphinx's dictionary is lower case; the pronoun is the one word a transcript reader expects capitalised.
  return /^i('(m|ll|ve|d))?$/.test(word) ? `I${word.slice(1)}` : word;
}

// ── Pronunciations ───────────────────────────────────────────────────────

const dictionaryCache = new Map<string, Map<string, string>>();
const pronunciationCache = new Map<string, string>();

/** The model's dictionary, first pronunciation per word (read once per process). */
export function loadDictionary(path: string): Map<string, string> {
  let dict = dictionaryCache.get(path);
  if (dict === undefined) {
    dict = new Map();
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const space = line.indexOf(' ');
      if (space <= 0) continue;
      const word = line.slice(0, space);
      if (word.endsWith(')') || dict.has(word)) continue;
      dict.set(word, line.slice(space + 1).trim());
    }
    dictionaryCache.set(path, dict);
  }
  return dict;
}

/** espeak-ng's phonemes, one line per word ("-x --sep=_": Kirshenbaum-like mnemonics separated by _). */
async function espeakPhonemes(espeak: string, tokens: readonly string[], control: StageControl): Promise<string[] | null> {
  const run = (text: string) =>
    new Promise<string | null>((resolve) => {
      if (control.signal.aborted) {
        resolve(null);
        return;
      }
      const child = spawn(espeak, ['-v', 'en-us', '-q', '-x', '--sep=_', '--stdin'], {
        stdio: ['pipe', 'pipe', 'ignore'],
        signal: control.signal,
      });
      const untrack = control.track(child);
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stdin.on('error', () => undefined); // a killed child closes its stdin under us
      child.once('error', () => resolve(null));
      child.once('close', (code) => {
        untrack();
        resolve(code === 0 ? out : null);
      });
      child.stdin.end(text);
    });
  // A full stop after each word makes each its own clause, so espeak answers one line per word.
  const out = await run(tokens.map((t) => `${t}.\n`).join(''));
  if (out === null) return null;
  const lines = out.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === tokens.length) return lines;
  // Something split a word into clauses: ask word by word.
  const each: string[] = [];
  for (const t of tokens) {
    if (control.signal.aborted) return null;
    each.push(((await run(`${t}.\n`)) ?? '').split('\n').join(' '));
  }
  return each;
}

/**
 * espeak-ng en-us phoneme mnemonics → CMU (ARPAbet) phones, longest match
 * first. Stress marks and syllable marks are dropped; unknown symbols too.
 */
const ESPEAK_TO_CMU: Record<string, string> = {
  // vowels and diphthongs
  a: 'AE',
  'a#': 'AH',
  aa: 'AE',
  'A:': 'AA',
  A: 'AA',
  'A@': 'AA R',
  'A~': 'AA N',
  aI: 'AY',
  'aI@': 'AY ER',
  aI3: 'AY ER',
  aU: 'AW',
  'aU@': 'AW ER',
  '@': 'AH',
  '@2': 'AH',
  '@5': 'AH',
  '@L': 'AH L',
  '@-': 'AH',
  '3': 'ER',
  '3:': 'ER',
  '@r': 'ER',
  E: 'EH',
  E2: 'EH',
  'E@': 'EH R',
  'e@': 'EH R',
  eI: 'EY',
  e: 'EH',
  i: 'IY',
  'i:': 'IY',
  'i@': 'IY AH',
  'i@3': 'IH R',
  I: 'IH',
  I2: 'IH',
  'I#': 'IH',
  'i#': 'IH',
  '0': 'AA',
  '0@': 'AA R',
  O: 'AO',
  'O:': 'AO',
  O2: 'AO',
  'O@': 'AO R',
  'o@': 'AO R',
  OI: 'OY',
  o: 'OW',
  oU: 'OW',
  'oU#': 'OW',
  U: 'UH',
  'U@': 'UH R',
  'u:': 'UW',
  'u@': 'UH R',
  u: 'UW',
  V: 'AH',
  // consonants
  p: 'P',
  b: 'B',
  t: 'T',
  't#': 'T',
  t2: 'T',
  d: 'D',
  'd#': 'D',
  k: 'K',
  g: 'G',
  x: 'K',
  f: 'F',
  v: 'V',
  T: 'TH',
  D: 'DH',
  s: 'S',
  z: 'Z',
  S: 'SH',
  Z: 'ZH',
  h: 'HH',
  tS: 'CH',
  dZ: 'JH',
  m: 'M',
  n: 'N',
  N: 'NG',
  l: 'L',
  r: 'R',
  w: 'W',
  j: 'Y',
  'n-': 'AH N',
  'm-': 'AH M',
  'l-': 'AH L',
  'r-': 'ER',
  W: 'W',
  C: 'HH',
  '?': '',
};

export function espeakToCmu(line: string): string {
  const phones: string[] = [];
  for (const raw of line.trim().split(/[_\s]+/)) {
    const sym = raw.replace(/[',%=;]/g, '');
    if (sym === '') continue;
    const mapped = ESPEAK_TO_CMU[sym] ?? ESPEAK_TO_CMU[sym.replace(/[0-9#]+$/, '')];
    if (mapped !== undefined && mapped !== '') phones.push(mapped);
  }
  return phones.join(' ');
}

/** Letter groups → CMU phones, longest first: the fallback when espeak-ng is missing. Rough, but names get a path. */
const LETTER_RULES: [string, string][] = [
  ['tch', 'CH'],
  ['sch', 'SH'],
  ['igh', 'AY'],
  ['ch', 'CH'],
  ['sh', 'SH'],
  ['th', 'TH'],
  ['ph', 'F'],
  ['wh', 'W'],
  ['ck', 'K'],
  ['ng', 'NG'],
  ['qu', 'K W'],
  ['kn', 'N'],
  ['ee', 'IY'],
  ['ea', 'IY'],
  ['oo', 'UW'],
  ['ou', 'AW'],
  ['ow', 'OW'],
  ['oa', 'OW'],
  ['ai', 'EY'],
  ['ay', 'EY'],
  ['ei', 'EY'],
  ['ey', 'EY'],
  ['ie', 'IY'],
  ['oi', 'OY'],
  ['oy', 'OY'],
  ['au', 'AO'],
  ['aw', 'AO'],
  ['ue', 'UW'],
  ['a', 'AE'],
  ['b', 'B'],
  ['c', 'K'],
  ['d', 'D'],
  ['e', 'EH'],
  ['f', 'F'],
  ['g', 'G'],
  ['h', 'HH'],
  ['i', 'IH'],
  ['j', 'JH'],
  ['k', 'K'],
  ['l', 'L'],
  ['m', 'M'],
  ['n', 'N'],
  ['o', 'AA'],
  ['p', 'P'],
  ['q', 'K'],
  ['r', 'R'],
  ['s', 'S'],
  ['t', 'T'],
  ['u', 'AH'],
  ['v', 'V'],
  ['w', 'W'],
  ['x', 'K S'],
  ['y', 'Y'],
  ['z', 'Z'],
];

export function lettersToCmu(token: string): string {
  const word = token
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z]/g, '')
    .replace(/(.)\1+/g, '$1');
  const phones: string[] = [];
  let i = 0;
  while (i < word.length) {
    const rest = word.slice(i);
    let rule = LETTER_RULES.find(([g]) => rest.startsWith(g));
    if (rule === undefined) {
      i++;
      continue;
    }
    // A final y sounds like a vowel (Vicky), a final e is silent (Jane) unless it is the only vowel.
    if (rule[0] === 'y' && i > 0 && i === word.length - 1) rule = ['y', 'IY'];
    if (rule[0] === 'e' && i === word.length - 1 && i > 1 && /[aeiouy]/.test(word.slice(0, i))) rule = ['e', ''];
    if (rule[1] !== '') phones.push(rule[1]);
    i += rule[0].length;
  }
  return phones.join(' ');
}

// ── Small helpers ────────────────────────────────────────────────────────

/** The executable's path: a path as given, a bare name looked up on PATH; null when there is none. */
export async function findExecutable(binary: string, path: string): Promise<string | null> {
  const candidates = binary.includes('/')
    ? [binary]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, binary));
  for (const c of candidates) {
    try {
      await access(c, constants.X_OK);
      if (isFile(c)) return c;
    } catch {
      // not here
    }
  }
  return null;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.max(0, Math.min(1, x)) : 0;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
