/**
 * Diarization's second speaker from a model of the mixture itself
 * (server/pipeline/diarize.ts, step 5; decision 179). Where two people talk
 * at once, their sound adds up: in the power spectrum, and so in the mel
 * filterbank's energies, overlapped speech of A and B is about the sum of
 * A's and B's. So a model of "A and B at once" is built from the meeting's
 * own single-speaker frames: frames of A's turns paired with frames of B's
 * (each at its own level, so the level ratios are the ones the meeting has),
 * their mel energies added, then log and the DCT to the diarizer's cepstra,
 * and a small Gaussian mixture fitted to them (diarize/gmm.ts), as one is to
 * each voice's own frames and to each voice summed with itself (a sum of two
 * frames is smoother than one frame, whoever speaks: without this control a
 * smooth block of one voice passes for two).
 *
 * A block that the A+B model explains better (mean log-likelihood per frame)
 * than every one-voice model (A, B, A+A, B+B) by more than the margin is
 * taken as both voices at once, and the speaker it is not labelled with
 * becomes a second speaker there, if the run of such blocks reaches the
 * change between A and B (atChangeTo). The comparison is on the cepstra only
 * (the pitch of two voices at once is whichever one YIN locks on). The margin
 * is the clustering's own bar (diarize.ts); nothing here is fitted on the
 * simulator's meetings; it was checked on real recorded voices (decision 179).
 */
import type { Block } from './blocks.ts';
import { MEL_FILTERS, melCepstra } from './features.ts';
import { fitGmm, gmmLogLikelihood, type Gmm } from './gmm.ts';
import { acrossNearbyChange } from './overlap.ts';

/** Where candidate blocks are looked for: near a change between the two speakers, or anywhere (interruptions, backchannels). */
export type MixtureScope = 'changes' | 'everywhere';
const MIXTURE_SCOPE: MixtureScope = 'changes';
/** Near a change of speaker: within this many seconds of one between the two. */
const NEAR_CHANGE_SECONDS = 1;
/** Frames of a speaker's turn this close to its edges may hold the neighbour's voice too; the models leave them out when enough remain. */
const TURN_EDGE_SECONDS = 0.5;
/** Fewer frames than this without the edges and a speaker's model takes its edges too. */
const MIN_MODEL_FRAMES = 200;
/** At most this many frames (and pairs of frames) a model: a 12-dimensional Gaussian is well fitted long before. */
const MAX_MODEL_FRAMES = 3000;
/** A block with fewer kept frames (10 ms each) says too little to be judged. */
const MIN_BLOCK_FRAMES = 10;

interface LabelledSpan {
  label: number;
  start: number;
  end: number;
}

export interface MixtureOptions {
  /** The per-frame log-likelihood by which the mixture model must beat both voices alone; null: off. */
  margin: number | null;
  scope?: MixtureScope;
}

/** One block's verdict: the per-frame log-likelihoods of its own speaker, the best other candidate and their mixture. */
interface MixtureVerdict {
  block: number;
  other: number;
  /** Mixture less the better of the two single-speaker models, per frame. */
  gain: number;
}

/**
 * Second-speaker spans: for each block of `turns` the mixture of its speaker
 * and another explains better than either by more than the margin, that
 * other speaker, runs of blocks joined. `spoken` is each block's label as the
 * turns give it (−1: in no turn).
 */
export function mixtureOverlapSpans(
  blocks: readonly Block[],
  spoken: Int32Array,
  turns: readonly LabelledSpan[],
  opts: MixtureOptions,
): LabelledSpan[] {
  const margin = opts.margin;
  if (margin === null || !Number.isFinite(margin)) return [];
  const out: LabelledSpan[] = [];
  for (const v of mixtureVerdicts(blocks, spoken, turns, opts.scope ?? MIXTURE_SCOPE)) {
    if (!(v.gain > margin)) continue;
    const b = blocks[v.block]!;
    const last = out[out.length - 1];
    if (last !== undefined && last.label === v.other && b.start - last.end < 1e-6) last.end = b.end;
    else out.push({ label: v.other, start: b.start, end: b.end });
  }
  return (opts.scope ?? MIXTURE_SCOPE) === 'changes' ? out.filter((run) => atChangeTo(turns, run)) : out;
}

/**
 * Whether a run of the second speaker reaches the edge of the turn it lies
 * in, on the side where the next or previous turn is that speaker's: two
 * people talking at once at a change of speaker surround the change the
 * turns put somewhere inside it. A run inside a turn away from its edges is
 * no such overlap (the scope 'everywhere' looks for those).
 */
function atChangeTo(turns: readonly LabelledSpan[], run: LabelledSpan): boolean {
  const t = turns.findIndex((turn) => turn.start <= run.start + 1e-6 && run.start < turn.end);
  if (t < 0) return false;
  const turn = turns[t]!;
  return (
    (Math.abs(run.start - turn.start) < 1e-6 && turns[t - 1]?.label === run.label) ||
    (Math.abs(run.end - turn.end) < 1e-6 && turns[t + 1]?.label === run.label)
  );
}

