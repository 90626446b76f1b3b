/**
 * Denoising with RNNoise (a small recurrent network that predicts per-band
 * gains, with its weights compiled into the WebAssembly module of
 * @echogarden/rnnoise-wasm, BSD-3-Clause). It works on 480-sample frames at
 * 48 kHz with samples on the 16-bit scale, so the pipeline's 16 kHz floats
 * are upsampled by 3, scaled, denoised and brought back. Per frame it also
 * returns its estimate of the probability that the frame holds speech, which
 * the voice-activity comparison in decision 036 uses.
 */
import { PIPELINE_SAMPLE_RATE, StageError, type PcmAudio, type StageControl } from '../types.ts';
import { downsample3, RESAMPLE_FACTOR, upsample3 } from '../../../common/audio/resample.ts';

const FRAME = 480;
const INT16_SCALE = 32768;
/** RNNoise's overlap-add puts its output one frame behind its input. */
const LATENCY_FRAMES = 1;
/** Frames between checkpoints: 1 s of audio. */
const FRAMES_PER_CHECKPOINT = 100;

interface RnnoiseModule {
  _rnnoise_create(model: number): number;
  _rnnoise_destroy(state: number): void;
  _rnnoise_process_frame(state: number, out: number, input: number): number;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  HEAPF32: Float32Array;
}

let modulePromise: Promise<RnnoiseModule> | null = null;

/** The WebAssembly module, instantiated once per process. */
function loadModule(): Promise<RnnoiseModule> {
  modulePromise ??= import('@echogarden/rnnoise-wasm')
    .then(async (m) => (await m.default()) as RnnoiseModule)
    .catch((err: unknown) => {
      modulePromise = null;
      throw new StageError(`the RNNoise denoiser could not be loaded: ${(err as Error).message}`, {
        retryable: true,
        dependencyMissing: true,
        cause: err,
      });
    });
  return modulePromise;
}

export interface DenoiseResult {
  audio: PcmAudio;
  /** RNNoise's speech probability per 10 ms of the input (frame i covers i·10 ms … (i+1)·10 ms). */
  speechProbability: Float32Array;
}

export async function denoise(audio: PcmAudio, control: StageControl): Promise<DenoiseResult> {
  const rnn = await loadModule();
  const high = upsample3(audio.samples);
  const frames = Math.ceil(high.length / FRAME) + LATENCY_FRAMES;
  const cleaned = new Float32Array(frames * FRAME);
  const probability = new Float32Array(frames);
  const state = rnn._rnnoise_create(0);
  const inPtr = rnn._malloc(FRAME * 4);
  const outPtr = rnn._malloc(FRAME * 4);
  try {
    for (let f = 0; f < frames; f++) {
      // The heap view is re-read each frame: a memory growth replaces it.
      const heap = rnn.HEAPF32;
      const base = inPtr >> 2;
      for (let i = 0; i < FRAME; i++) {
        const s = f * FRAME + i;
        heap[base + i] = s < high.length ? high[s]! * INT16_SCALE : 0;
      }
      probability[f] = rnn._rnnoise_process_frame(state, outPtr, inPtr);
      cleaned.set(rnn.HEAPF32.subarray(outPtr >> 2, (outPtr >> 2) + FRAME), f * FRAME);
      if (f % FRAMES_PER_CHECKPOINT === FRAMES_PER_CHECKPOINT - 1) {
        control.progress(f / frames);
        await control.checkpoint();
      }
    }
  } finally {
    rnn._free(inPtr);
    rnn._free(outPtr);
    rnn._rnnoise_destroy(state);
  }
  const aligned = cleaned.subarray(LATENCY_FRAMES * FRAME, LATENCY_FRAMES * FRAME + high.length);
  for (let i = 0; i < aligned.length; i++) aligned[i] = aligned[i]! / INT16_SCALE;
  const low = downsample3(aligned);
  const samples = new Float32Array(audio.samples.length);
  samples.set(low.subarray(0, samples.length));
  // The probability of frame f describes input frame f − latency.
  const speechProbability = probability.slice(LATENCY_FRAMES, LATENCY_FRAMES + Math.ceil(audio.samples.length / (FRAME / RESAMPLE_FACTOR)));
  return { audio: { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: audio.durationSeconds }, speechProbability };
}
