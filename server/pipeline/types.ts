/**
 * The contracts between the job runner and the stages of the audio pipeline:
 * decode → voice activity → recognition → diarization → summary.
 *
 * Every stage takes a StageControl, through which the runner pauses, resumes
 * and cancels it: pure-code stages call `checkpoint()` between chunks, and
 * stages that run a child process hand it to `track()`, so a pause really
 * stops the process (SIGSTOP) and a cancel really ends it.
 */
import type { ChildProcess } from 'node:child_process';

/** The ten extensions API.md's Import section accepts. */
export const IMPORT_EXTENSIONS = ['mp4', 'm4a', 'wav', 'mp3', 'flac', 'ogg', 'aac', 'mkv', 'webm', 'wma'] as const;
export type ImportExtension = (typeof IMPORT_EXTENSIONS)[number];

/**
 * Audio the decoder reads, as the media store (server/media/media-store.ts)
 * hands it out by media id: the features pass it to the transcription
 * unopened; only the decoder (ffmpeg reads files) uses the path.
 */
export interface AudioSource {
  readonly path: string;
  readonly ext: ImportExtension;
}

/** The pipeline's working format: 16 kHz, mono, 32-bit float samples in [-1, 1]. */
export const PIPELINE_SAMPLE_RATE = 16_000;

export interface PcmAudio {
  sampleRate: typeof PIPELINE_SAMPLE_RATE;
  samples: Float32Array;
  durationSeconds: number;
  /**
   * Speech probability per 10 ms (value i covers i·10 ms … (i+1)·10 ms),
   * when a front-end stage measured one (the denoiser does); voice activity
   * combines it with its own cues. Absent for plain decoded audio.
   */
  speechProbability?: Float32Array;
}

export interface StageControl {
  /** Aborted when the job is cancelled. */
  signal: AbortSignal;
  /** Resolves at once unless the job is paused, then when it resumes; rejects once cancelled. */
  checkpoint(): Promise<void>;
  /** Registers a child process so pause/resume/cancel reach it. Returns a function that unregisters it. */
  track(child: ChildProcess): () => void;
  /** Reports progress of the stage, 0..1. */
  progress(fraction: number): void;
}

/** A control for callers that never pause or cancel (tests, tools). */
export function uncontrolled(): StageControl {
  return {
    signal: new AbortController().signal,
    checkpoint: () => Promise.resolve(),
    track: () => () => undefined,
    progress: () => undefined,
  };
}

/**
 * A failure a user can act on: undecodable input, a missing dependency.
 * `retryable` says whether running the same job again could succeed
 * (a crashed recognizer: yes; a corrupt file: no). Messages may name files;
 * the API redacts paths before showing them.
 */
export class StageError extends Error {
  readonly retryable: boolean;
  /** true when a needed tool or service is missing or unreachable (503 service_unavailable where synchronous). */
  readonly dependencyMissing: boolean;

  constructor(message: string, opts: { retryable: boolean; dependencyMissing?: boolean; cause?: unknown }) {
    super(message, { cause: opts.cause });
    this.name = 'StageError';
    this.retryable = opts.retryable;
    this.dependencyMissing = opts.dependencyMissing ?? false;
  }
}

/** Raised by checkpoint() and tracked processes once a job is cancelled. */
export class CancelledError extends Error {
  constructor() {
    super('the job was cancelled');
    this.name = 'CancelledError';
  }
}

/**
 * Runs the tasks side by side under one control whose signal also fires when
 * any of them fails, so a failed part ends its siblings rather than let them
 * compute for nothing (the recognizer's processes, the front end's parts).
 * Resolves when all succeed; otherwise rejects, once every task has ended
 * (no process or thread outlives the call), with the job's cancel or else
 * the first failure that was not a sibling's stop.
 */
export async function allOrNothing<T>(control: StageControl, start: (control: StageControl) => Promise<T>[]): Promise<T[]> {
  const siblings = new AbortController();
  const shared: StageControl = { ...control, signal: AbortSignal.any([control.signal, siblings.signal]) };
  const failures: unknown[] = [];
  const settled = await Promise.allSettled(
    start(shared).map((task) =>
      task.catch((err: unknown) => {
        if (!siblings.signal.aborted) failures.push(err);
        siblings.abort();
        throw err;
      }),
    ),
  );
  if (control.signal.aborted) throw new CancelledError();
  if (failures.length > 0) throw failures[0];
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

// ── Decode ───────────────────────────────────────────────────────────────
export interface Decoder {
  /** Decodes a whole file to the pipeline format. Throws StageError for input it cannot decode. */
  decode(file: string, ext: ImportExtension, control: StageControl): Promise<PcmAudio>;
}

// ── Voice activity ───────────────────────────────────────────────────────
export interface SpeechRegion {
  start: number;
  end: number;
}

export interface VadSettings {
  enabled: boolean;
  threshold: number;
  min_speech_ms: number;
  min_silence_ms: number;
  speech_pad_ms: number;
}

// ── Recognition ──────────────────────────────────────────────────────────
export interface RecognizedWord {
  text: string;
  start: number;
  end: number;
  confidence: number;
}

export interface RecognitionOptions {
  language: string;
  /** Names and terms to bias towards (custom-words section). */
  customWords: readonly string[];
  /** Context text that primes the recognizer (initial-prompt section); empty when off. */
  initialPrompt: string;
  /** A model name from GET /v1/models, or undefined for the adapter's default. */
  model?: string;
}

export interface Recognizer {
  /** Stable name, used as `provider` on import and in the job record. */
  readonly name: string;
  /** Whether the tool or endpoint behind it is there; a missing one gives 503 or a failed job. */
  available(): Promise<boolean>;
  transcribe(
    audio: PcmAudio,
    regions: readonly SpeechRegion[],
    options: RecognitionOptions,
    control: StageControl,
  ): Promise<RecognizedWord[]>;
}

// ── Diarization ──────────────────────────────────────────────────────────
export interface DiarizationSettings {
  enabled: boolean;
  /** Fixed number of speakers, or null for automatic. */
  speaker_count: number | null;
  min_speakers: number;
  max_speakers: number;
  clustering_threshold: number;
}

export interface SpeakerTurn {
  /** Cluster key, S1, S2, … numbered by first appearance. */
  speaker: string;
  start: number;
  end: number;
  /**
   * A second speaker heard under another's turn (overlapped speech): scored
   * as diarization, but a word keeps the speaker of the turn it lies in.
   */
  overlap?: true;
}

// ── Summary ──────────────────────────────────────────────────────────────
export interface SummaryInput {
  title: string;
  language: string | null;
  segments: readonly { speaker: string; speaker_name: string | null; start: number; end: number; text: string }[];
  templateId: string;
  /** When the meeting took place (ISO timestamp): due dates such as "by Friday" are read against it (decision 078). */
  meetingDate?: string | null;
}

export interface SummaryOutput {
  text: string;
  sections: { title: string; text: string }[];
  model: string;
}

export interface Summarizer {
  readonly name: string;
  summarize(input: SummaryInput, control: StageControl): Promise<SummaryOutput>;
}
