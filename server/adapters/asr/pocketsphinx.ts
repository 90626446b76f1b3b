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
 * letter rules when espeak-ng is absent: pronunciations.ts). The adapted
 * model is written once per model file and configuration and kept in a cache
 * folder (pocketsphinx-lm-cache.ts).
 *
 * The older design, a keyword-spotting pass (`-kws`) whose detections replace
 * the words of the language-model pass they cover, stays available
 * (`vocabularyBias: "kws"` or `"lm+kws"`: pocketsphinx-kws.ts) for
 * measurements; it helped less.
 *
 * The file holds only the speech regions of the voice-activity stage, with a
 * second of near-silence between them, so music and long silences cost no
 * decoding time and produce no invented words; times are mapped back
 * (spans.ts, shared by every recognizer). The tool itself runs in
 * pocketsphinx-process.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findExecutable, isDirectory, isFile, safeReaddir } from '../fs-probe.ts';
import {
  CancelledError,
  StageError,
  type PcmAudio,
  type RecognitionOptions,
  type RecognizedWord,
  type Recognizer,
  type SpeechRegion,
  type StageControl,
} from '../../pipeline/types.ts';
import { customPhrases, mergeDetections, spotKeywords, type SpotPhrase } from './pocketsphinx-kws.ts';
import {
  adaptedModel,
  buildBiasedModelInPlace,
  LM_BIAS_BOOST,
  LM_BIAS_FLOOR,
  lmVocabulary,
  type BiasedModelBuilder,
} from './pocketsphinx-lm-cache.ts';
import { isSpokenWord, overrideOptions, parseTimedLine, runPocketSphinx, stripAlternate } from './pocketsphinx-process.ts';
import { dictionaryKey, tokenize } from './pronunciations.ts';
import { mapToSourceTime, planDecodeSpans, writeSpansAsWav, type FileWord } from './spans.ts';

export const DEFAULT_POCKETSPHINX_MODEL_ROOT = '/usr/share/pocketsphinx/model';
export const POCKETSPHINX_BINARY = 'pocketsphinx_continuous';

/**
 * The language-model pass's search bound over pocketsphinx_continuous's own
 * defaults (docs/decisions/096-recognizer-pruning-on-real-speech.md, measured
 * by bench/pruning.ts on real recorded speech): at most 10,000 active HMMs
 * per frame (pocketsphinx: 30,000). The cap binds only where the search
 * widens; it is the tightest measured that keeps the real readings' words
 * clean, in the office and in the reverberant room alike (5,000 lost four
 * words of 71 in the room). The beams stay: narrowing them cost 18 points
 * on the clean readings. The lattice pass (-bestpath) stays: the words'
 * confidences are its posteriors.
 */
export const POCKETSPHINX_SEARCH_ARGS: readonly string[] = ['-maxhmmpf', '10000'];

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
  /**
   * Builds an adapted language model (seconds of CPU). The gateway passes the
   * one that runs on the pipeline's worker thread (decision 087); by default
   * it is built in place.
   */
  buildBiasedModel?: BiasedModelBuilder | undefined;
  /** Parent of the per-run scratch directory. */
  tmpDir?: string;
  /** PATH used to find the binaries; default process.env.PATH. */
  path?: string;
  /**
   * More pocketsphinx_continuous options for the language-model pass
   * (measurements: bench/pruning.ts, bench/quality-real-speech.ts); one that
   * POCKETSPHINX_SEARCH_ARGS sets takes this value instead.
   */
  extraArgs?: readonly string[];
}

export type VocabularyBiasMode = 'lm' | 'kws' | 'lm+kws' | 'off';

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
  readonly #buildBiasedModel: BiasedModelBuilder;
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
    this.#buildBiasedModel = opts.buildBiasedModel ?? buildBiasedModelInPlace;
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
      const findEspeak = () => findExecutable(this.#espeak, this.#path);
      const phrases = spotting ? await customPhrases(model.dict, options, findEspeak, control) : [];
      const vocabulary = adapting ? await lmVocabulary(model, options, findEspeak, control) : [];
      const decodeWith =
        vocabulary.length > 0
          ? await adaptedModel(
              model,
              vocabulary,
              { cacheDir: this.#cacheDir, lmBias: this.#lmBias, build: this.#buildBiasedModel },
              control,
            )
          : { lm: model.lm, dict: model.dict };
      // Keyword spotting costs about a tenth of the language-model pass.
      const lmShare = phrases.length > 0 ? 0.9 : 1;
      const common = ['-infile', wav, '-hmm', model.hmm, '-time', 'yes'];

      const lmWords: FileWord[] = [];
      await runPocketSphinx(
        binary,
        [
          ...common,
          '-lm',
          decodeWith.lm,
          '-dict',
          decodeWith.dict,
          ...overrideOptions(POCKETSPHINX_SEARCH_ARGS, this.#extraArgs),
          '-logfn',
          join(dir, 'lm.log'),
        ],
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
        const detections = await spotKeywords(binary, common, dir, phrases, control, (end) =>
          progress(lmShare + (1 - lmShare) * Math.min(1, end / plan.fileDuration)),
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
