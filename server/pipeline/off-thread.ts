/**
 * The pipeline's CPU-heavy stages, run on worker threads so the gateway's
 * event loop keeps serving HTTP while a job computes (decision 035).
 *
 * What runs there (off-thread-worker.ts holds the task table):
 *   estimate, denoise, dereverberate
 *             the speech-enhancement front end's passes (its decisions are
 *             taken here, between them: enhance/front-end.ts);
 *   diarize   the diarizer (features, clustering, resegmentation);
 *   bias-lm   building the vocabulary-biased language model (lm-bias.ts).
 * Recognition itself is already a child process (pocketsphinx), and decoding
 * is ffmpeg's.
 *
 * One worker per core, each created on first use and unreferenced while idle
 * (so it never keeps a process alive); tasks beyond that wait in a queue.
 * Decision 035 kept one worker, leaving the other core to the event loop;
 * decision 102 gives the front end every core, since the recognizer's
 * processes already take both during recognition and the event loop's HTTP
 * work is light: WPE runs as one part per worker, and a noisy recording's
 * first denoising runs beside its dereverberation.
 *
 * The caller's StageControl reaches into the worker: progress is posted back,
 * a checkpoint in the worker waits for the caller's checkpoint (so pausing a
 * job pauses its stage at the next checkpoint), and cancelling ends the
 * worker at once (it is started again for the next task). A crash of the
 * worker fails the task with a retryable StageError; the gateway goes on.
 */
import { availableParallelism } from 'node:os';
import { Worker, type Transferable } from 'node:worker_threads';
import type { SignalEstimate } from './enhance/estimate.ts';
import { enhanceSpeech, type FrontEndPasses } from './enhance/front-end.ts';
import { joinWpeParts, planWpeParts, type DenoisedSamples } from './enhance/parts.ts';
import type { Diarization } from './diarize.ts';
import type { Enhancer, TranscriptionParts } from './transcribe.ts';
import { allOrNothing, CancelledError, StageError, type PcmAudio, type StageControl } from './types.ts';

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

/** One worker thread of a runner, and the task it runs. */
interface Slot {
  worker: Worker | null;
  running: Pending | null;
  detachAbort: (() => void) | null;
}

/** A queue of CPU tasks in front of a few worker threads, one task per thread at a time. */
export class OffThreadRunner {
  readonly #slots: Slot[];
  readonly #queue: Pending[] = [];
  #nextId = 1;

  /** `threads`: how many tasks run at once (default: one per core, decision 102). */
  constructor(threads: number = availableParallelism()) {
    const count = Number.isFinite(threads) ? Math.max(1, Math.floor(threads)) : 1;
    this.#slots = Array.from({ length: count }, () => ({ worker: null, running: null, detachAbort: null }));
  }

  /** How many tasks run at once: what a stage cut into parts cuts into. */
  get threads(): number {
    return this.#slots.length;
  }

  /** Runs a task of off-thread-worker.ts's table; `transfer` lists buffers handed over without a copy. */
  run<T>(task: string, payload: unknown, control: StageControl, transfer: Transferable[] = []): Promise<T> {
    if (control.signal.aborted) return Promise.reject(new CancelledError());
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, task, payload, transfer, control, resolve: resolve as (v: unknown) => void, reject });
      this.#pump();
    });
  }

  /** Ends the workers (tests, shutdown); queued tasks fail. */
  async close(): Promise<void> {
    for (const p of this.#queue.splice(0)) p.reject(new CancelledError());
    const workers: Worker[] = [];
    for (const slot of this.#slots) {
      if (slot.worker !== null) workers.push(slot.worker);
      slot.worker = null;
      this.#finish(slot)?.reject(new CancelledError());
    }
    await Promise.all(workers.map((w) => w.terminate()));
  }

  #ensureWorker(slot: Slot): Worker {
    if (slot.worker !== null) return slot.worker;
    const worker = new Worker(WORKER_URL);
    worker.on('message', (m: WorkerMessage) => this.#onMessage(slot, worker, m));
    worker.on('error', (err: Error) => this.#onExit(slot, worker, `the pipeline worker failed: ${err.message}`));
    worker.on('exit', (code) => this.#onExit(slot, worker, `the pipeline worker exited with code ${code}`));
    worker.unref();
    slot.worker = worker;
    return worker;
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.running !== null) continue;
      let next = this.#queue.shift();
      while (next?.control.signal.aborted === true) {
        next.reject(new CancelledError());
        next = this.#queue.shift();
      }
      if (next === undefined) break;
      this.#start(slot, next);
    }
    for (const slot of this.#slots) if (slot.running === null) slot.worker?.unref();
  }

  #start(slot: Slot, next: Pending): void {
    slot.running = next;
    const worker = this.#ensureWorker(slot);
    worker.ref();
    const onAbort = () => {
      // The task may be deep in a computation: ending its worker is the only
      // immediate stop. The next task on this slot starts a fresh one.
      if (slot.running !== next) return;
      slot.worker = null;
      void worker.terminate();
      this.#finish(slot)?.reject(new CancelledError());
      this.#pump();
    };
    next.control.signal.addEventListener('abort', onAbort, { once: true });
    slot.detachAbort = () => next.control.signal.removeEventListener('abort', onAbort);
    const message: MainMessage = { type: 'run', id: next.id, task: next.task, payload: next.payload };
    worker.postMessage(message, next.transfer);
  }

  /** Takes the slot's running task off it (its promise is the caller's to settle). */
  #finish(slot: Slot): Pending | null {
    const p = slot.running;
    slot.running = null;
    slot.detachAbort?.();
    slot.detachAbort = null;
    return p;
  }

  #onMessage(slot: Slot, worker: Worker, m: WorkerMessage): void {
    const p = slot.running;
    if (p === null || worker !== slot.worker || m.id !== p.id) return;
    switch (m.type) {
      case 'progress':
        p.control.progress(m.fraction);
        return;
      case 'checkpoint':
        p.control.checkpoint().then(
          () => {
            if (slot.running === p) worker.postMessage({ type: 'resume', id: p.id, n: m.n } satisfies MainMessage);
          },
          () => undefined, // cancelled: the abort listener ends the worker
        );
        return;
      case 'done':
        this.#finish(slot);
        p.resolve(m.result);
        this.#pump();
        return;
      case 'failed':
        this.#finish(slot);
        p.reject(deserializeError(m.error));
        this.#pump();
        return;
    }
  }

  #onExit(slot: Slot, worker: Worker, why: string): void {
    if (worker !== slot.worker) return; // ended on purpose
    slot.worker = null;
    this.#finish(slot)?.reject(new StageError(why, { retryable: true }));
    this.#pump();
  }
}

