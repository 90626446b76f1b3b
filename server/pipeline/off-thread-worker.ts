/**
 * The worker thread behind off-thread.ts: the table of CPU-heavy tasks it
 * runs, each the same function the pipeline would run in place, with a
 * StageControl whose progress and checkpoints travel to the main thread.
 */
import { parentPort, type Transferable } from 'node:worker_threads';
import { biasTrieModel, readTrieModel, type TrieLanguageModel } from './lm-bias.ts';
import { diarizeWithVoices } from './diarize.ts';
import { estimateSignal } from './enhance/estimate.ts';
import type { DenoisedSamples } from './enhance/parts.ts';
import { denoise } from './enhance/rnnoise.ts';
import { dereverberateBlocks, type WpeBlocks } from './enhance/wpe.ts';
import { serializeError, type MainMessage, type WorkerMessage } from './off-thread.ts';
import { analyseFrames } from './vad.ts';
import { PIPELINE_SAMPLE_RATE, type DiarizationSettings, type PcmAudio, type SpeechRegion, type StageControl } from './types.ts';

if (parentPort === null) throw new Error('off-thread-worker.ts runs as a worker thread (off-thread.ts starts it)');
const port = parentPort;

/** Audio as it crosses threads: samples, and the denoiser's probability when there is one. */
export interface AudioPayload {
  samples: Float32Array;
  speechProbability?: Float32Array | undefined;
}

export function toPcm(a: AudioPayload): PcmAudio {
  const audio: PcmAudio = {
    sampleRate: PIPELINE_SAMPLE_RATE,
    samples: a.samples,
    durationSeconds: a.samples.length / PIPELINE_SAMPLE_RATE,
  };
  if (a.speechProbability !== undefined) audio.speechProbability = a.speechProbability;
  return audio;
}

type TaskResult = { result: unknown; transfer: Transferable[] };

/** Stock language models read once per worker (their layout is needed on every adaptation). */
const trieModels = new Map<string, TrieLanguageModel>();

const TASKS: Record<string, (payload: never, control: StageControl) => Promise<TaskResult>> = {
  estimate(payload: { samples: Float32Array }) {
    return Promise.resolve({ result: estimateSignal(analyseFrames(toPcm(payload))), transfer: [] });
  },
  async denoise(payload: { samples: Float32Array }, control) {
    const out = await denoise(toPcm(payload), control);
    const result: DenoisedSamples = { samples: out.audio.samples, speechProbability: out.speechProbability };
    return { result, transfer: [result.samples.buffer as ArrayBuffer, result.speechProbability.buffer as ArrayBuffer] };
  },
  async dereverberate(payload: { samples: Float32Array; offset: number; length: number; blocks: WpeBlocks }, control) {
    const out = await dereverberateBlocks(payload.samples, payload.offset, payload.length, payload.blocks, control);
    return { result: out, transfer: [out.samples.buffer as ArrayBuffer] };
  },
  async diarize(payload: { audio: AudioPayload; regions: SpeechRegion[]; settings: DiarizationSettings }, control) {
    return { result: await diarizeWithVoices(toPcm(payload.audio), payload.regions, payload.settings, control), transfer: [] };
  },
  'bias-lm'(payload: { lmPath: string; words: string[]; boost: number; floor: number }) {
    let model = trieModels.get(payload.lmPath);
    if (model === undefined) {
      model = readTrieModel(payload.lmPath);
      trieModels.set(payload.lmPath, model);
    }
    const bytes = biasTrieModel(model, { words: payload.words, boost: payload.boost, floor: payload.floor });
    const out = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return Promise.resolve({
      result: out,
      transfer: bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [],
    });
  },
};

/** Progress is posted when it moves by this much, so a tight loop does not flood the channel. */
const PROGRESS_STEP = 0.005;

const resumes = new Map<number, () => void>();
let checkpoints = 0;

function controlFor(id: number): StageControl {
  let last = -1;
  return {
    // Cancelling ends this thread (off-thread.ts), so the signal here never fires.
    signal: new AbortController().signal,
    checkpoint: () =>
      new Promise<void>((resolve) => {
        const n = ++checkpoints;
        resumes.set(n, resolve);
        port.postMessage({ type: 'checkpoint', id, n } satisfies WorkerMessage);
      }),
    track: () => () => undefined,
    progress: (fraction) => {
      if (fraction < 1 && fraction - last < PROGRESS_STEP) return;
      last = fraction;
      port.postMessage({ type: 'progress', id, fraction } satisfies WorkerMessage);
    },
  };
}

port.on('message', (m: MainMessage) => {
  if (m.type === 'resume') {
    const resume = resumes.get(m.n);
    resumes.delete(m.n);
    resume?.();
    return;
  }
  const task = TASKS[m.task];
  const run = task === undefined ? Promise.reject(new Error(`no task "${m.task}"`)) : task(m.payload as never, controlFor(m.id));
  run.then(
    ({ result, transfer }) => port.postMessage({ type: 'done', id: m.id, result } satisfies WorkerMessage, transfer),
    (err: unknown) => port.postMessage({ type: 'failed', id: m.id, error: serializeError(err) } satisfies WorkerMessage),
  );
});