/** Every candidate block's best mixture gain (the other speaker it is best mixed with), in block order. */
function mixtureVerdicts(
  blocks: readonly Block[],
  spoken: Int32Array,
  turns: readonly LabelledSpan[],
  scope: MixtureScope = MIXTURE_SCOPE,
): MixtureVerdict[] {
  const ids = [...new Set(spoken.filter((l) => l >= 0))].sort((a, b) => a - b);
  if (ids.length < 2 || blocks.some((b) => b.logMel === undefined)) return [];
  const frames = new Map(ids.map((id) => [id, speakerFrames(blocks, spoken, turns, id)]));
  const single = new Map([...frames].map(([id, f]) => [id, fitGmm(f.map((m) => melCepstra(m)))]));
  const mixtures = new Map<string, Gmm>();
  const mixture = (a: number, b: number): Gmm => {
    const key = a < b ? `${a}:${b}` : `${b}:${a}`;
    let g = mixtures.get(key);
    if (g === undefined) {
      g = fitGmm(mixedFrames(frames.get(a)!, frames.get(b)!));
      mixtures.set(key, g);
    }
    return g;
  };
  const out: MixtureVerdict[] = [];
  blocks.forEach((b, i) => {
    const own = spoken[i]!;
    if (own < 0 || b.stats.n < MIN_BLOCK_FRAMES) return;
    const cepstra = blockCepstra(b.logMel!);
    const ll = (g: Gmm) => gmmLogLikelihood(g, cepstra);
    // One voice, or one voice summed with itself (a sum of two frames is smoother than one, whoever speaks).
    const llOwn = Math.max(ll(single.get(own)!), ll(mixture(own, own)));
    let best: MixtureVerdict | null = null;
    for (const other of ids) {
      if (other === own || (scope === 'changes' && !acrossNearbyChange(turns, b, own, other, NEAR_CHANGE_SECONDS))) continue;
      const llOther = Math.max(ll(single.get(other)!), ll(mixture(other, other)));
      const gain = ll(mixture(own, other)) - Math.max(llOwn, llOther);
      if (best === null || gain > best.gain) best = { block: i, other, gain };
    }
    if (best !== null) out.push(best);
  });
  return out;
}

function blockCepstra(logMel: Float32Array): Float64Array[] {
  const out: Float64Array[] = [];
  for (let f = 0; f + MEL_FILTERS <= logMel.length; f += MEL_FILTERS) out.push(melCepstra(logMel, f));
  return out;
}

/**
 * A speaker's frames' log mel energies (MEL_FILTERS each, concatenated):
 * its blocks away from its turns' edges, or all its blocks when those are
 * too few; evenly thinned to MAX_MODEL_FRAMES.
 */
function speakerFrames(blocks: readonly Block[], spoken: Int32Array, turns: readonly LabelledSpan[], id: number): Float32Array[] {
  const inner: Float32Array[] = [];
  const all: Float32Array[] = [];
  let t = 0;
  blocks.forEach((b, i) => {
    if (spoken[i] !== id) return;
    while (t < turns.length && turns[t]!.end <= b.start) t++;
    const turn = turns[t];
    const away = turn !== undefined && b.start - turn.start >= TURN_EDGE_SECONDS && turn.end - b.end >= TURN_EDGE_SECONDS;
    const mel = b.logMel!;
    for (let f = 0; f + MEL_FILTERS <= mel.length; f += MEL_FILTERS) {
      const frame = mel.subarray(f, f + MEL_FILTERS);
      all.push(frame);
      if (away) inner.push(frame);
    }
  });
  const chosen = inner.length >= MIN_MODEL_FRAMES ? inner : all;
  if (chosen.length <= MAX_MODEL_FRAMES) return chosen;
  return Array.from({ length: MAX_MODEL_FRAMES }, (_, k) => chosen[Math.floor((k * chosen.length) / MAX_MODEL_FRAMES)]!);
}

/**
 * Two speakers' frames heard at once, as cepstra: pairs of frames (each of
 * A's with one of B's, drawn by a fixed sequence so a run gives the same
 * model) whose mel energies are added, then log and DCT.
 */
function mixedFrames(a: readonly Float32Array[], b: readonly Float32Array[]): Float64Array[] {
  const pairs = Math.min(MAX_MODEL_FRAMES, Math.max(a.length, b.length));
  const random = fixedSequence(a.length * 31 + b.length);
  const sum = new Float64Array(MEL_FILTERS);
  return Array.from({ length: pairs }, (_, k) => {
    const fa = a[k % a.length]!;
    const fb = b[Math.floor(random() * b.length)]!;
    for (let m = 0; m < MEL_FILTERS; m++) sum[m] = Math.log(Math.exp(fa[m]!) + Math.exp(fb[m]!));
    return melCepstra(sum);
  });
}

/** A fixed pseudo-random sequence in [0, 1) (mulberry32): the pairing of frames, the same on every run. */
function fixedSequence(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