/** The gateway's one runner (the real pipeline's stages share it). */
const offThread = new OffThreadRunner();

// ── The stages, as the pipeline calls them ─────────────────────────────────

/**
 * The front end (enhance/front-end.ts) with its passes on the workers, with
 * the switches of the vad section the transcription was given. Its decisions
 * are taken here, between passes (each a short wait on the workers); each
 * denoising and dereverberation pass is cut into one part per worker and run
 * side by side (enhance/parts.ts, decision 102).
 */
export function offThreadEnhancer(runner: OffThreadRunner = offThread): Enhancer {
  const passes = offThreadPasses(runner);
  return async (audio, s, control) => {
    // Nothing to do: no trip to the workers (and no copy of the audio).
    if (s.enhancement === 'off' || audio.samples.length === 0 || (!s.denoise && !s.dereverberation)) return audio;
    const settings = { enhancement: s.enhancement, denoise: s.denoise, dereverberation: s.dereverberation };
    return (await enhanceSpeech(audio, settings, control, passes)).audio;
  };
}

function offThreadPasses(runner: OffThreadRunner): FrontEndPasses {
  return {
    concurrent: runner.threads > 1,
    estimate: (audio, control) => runner.run<SignalEstimate>('estimate', { samples: audio.samples }, control),
    async denoise(audio, control) {
      // Whole: RNNoise is recurrent, and a part started from the samples
      // before it still differed from one pass ten seconds on (decision 102).
      const out = await runner.run<DenoisedSamples>('denoise', { samples: audio.samples }, control);
      return { audio: { ...pcmLike(audio), samples: out.samples }, speechProbability: out.speechProbability };
    },
    async dereverberate(audio, control) {
      const length = audio.samples.length;
      const plan = planWpeParts(length, runner.threads);
      const outputs = await inParts(
        control,
        plan.map((part) => part.blocks.to - part.blocks.from),
        (part, partControl) => {
          const { read, blocks } = plan[part]!;
          const samples = audio.samples.slice(...read);
          return runner.run<{ start: number; samples: Float32Array }>(
            'dereverberate',
            { samples, offset: read[0], length, blocks },
            partControl,
            [samples.buffer],
          );
        },
      );
      return { ...pcmLike(audio), samples: joinWpeParts(length, outputs) };
    },
  };
}

/** The audio's rate and length without its samples or the denoiser's probability. */
function pcmLike(audio: PcmAudio): PcmAudio {
  return { sampleRate: audio.sampleRate, samples: audio.samples, durationSeconds: audio.durationSeconds };
}

/**
 * Runs a pass's parts side by side (all or nothing: one failing stops the
 * rest), reporting the pass's progress as the parts' progress weighted by
 * their sizes.
 */
function inParts<T>(
  control: StageControl,
  sizes: readonly number[],
  runPart: (part: number, control: StageControl) => Promise<T>,
): Promise<T[]> {
  const total = sizes.reduce((a, b) => a + b, 0) || 1;
  const done = sizes.map(() => 0);
  return allOrNothing(control, (shared) =>
    sizes.map((_, part) =>
      runPart(part, {
        ...shared,
        progress: (fraction) => {
          done[part] = Math.max(done[part]!, fraction);
          shared.progress(sizes.reduce((sum, size, i) => sum + size * done[i]!, 0) / total);
        },
      }),
    ),
  );
}

/** The diarizer (diarize.ts) on the worker: its turns and each speaker's voice statistics. */
export function offThreadDiarizer(runner: OffThreadRunner = offThread): TranscriptionParts['diarize'] {
  return (audio, regions, settings, control) =>
    runner.run<Diarization>(
      'diarize',
      { audio: { samples: audio.samples }, regions: regions.map((r) => ({ start: r.start, end: r.end })), settings: { ...settings } },
      control,
    );
}

/**
 * The vocabulary-biased language model (lm-bias.ts biasTrieModel)
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
