/**
 * Speech recognition with a whisper.cpp binary the user installed (the
 * service never downloads one, nor a model). Decisions:
 * docs/decisions/011-recognizers-and-summarizers.md.
 *
 * The binary comes from MAS_WHISPER_CPP_BIN (`whisper-cli`, or `main` of
 * releases before 1.7.4); the model is <data>/models/<model>.bin, the files
 * GET /v1/models lists as custom. The call is
 *
 *   <bin> -m <model.bin> -f <speech.wav> -l <lang> -oj -ojf -of <prefix> -pp -t <n> [--prompt <text>]
 *
 * as documented in whisper.cpp's examples/cli/README.md: `-ojf` (output JSON
 * "full", whisper.cpp ≥ 1.5) adds each segment's tokens with their own
 * `offsets` (milliseconds) and probability `p`, which become the words; `-pp`
 * prints "progress = N%" on stderr. The prompt is the initial prompt followed
 * by the custom words, which is how whisper is biased towards spellings.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { findExecutable } from '../fs-probe.ts';
import { mapToSourceTime, planDecodeSpans, writeSpansAsWav, type FileWord } from './spans.ts';

/** Confidence of a word when the output says nothing about it (segment-only JSON). */
export const UNKNOWN_CONFIDENCE = 0.5;

export interface WhisperCppOptions {
  /** The binary: a path, or a name looked up on PATH. Undefined: not configured (never available). */
  binary: string | undefined;
  /** <data>/models, holding <name>.bin files. */
  modelsDir: string;
  /** Model used when the import names none; default: the first file in name order. */
  defaultModel?: string;
  /** Threads for whisper.cpp; default min(4, cores). */
  threads?: number;
  tmpDir?: string;
  path?: string;
}

/** Model names are file names without .bin: nothing that could climb out of the models folder. */
const MODEL_NAME = /^[\w][\w.+-]*$/;

export class WhisperCppRecognizer implements Recognizer {
  readonly name = 'whisper.cpp';
  readonly #opts: WhisperCppOptions;

  constructor(opts: WhisperCppOptions) {
    this.#opts = opts;
  }

