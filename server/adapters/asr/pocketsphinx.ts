/**
 * Speech recognition with CMU PocketSphinx, the system package (Debian's
 * pocketsphinx 0.8+5prealpha), through its `pocketsphinx_continuous` tool.
 * Decisions: docs/decisions/011-recognizers-and-summarizers.md.
 *
 * One transcription is one language-model pass (`-lm`, `-time yes`) over
 * 16-bit WAV files: every word with its start, end and lattice posterior.
 * The speech is cut at pauses into one group per core, each decoded by a
 * process of its own from its own file, side by side; the groups' words are
 * joined in order (decision 094). A cancel ends every process at once.
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
 * The file is the recording itself, its pauses in it, so the recognizer's
 * own voice activity ends and begins its utterances as it does on the whole
 * file; only stretches without speech longer than a few seconds are
 * shortened (spans.ts planContinuousSpans, decision 120: decoding the speech
 * regions apart lost words). Times are mapped back (spans.ts). The tool
 * itself runs in pocketsphinx-process.ts.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findExecutable, isDirectory, isFile, safeReaddir } from '../fs-probe.ts';
import {
  allOrNothing,
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
import {
  mapToSourceTime,
  MIN_GROUP_SECONDS,
  planDecodeGroups,
  WARM_UP_SECONDS,
  writeSpansAsWav,
  type FileWord,
  type SpanLayout,
} from './spans.ts';

export const DEFAULT_POCKETSPHINX_MODEL_ROOT = '/usr/share/pocketsphinx/model';
export const POCKETSPHINX_BINARY = 'pocketsphinx_continuous';

/**
 * The language-model pass's search bounds over pocketsphinx_continuous's own
 * defaults, measured by bench/pruning.ts on real recorded speech: at most
 * 8,000 active HMMs per frame (pocketsphinx: 30,000) and 10 word exits per
 * frame (pocketsphinx: no limit). Both bind only where the search widens;
 * they keep the real readings' words clean, in the office and in the
 * reverberant room alike, where 6,000 HMMs alone lost four words of 71 in
 * the room (decisions 096 and 103). The beams stay: narrowing them cost 18
 * points on the clean readings. The lattice pass (-bestpath) stays: the
 * words' confidences are its posteriors.
 */
