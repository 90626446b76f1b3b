/**
 * The front end on more than one thread (decision 102). On two cores the
 * front end of a noisy, reverberant meeting (RNNoise, WPE, RNNoise again)
 * took a tenth of the audio's length on one core while the other waited for
 * recognition to start.
 *
 *   WPE      estimates its predictors block by block (60 s each), every
 *            block from its own frames with the ones before it as history
 *            only, so blocks are independent: a part is a run of whole
 *            blocks, and the join adds the parts' outputs where their STFT
 *            frames overlap. The result is the whole recording's to rounding.
 *   RNNoise  is recurrent, and its state remembers for longer than a useful
 *            warm-up (a part started ten seconds early still differed from
 *            one pass): it is never cut. A noisy recording's first denoising
 *            runs beside its dereverberation instead (front-end.ts).
 */
import { wpeBlockCount, wpeBlockWindow, type WpeBlocks, type WpeOptions } from './wpe.ts';

/** What denoising a recording gave on a worker (off-thread.ts): its samples and speech probabilities (one per 10 ms). */
export interface DenoisedSamples {
  samples: Float32Array;
  speechProbability: Float32Array;
}

/** A WPE part: its blocks and the samples it reads. */
export interface WpePart {
  blocks: WpeBlocks;
  read: [number, number];
}

/** Cuts a recording's WPE blocks into at most `count` runs of whole blocks, as equal as blocks allow. */
export function planWpeParts(length: number, count: number, options: Partial<WpeOptions> = {}): WpePart[] {
  const blocks = wpeBlockCount(length, options);
  const parts = Math.max(1, Math.min(Math.floor(count), blocks));
  const plan: WpePart[] = [];
  for (let p = 0; p < parts; p++) {
    const run = { from: Math.round((blocks * p) / parts), to: Math.round((blocks * (p + 1)) / parts) };
    plan.push({ blocks: run, read: wpeBlockWindow(length, run, options).read });
  }
  return plan;
}

/** Adds the parts' outputs (each from its own start) into the recording's: they overlap only by a few STFT frames at each cut. */
export function joinWpeParts(length: number, outputs: readonly { start: number; samples: Float32Array }[]): Float32Array {
  const joined = new Float32Array(length);
  for (const o of outputs) for (let i = 0; i < o.samples.length; i++) joined[o.start + i] = joined[o.start + i]! + o.samples[i]!;
  return joined;
}