  /** The model names present, as GET /v1/models lists them. */
  models(): string[] {
    try {
      return readdirSync(this.#opts.modelsDir)
        .filter((f) => f.endsWith('.bin'))
        .map((f) => f.slice(0, -'.bin'.length))
        .filter((n) => MODEL_NAME.test(n))
        .sort();
    } catch {
      return [];
    }
  }

  hasModel(name: string): boolean {
    return this.models().includes(name);
  }

  async available(): Promise<boolean> {
    return (await this.#binary()) !== null && this.models().length > 0;
  }

  async transcribe(
    audio: PcmAudio,
    regions: readonly SpeechRegion[],
    options: RecognitionOptions,
    control: StageControl,
  ): Promise<RecognizedWord[]> {
    if (control.signal.aborted) throw new CancelledError();
    const binary = await this.#binary();
    if (binary === null) {
      const why = this.#opts.binary === undefined ? 'MAS_WHISPER_CPP_BIN is not set' : `${this.#opts.binary} was not found`;
      throw new StageError(`whisper.cpp is not available: ${why}`, { retryable: true, dependencyMissing: true });
    }
    const model = options.model ?? this.#opts.defaultModel ?? this.models()[0];
    if (model === undefined || !MODEL_NAME.test(model) || !this.hasModel(model)) {
      const what = model === undefined ? 'no whisper.cpp model file is' : `the whisper.cpp model ${model} is not`;
      throw new StageError(`${what} in ${this.#opts.modelsDir} (add <name>.bin there)`, { retryable: true, dependencyMissing: true });
    }

    const plan = planDecodeSpans(regions, audio.durationSeconds);
    if (plan.spans.length === 0) return [];
    const dir = await mkdtemp(join(this.#opts.tmpDir ?? tmpdir(), 'mas-whisper-'));
    try {
      const wav = join(dir, 'speech.wav');
      await writeSpansAsWav(audio, plan, wav);
      await control.checkpoint();
      const prefix = join(dir, 'result');
      const args = buildWhisperArgs({
        model: join(this.#opts.modelsDir, `${model}.bin`),
        wav,
        outputPrefix: prefix,
        language: whisperLanguage(options.language),
        prompt: buildPrompt(options.initialPrompt, options.customWords),
        threads: this.#opts.threads ?? Math.min(4, availableParallelism()),
      });
      await runWhisper(binary, args, control);
      let json: string;
      try {
        json = await readFile(`${prefix}.json`, 'utf8');
      } catch (err) {
        throw new StageError('whisper.cpp wrote no JSON output (could it read the audio?)', { retryable: true, cause: err });
      }
      control.progress(1);
      return mapToSourceTime(parseWhisperJson(json), plan, audio.durationSeconds);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async #binary(): Promise<string | null> {
    if (this.#opts.binary === undefined || this.#opts.binary === '') return null;
    return findExecutable(this.#opts.binary, this.#opts.path ?? process.env.PATH ?? '');
  }
}

function buildWhisperArgs(a: {
  model: string;
  wav: string;
  outputPrefix: string;
  language: string;
  prompt: string;
  threads: number;
}): string[] {
  const args = ['-m', a.model, '-f', a.wav, '-l', a.language, '-oj', '-ojf', '-of', a.outputPrefix, '-pp', '-t', String(a.threads)];
  if (a.prompt !== '') args.push('--prompt', a.prompt);
  return args;
}

/** whisper takes ISO 639-1 codes ("en", not "en-US") or "auto". */
export function whisperLanguage(language: string): string {
  const primary = language.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return primary === '' ? 'auto' : primary;
}

/**
 * The prompt for whisper-style recognizers: the initial prompt, then the
 * custom words as a comma list. Whisper keeps only the last ~224 prompt
 * tokens, so the words go last and the prompt is cut from its start.
 */
export function buildPrompt(initialPrompt: string, customWords: readonly string[], maxChars = 800): string {
  const words: string[] = [];
  let used = 1;
  for (const word of customWords.map((w) => w.trim()).filter(Boolean)) {
    if (used + word.length + 2 > maxChars) break;
    words.push(word);
    used += word.length + 2;
  }
  const glossary = words.length > 0 ? `${words.join(', ')}.` : '';
  let prompt = initialPrompt.trim().replace(/\s+/g, ' ');
  const room = maxChars - glossary.length - (glossary === '' ? 0 : 1);
  // Cut from the start, where whisper would cut, and drop the word the cut went through.
  if (prompt.length > room) prompt = room > 0 ? prompt.slice(prompt.length - room).replace(/^\S*\s?/, '') : '';
  return [prompt, glossary].filter(Boolean).join(' ');
}

// ── Output parsing ───────────────────────────────────────────────────────

interface WhisperToken {
  text?: unknown;
  offsets?: { from?: unknown; to?: unknown };
  p?: unknown;
}

interface WhisperSegment {
  text?: unknown;
  offsets?: { from?: unknown; to?: unknown };
  tokens?: unknown;
}

/**
 * Words from whisper.cpp's JSON: from the tokens when there are any (a token
 * that begins with a space begins a word; special tokens such as [_BEG_] and
 * <|endoftext|> are dropped; confidence = the mean token probability),
 * otherwise from the segment text, its time shared by word length.
 */
export function parseWhisperJson(json: string): FileWord[] {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (err) {
    throw new StageError('whisper.cpp wrote JSON that does not parse', { retryable: true, cause: err });
  }
  const segments = (doc as { transcription?: unknown }).transcription;
  if (!Array.isArray(segments)) throw new StageError('whisper.cpp JSON has no transcription array', { retryable: true });
  const words: FileWord[] = [];
  for (const seg of segments as WhisperSegment[]) {
    const fromTokens = Array.isArray(seg.tokens) ? wordsFromTokens(seg.tokens as WhisperToken[]) : null;
    words.push(...(fromTokens ?? wordsFromSegment(seg)));
  }
  return words.sort((a, b) => a.start - b.start);
}

function wordsFromTokens(tokens: readonly WhisperToken[]): FileWord[] | null {
  const words: { text: string; start: number; end: number; ps: number[] }[] = [];
  for (const t of tokens) {
    const text = typeof t.text === 'string' ? t.text : '';
    if (text === '' || /^\[_.*\]$/.test(text) || /^<\|.*\|>$/.test(text)) continue;
    // A character split across tokens decodes to U+FFFD; the segment text has it whole.
    if (text.includes('\uFFFD')) return null;
    const from = Number(t.offsets?.from);
    const to = Number(t.offsets?.to);
    if (!Number.isFinite(from) || !Number.isFinite(to)) return null;
    const p = typeof t.p === 'number' && Number.isFinite(t.p) ? Math.max(0, Math.min(1, t.p)) : UNKNOWN_CONFIDENCE;
    const last = words.at(-1);
    const punctuationOnly = /^\s*[^\p{L}\p{N}]+$/u.test(text);
    if (last !== undefined && (!/^\s/.test(text) || punctuationOnly)) {
      last.text += text.trim() === '' ? '' : text.trimStart();
      last.end = Math.max(last.end, to / 1000);
      if (!punctuationOnly) last.ps.push(p);
    } else if (text.trim() !== '') {
      words.push({ text: text.trim(), start: from / 1000, end: to / 1000, ps: [p] });
    }
  }
  return words.map((w) => ({
    text: w.text,
    start: w.start,
    end: Math.max(w.start, w.end),
    confidence: w.ps.reduce((a, b) => a + b, 0) / w.ps.length,
  }));
}

function wordsFromSegment(seg: WhisperSegment): FileWord[] {
  const text = typeof seg.text === 'string' ? seg.text.trim() : '';
  const from = Number(seg.offsets?.from) / 1000;
  const to = Number(seg.offsets?.to) / 1000;
  if (text === '' || !Number.isFinite(from) || !Number.isFinite(to)) return [];
  return spreadWords(text, from, Math.max(from, to), UNKNOWN_CONFIDENCE);
}

/** Splits text into words over [start, end], each getting time in proportion to its length. */
export function spreadWords(text: string, start: number, end: number, confidence: number): FileWord[] {
  const parts = text.split(/\s+/).filter(Boolean);
  const total = parts.reduce((n, p) => n + p.length, 0);
  let at = start;
  return parts.map((p, i) => {
    const next = i === parts.length - 1 ? end : at + ((end - start) * p.length) / total;
    const w = { text: p, start: at, end: next, confidence };
    at = next;
    return w;
  });
}

// ── Running the binary ───────────────────────────────────────────────────

async function runWhisper(binary: string, args: string[], control: StageControl): Promise<void> {
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const untrack = control.track(child);
  const kill = () => child.kill('SIGKILL'); // also ends a paused (SIGSTOPped) process
  control.signal.addEventListener('abort', kill, { once: true });
  let tail = '';
  let pending = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4000);
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = /progress =\s*(\d+)%/.exec(line);
      // The JSON is written after the last percent: keep the last step for it.
      if (m !== null) control.progress(Math.min(0.99, Number(m[1]) / 100));
    }
  });
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
    if (control.signal.aborted) throw new CancelledError();
    if (exit.code !== 0) {
      const detail = tail
        .split('\n')
        .filter((l) => /error|failed/i.test(l))
        .at(-1)
        ?.trim()
        .slice(0, 300);
      const how = exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      throw new StageError(`whisper.cpp ${how}${detail === undefined ? '' : `: ${detail}`}`, { retryable: true });
    }
  } catch (err) {
    if (control.signal.aborted) throw new CancelledError();
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EACCES') {
      throw new StageError(`whisper.cpp could not be started: ${binary}`, { retryable: true, dependencyMissing: true, cause: err });
    }
    if (err instanceof StageError) throw err;
    throw new StageError(`whisper.cpp could not run: ${(err as Error).message}`, { retryable: true, cause: err });
  } finally {
    control.signal.removeEventListener('abort', kill);
    untrack();
  }
}
