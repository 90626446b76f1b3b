/**
 * The pipeline's CPU-heavy stages, run on a worker thread so the gateway's
 * event loop keeps serving HTTP while a job computes (decision 035).
 *
 * What runs there (off-thread-worker.ts holds the task table):
 *   enhance   the speech-enhancement front end (WPE, RNNoise, estimates);
 *   diarize   the diarizer (features, clustering, resegmentation);
 *   bias-lm   building the vocabulary-biased language model (lm-bias.ts).
 * Recognition itself is already a child process (pocketsphinx), and decoding
 * is ffmpeg's.
 *
 * One worker, created on first use: the machine this serves has two cores,
 * one for the event loop and one for this, so a second CPU task waits its
 * turn in a queue here instead of competing for the same core. The worker is
 * unreferenced while idle, so it never keeps a process alive.
 *
 * The caller's StageControl reaches into the worker: progress is posted back,
 * a checkpoint in the worker waits for the caller's checkpoint (so pausing a
 * job pauses its stage at the next checkpoint), and cancelling ends the
 * worker at once (it is started again for the next task). A crash of the
 * worker fails the task with a retryable StageError; the gateway goes on.
 */
import { Worker, type Transferable } from 'node:worker_threads';
import type { Enhancer, TranscriptionParts } from './transcribe.ts';
import { CancelledError, StageError, type PcmAudio, type SpeakerTurn, type StageControl } from './types.ts';

/** What a task posts back while it runs, and how it ends. */
export type WorkerMessage =
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'checkpoint'; id: number; n: number }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'failed'; id: number; error: SerializedError };

/** What the main thread posts to the worker. */
export type MainMessage = { type: 'run'; id: number; task: string; payload: unknown } | { type: 'resume'; id: number; n: number };

export interface SerializedError {
  kind: 'cancelled' | 'stage' | 'error';
  message: string;
  retryable: boolean;
  dependencyMissing: boolean;
}

export function serializeError(err: unknown): SerializedError {
  if (err instanceof CancelledError) return { kind: 'cancelled', message: err.message, retryable: false, dependencyMissing: false };
  if (err instanceof StageError)
    return { kind: 'stage', message: err.message, retryable: err.retryable, dependencyMissing: err.dependencyMissing };
  return { kind: 'error', message: err instanceof Error ? err.message : String(err), retryable: true, dependencyMissing: false };
}

function deserializeError(e: SerializedError): Error {
  if (e.kind === 'cancelled') return new CancelledError();
  if (e.kind === 'stage') return new StageError(e.message, { retryable: e.retryable, dependencyMissing: e.dependencyMissing });
  return new StageError(`a pipeline stage failed: ${e.message}`, { retryable: true });
}

interface Pending {
  id: number;
  task: string;
  payload: unknown;
  transfer: Transferable[];
  control: StageControl;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

const WORKER_URL = new URL('./off-thread-worker.ts', import.meta.url);

/** A queue of CPU tasks in front of one worker thread. */
export class OffThreadRunner {
  #worker: Worker | null = null;
  #running: Pending | null = null;
  readonly #queue: Pending[] = [];
  #nextId = 1;
  #detachAbort: (() => void) | null = null;

