/**
 * Diarization's second speaker in overlapped speech (server/pipeline/diarize.ts,
 * step 5; decision 156). The turns give every moment one speaker; where two
 * people talk at once, the other voice is missed. A block near a change of
 * speaker whose frames its own speaker's Gaussians explain hardly better
 * than a neighbouring speaker's is taken as both voices at once: two voices
 * mixed sit between the two models, while one voice alone is explained by
 * its own model clearly better than by any other.
 *
 * "Hardly better" is relative to the speaker's own blocks: the block's
 * margin (per frame, its speaker's log-likelihood less the best other
 * speaker's) under OVERLAP_MARGIN_FRACTION of the median margin of that
 * speaker's blocks. Relative, so it does not depend on how far apart the
 * meeting's voices are. Chosen on real recorded voices mixed with overlaps,
 * not on the simulator's meetings (decision 156).
 */
import type { Block } from './blocks.ts';
import { clusterStats, fitGaussian, windowLogLikelihood } from './likelihood.ts';

/**
 * A block's margin at or above 0 (its own speaker still explains it best) and
 * under this share of its speaker's median margin: two voices at once. 0: the
 * step is off, and it is off by default. Measured (decision 156): on real
 * recorded voices with no overlap at all, 0.2 already adds 1.4 points of
 * false alarm at the changes of speaker; 0.1 adds none there, and on the
 * simulator's natural meetings moves DER by −0.4 to +0.3 points: no help.
 * Kept, off, as the measured baseline a better overlap detector has to beat
 * (`node bench/quality-diarizer.ts … --overlap-fraction 0.1`).
 */
export const OVERLAP_MARGIN_FRACTION = 0;
/** Only blocks this close (seconds) to a change of speaker, and only the speaker on the other side of it, are considered. */
const OVERLAP_NEAR_CHANGE_SECONDS = 1;
/** A block with fewer kept frames (10 ms each) says too little to be judged. */
const MIN_BLOCK_FRAMES = 10;

interface LabelledSpan {
  label: number;
  start: number;
  end: number;
}

export interface OverlapOptions {
  /** OVERLAP_MARGIN_FRACTION unless given; 0 turns the step off (the benchmark's "before"). */
  marginFraction?: number;
  nearChangeSeconds?: number;
}

/**
 * Second-speaker spans: for each block of `turns` judged as two voices, the
 * speaker across the nearby change of speaker, runs of blocks joined.
 * `spoken` is each block's label as the turns give it (−1: in no turn).
 */
export function overlapSpans(
  blocks: readonly Block[],
  spoken: Int32Array,
  turns: readonly LabelledSpan[],
  opts: OverlapOptions = {},
): LabelledSpan[] {
  const fraction = opts.marginFraction ?? OVERLAP_MARGIN_FRACTION;
  const near = opts.nearChangeSeconds ?? OVERLAP_NEAR_CHANGE_SECONDS;
  const ids = [...new Set(spoken.filter((l) => l >= 0))];
  if (ids.length < 2 || !(fraction > 0)) return [];
  const k = Math.max(...ids) + 1;
  const models = clusterStats(
    spoken,
    k,
    blocks.map((b) => b.stats),
  ).map((s) => (s.n > 0 ? fitGaussian(s) : null));

  // Each block's margin over the best other speaker, per frame, and who that is.
  const margin = new Float64Array(blocks.length).fill(NaN);
  const runnerUp = new Int32Array(blocks.length).fill(-1);
  blocks.forEach((b, i) => {
    const own = spoken[i]!;
    const model = own >= 0 ? models[own] : null;
    if (model === null || model === undefined || b.stats.n < MIN_BLOCK_FRAMES) return;
    const ownLl = windowLogLikelihood(model, b.stats) / b.stats.n;
    let best = -Infinity;
    models.forEach((m, j) => {
      if (j === own || m === null) return;
      const ll = windowLogLikelihood(m, b.stats) / b.stats.n;
      if (ll > best) {
        best = ll;
        runnerUp[i] = j;
      }
    });
    margin[i] = ownLl - best;
  });
  const typical = new Float64Array(k).fill(NaN);
  for (const id of ids) {
    const own = [...margin].filter((m, i) => spoken[i] === id && !Number.isNaN(m)).sort((a, b) => a - b);
    if (own.length > 0) typical[id] = own[Math.floor(own.length / 2)]!;
  }

  const out: LabelledSpan[] = [];
  blocks.forEach((b, i) => {
    const own = spoken[i]!;
    const second = runnerUp[i]!;
    if (own < 0 || second < 0 || !(typical[own]! > 0) || !(margin[i]! >= 0 && margin[i]! < fraction * typical[own]!)) return;
    if (!acrossNearbyChange(turns, b, own, second, near)) return;
    const last = out[out.length - 1];
    if (last !== undefined && last.label === second && b.start - last.end < 1e-6) last.end = b.end;
    else out.push({ label: second, start: b.start, end: b.end });
  });
  return out;
}

/** Whether a turn of `second` starts or ends within `near` seconds of the block, beside a turn of `own`: a change between the two. */
export function acrossNearbyChange(turns: readonly LabelledSpan[], b: Block, own: number, second: number, near: number): boolean {
  const mid = (b.start + b.end) / 2;
  for (let t = 1; t < turns.length; t++) {
    const before = turns[t - 1]!;
    const after = turns[t]!;
    const pair = (before.label === own && after.label === second) || (before.label === second && after.label === own);
    if (!pair) continue;
    if (Math.abs(before.end - mid) <= near || Math.abs(after.start - mid) <= near) return true;
  }
  return false;
}