export const POCKETSPHINX_SEARCH_ARGS: readonly string[] = ['-maxhmmpf', '8000', '-maxwpf', '10'];

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
  /**
   * How many pocketsphinx processes decode one recording side by side, each a
   * group of its speech regions cut at pauses (decision 094); default one per
   * core (os.availableParallelism()). 1 decodes the whole plan in one process.
   */
  processes?: number;
  /** Seconds of audio below which a group is not given a process of its own (spans.ts MIN_GROUP_SECONDS; measurements). */
  minGroupSeconds?: number;
  /** Seconds of the speech before a group decoded to warm its process up (spans.ts WARM_UP_SECONDS; measurements). */
  warmUpSeconds?: number;
  /** What the file holds (spans.ts SpanLayout): the recording with its pauses (default), or the regions laid end to end (measurements). */
  spanLayout?: SpanLayout;
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
  readonly #processes: number;
  readonly #minGroupSeconds: number;
  readonly #warmUpSeconds: number;
  readonly #spanLayout: SpanLayout;

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
    const processes = opts.processes ?? availableParallelism();
    this.#processes = Number.isFinite(processes) ? Math.max(1, Math.floor(processes)) : 1;
    this.#minGroupSeconds = opts.minGroupSeconds ?? MIN_GROUP_SECONDS;
    this.#warmUpSeconds = opts.warmUpSeconds ?? WARM_UP_SECONDS;
    this.#spanLayout = opts.spanLayout ?? 'recording';
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

    const { plan, groups } = planDecodeGroups(
      regions,
      audio.durationSeconds,
      this.#processes,
      this.#minGroupSeconds,
      this.#warmUpSeconds,
      this.#spanLayout,
    );
    if (groups.length === 0) return [];
    // Progress: seconds of file decoded over all groups. Spotting prints its
    // detections newest first: only ever report forward progress.
    const groupSeconds = groups.map((g) => (g.toSample - g.fromSample) / PIPELINE_SAMPLE_RATE);
    const totalSeconds = groupSeconds.reduce((sum, s) => sum + s, 0);
    const groupDone = groups.map(() => 0);
    let reported = 0;
    const progress = (group: number, fraction: number) => {
      groupDone[group] = Math.max(groupDone[group]!, fraction);
      const overall = groupSeconds.reduce((sum, s, i) => sum + s * groupDone[i]!, 0) / totalSeconds;
      if (overall > reported) control.progress((reported = overall));
    };
    const dir = await mkdtemp(join(this.#tmpDir, 'mas-pocketsphinx-'));
    try {
      // One folder per group (its file, its logs); the plain folder when there is one group.
      const groupDirs = groups.length === 1 ? [dir] : groups.map((_, i) => join(dir, `group-${i}`));
      const wavs = groupDirs.map((d) => join(d, 'speech.wav'));
      for (const [i, group] of groups.entries()) {
        if (groupDirs[i] !== dir) await mkdir(groupDirs[i]!);
        await writeSpansAsWav(audio, plan, wavs[i]!, group);
      }
      await control.checkpoint();

      const spotting = this.#bias === 'kws' || this.#bias === 'lm+kws';
      const adapting = this.#bias === 'lm' || this.#bias === 'lm+kws';
      const findEspeak = () => findExecutable(this.#espeak, this.#path);
      const phrases = spotting ? await customPhrases(model.dict, options, findEspeak, control) : [];
      const vocabulary = adapting ? await lmVocabulary(model, options, findEspeak, control) : [];
      // Built (or read from the cache) once; every process decodes with the same files.
      const decodeWith =
        vocabulary.length > 0
          ? await adaptedModel(
              model,
              vocabulary,
              { cacheDir: this.#cacheDir, lmBias: this.#lmBias, build: this.#buildBiasedModel },
              control,
            )
          : { lm: model.lm, dict: model.dict };

      const groupWords = await allOrNothing(control, (groupControl) =>
        groups.map(async (group, i) => {
          const fileWords = await decodeFile(
            {
              binary,
              hmm: model.hmm,
              lm: decodeWith.lm,
              dict: decodeWith.dict,
              extraArgs: overrideOptions(POCKETSPHINX_SEARCH_ARGS, this.#extraArgs),
            },
            wavs[i]!,
            groupSeconds[i]!,
            groupDirs[i]!,
            phrases,
            groupControl,
            (fraction) => progress(i, fraction),
          );
          // In the whole file's times; the words of the warm-up are the previous group's.
          const shift = group.fromSample / PIPELINE_SAMPLE_RATE;
          return fileWords
            .map((w) => ({ ...w, start: w.start + shift, end: w.end + shift }))
            .filter((w) => (w.start + w.end) / 2 >= group.keepFrom && (w.start + w.end) / 2 < group.keepTo);
        }),
      );

      const display = displayForms(phrases, options.customWords);
      for (const v of vocabulary) if (!display.has(v.key)) display.set(v.key, v.display);
      // The groups follow one another in the file: their words, joined in order, are in order.
      return mapToSourceTime(groupWords.flat(), plan, audio.durationSeconds).map((w) => ({ ...w, text: displayText(w.text, display) }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

interface DecoderFiles {
  binary: string;
  hmm: string;
  lm: string;
  dict: string;
  extraArgs: readonly string[];
}

/**
 * One file through pocketsphinx_continuous: the language-model pass, then,
 * when there are phrases to spot, the keyword pass whose detections replace
 * the words they cover. Times are the file's; `progress` gets 0..1 of it.
 */
async function decodeFile(
  files: DecoderFiles,
  wav: string,
  fileDuration: number,
  dir: string,
  phrases: readonly SpotPhrase[],
  control: StageControl,
  progress: (fraction: number) => void,
): Promise<FileWord[]> {
  // Keyword spotting costs about a tenth of the language-model pass.
  const lmShare = phrases.length > 0 ? 0.9 : 1;
  const common = ['-infile', wav, '-hmm', files.hmm, '-time', 'yes'];
  const lmWords: FileWord[] = [];
  await runPocketSphinx(
    files.binary,
    [...common, '-lm', files.lm, '-dict', files.dict, ...files.extraArgs, '-logfn', join(dir, 'lm.log')],
    join(dir, 'lm.log'),
    control,
    (line) => {
      const word = parseTimedLine(line);
      if (word === null) return;
      progress(lmShare * Math.min(1, word.end / fileDuration));
      if (isSpokenWord(word.text)) lmWords.push({ ...word, text: stripAlternate(word.text) });
    },
  );
  progress(lmShare);
  if (phrases.length === 0) return lmWords;
  await control.checkpoint();
  const detections = await spotKeywords(files.binary, common, dir, phrases, control, (end) =>
    progress(lmShare + (1 - lmShare) * Math.min(1, end / fileDuration)),
  );
  progress(1);
  return mergeDetections(lmWords, detections, phrases.length);
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