  /** Runs a task of off-thread-worker.ts's table; `transfer` lists buffers handed over without a copy. */
  run<T>(task: string, payload: unknown, control: StageControl, transfer: Transferable[] = []): Promise<T> {
    if (control.signal.aborted) return Promise.reject(new CancelledError());
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, task, payload, transfer, control, resolve: resolve as (v: unknown) => void, reject });
      this.#pump();
    });
  }

  /** Ends the worker (tests, shutdown); queued tasks fail. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    for (const p of this.#queue.splice(0)) p.reject(new CancelledError());
    this.#finish()?.reject(new CancelledError());
    if (worker !== null) await worker.terminate();
  }

  #ensureWorker(): Worker {
    if (this.#worker !== null) return this.#worker;
    const worker = new Worker(WORKER_URL);
    worker.on('message', (m: WorkerMessage) => this.#onMessage(worker, m));
    worker.on('error', (err: Error) => this.#onExit(worker, `the pipeline worker failed: ${err.message}`));
    worker.on('exit', (code) => this.#onExit(worker, `the pipeline worker exited with code ${code}`));
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  #pump(): void {
    if (this.#running !== null) return;
    const next = this.#queue.shift();
    if (next === undefined) {
      this.#worker?.unref();
      return;
    }
    if (next.control.signal.aborted) {
      next.reject(new CancelledError());
      this.#pump();
      return;
    }
    this.#running = next;
    const worker = this.#ensureWorker();
    worker.ref();
    const onAbort = () => {
      // The task may be deep in a computation: ending the worker is the only
      // immediate stop. The next task starts a fresh one.
      if (this.#running !== next) return;
      this.#worker = null;
      void worker.terminate();
      this.#finish()?.reject(new CancelledError());
      this.#pump();
    };
    next.control.signal.addEventListener('abort', onAbort, { once: true });
    this.#detachAbort = () => next.control.signal.removeEventListener('abort', onAbort);
    const message: MainMessage = { type: 'run', id: next.id, task: next.task, payload: next.payload };
    worker.postMessage(message, next.transfer);
  }

  /** Takes the running task off the runner (its promise is the caller's to settle). */
  #finish(): Pending | null {
    const p = this.#running;
    this.#running = null;
    this.#detachAbort?.();
    this.#detachAbort = null;
    return p;
  }

  #onMessage(worker: Worker, m: WorkerMessage): void {
    const p = this.#running;
    if (p === null || worker !== this.#worker || m.id !== p.id) return;
    switch (m.type) {
      case 'progress':
        p.control.progress(m.fraction);
        return;
      case 'checkpoint':
        p.control.checkpoint().then(
          () => {
            if (this.#running === p) worker.postMessage({ type: 'resume', id: p.id, n: m.n } satisfies MainMessage);
          },
          () => undefined, // cancelled: the abort listener ends the worker
        );
        return;
      case 'done':
        this.#finish();
        p.resolve(m.result);
        this.#pump();
        return;
      case 'failed':
        this.#finish();
        p.reject(deserializeError(m.error));
        this.#pump();
        return;
    }
  }

  #onExit(worker: Worker, why: string): void {
    if (worker !== this.#worker) return; // ended on purpose
    this.#worker = null;
    this.#finish()?.reject(new StageError(why, { retryable: true }));
    this.#pump();
  }
}

/** The gateway's one runner (the real pipeline's stages share it). */
const offThread = new OffThreadRunner();

// ── The stages, as the pipeline calls them ─────────────────────────────────

/** The audio's arrays for the worker: copied (the caller keeps its audio). */
function audioPayload(audio: PcmAudio): { samples: Float32Array; speechProbability?: Float32Array } {
  return audio.speechProbability === undefined
    ? { samples: audio.samples }
    : { samples: audio.samples, speechProbability: audio.speechProbability };
}

/** The front end (enhance/front-end.ts) on the worker, with the switches of the vad section the transcription was given. */
export function offThreadEnhancer(runner: OffThreadRunner = offThread): Enhancer {
  return async (audio, s, control) => {
    // Nothing to do: no trip to the worker (and no copy of the audio).
    if (s.enhancement === 'off' || audio.samples.length === 0 || (!s.denoise && !s.dereverberation)) return audio;
    const out = await runner.run<
      { untouched: true } | { untouched: false; audio: { samples: Float32Array; speechProbability?: Float32Array } }
    >(
      'enhance',
      { audio: audioPayload(audio), settings: { enhancement: s.enhancement, denoise: s.denoise, dereverberation: s.dereverberation } },
      control,
    );
    if (out.untouched) return audio;
    const enhanced: PcmAudio = { sampleRate: audio.sampleRate, samples: out.audio.samples, durationSeconds: audio.durationSeconds };
    if (out.audio.speechProbability !== undefined) enhanced.speechProbability = out.audio.speechProbability;
    return enhanced;
  };
}

/** The diarizer (diarize.ts) on the worker. */
export function offThreadDiarizer(runner: OffThreadRunner = offThread): TranscriptionParts['diarize'] {
  return (audio, regions, settings, control) =>
    runner.run<SpeakerTurn[]>(
      'diarize',
      { audio: { samples: audio.samples }, regions: regions.map((r) => ({ start: r.start, end: r.end })), settings: { ...settings } },
      control,
    );
}

/**
 * The vocabulary-biased language model (adapters/asr/lm-bias.ts biasTrieModel)
 * built on the worker. The composition root (real-pipeline.ts) hands it to the
 * pocketsphinx recognizer, so the adapter never imports the pipeline (decision 087).
 */
export async function biasTrieModelOffThread(
  lmPath: string,
  bias: { words: readonly string[]; boost: number; floor: number },
  control: StageControl,
  runner: OffThreadRunner = offThread,
): Promise<Buffer> {
  const bytes = await runner.run<Uint8Array>('bias-lm', { lmPath, words: [...bias.words], boost: bias.boost, floor: bias.floor }, control);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
