/**
 * Diarization: who spoke when, by clustering the voice.
 *
 *   1. Speech regions are cut into blocks of 0.25 s. Each block keeps the
 *      sufficient statistics (count, sum, sum of outer products) of its
 *      frames' MFCCs c1…c12 (25 ms frames every 10 ms) and of its voiced
 *      frames' log-F0 (YIN). Only frames that carry voice count: above the
 *      recording's background level (its 10th-percentile frame level + 6 dB)
 *      and within 35 dB of the loudest frame within 0.75 s.
 *   2. Windows of 6 blocks (1.5 s, hop 0.75 s) are described by mean and
 *      standard deviation of the cepstra and mean and spread of log-F0,
 *      standardised over the recording and weighted; average-linkage
 *      clustering on cosine distance cut into at least 12 clusters (2 ×
 *      max_speakers) gives a generous first partition.
 *   3. Bottom-up: the pair of clusters whose frames one Gaussian explains
 *      nearly as well as two (the smallest splitScore, a per-frame BIC
 *      likelihood ratio) merges, until every pair scores at least the bar
 *      from clustering_threshold (or the count is speaker_count, or within
 *      max_speakers). Then a Viterbi resegmentation assigns every block to
 *      the speaker whose full-covariance Gaussians explain it best, with a
 *      penalty per change of speaker; the same test runs again on its
 *      result (a pair whose pitch gives no sign of two voices needs a higher
 *      bar there: the resegmentation chose that partition itself), and a
 *      cluster with under 2 s of voice or no stretch of 1.5 s of its own
 *      (windows that straddled two voices) joins its nearest.
 *   4. Runs of a label become turns; turns under 0.5 s join a neighbour;
 *      speakers are named S1, S2, … by first appearance.
 * Decisions: docs/decisions/034-diarization-likelihood-merging.md (this
 * method), 092-diarization-pitchless-splits.md (the higher bar after the
 * resegmentation), 010-decode-vad-diarization.md (the first one).
 */
import type { DiarizationSettings, PcmAudio, SpeakerTurn, SpeechRegion, StageControl } from './types.ts';
import { Fft } from './enhance/fft.ts';

/** Speech regions are cut into blocks of about this length: the unit a speaker is assigned to. */
const BLOCK_SECONDS = 0.25;
/** Windows of 6 blocks (1.5 s) every 3 (0.75 s) describe the voice for the first clustering. */
const WINDOW_BLOCKS = 6;
const WINDOW_HOP_BLOCKS = 3;
/** A region shorter than this has no window of its own; the resegmentation still gives it a speaker. */
const MIN_WINDOW_SECONDS = 0.4;
/** A window with fewer kept frames than this says too little about a voice to be clustered. */
const MIN_WINDOW_FRAMES = 20;
/** Above this many windows, the dendrogram is built on an evenly spaced sample of them (memory and time grow as n²). */
const MAX_CLUSTER_POINTS = 1200;
/** In the dendrogram cut, a cluster with fewer windows than this is not kept. */
const MIN_SPEAKER_WINDOWS = 3;
/** Passes of nearest-centroid refinement after the dendrogram cut. */
const REFINE_PASSES = 5;
/** Passes of Viterbi resegmentation (models refitted between passes) after each merge. */
const RESEGMENT_PASSES = 4;
/** Clusters cut from the dendrogram before merging by likelihood (at least twice max_speakers). */
const INITIAL_CLUSTERS = 12;
/** A cluster with fewer kept frames (10 ms each) than this is not a speaker of its own: 2 s of voice. */
const MIN_SPEAKER_FRAMES = 200;
/** Nor is one whose longest uninterrupted stretch is shorter than this. */
const MIN_SPEAKER_RUN_SECONDS = 1.5;
/** Added to covariance diagonals (cepstra are O(1)–O(10)), so a small cluster's covariance stays invertible. */
const COVARIANCE_RIDGE = 1e-3;
/** Log-likelihood (nats) a change of speaker costs in the resegmentation, inside a region and across a pause. */
const SWITCH_PENALTY = 25;
const SWITCH_PENALTY_ACROSS_PAUSE = 10;
/** Frames quieter than this quantile of the recording's frame levels plus the margin are background, not voice. */
const BACKGROUND_QUANTILE = 0.1;
const BACKGROUND_MARGIN_DB = 6;
/** Frames are compared with the loudest frame within this many seconds either side. */
const LOCAL_PEAK_SECONDS = 0.75;
/** Turns shorter than this are absorbed by their neighbours. */
const MIN_TURN_SECONDS = 0.5;
/** Turns of one speaker closer than this are one turn. */
const MERGE_GAP_SECONDS = 0.5;

/** Feature weights after standardisation (cosine distance scales with their squares). */
const WEIGHT_MFCC_MEAN = 1;
const WEIGHT_MFCC_STD = 0.5;
const WEIGHT_PITCH_MEDIAN = 2.5;
const WEIGHT_PITCH_SPREAD = 0.7;

/**
 * The split score (see splitScore) that two clusters need to stay two
 * speakers, from clustering_threshold (0..1): 0.05 at 0, 0.4 at the default
 * 0.5, 0.75 at 1. A higher threshold merges more and finds fewer speakers.
 * Measured on Flite/Festival and espeak-ng voices (decision 034): one voice
 * split in two scored up to about 0.3, two espeak-ng voices that differ
 * mostly in pitch 0.44, different Flite/Festival speakers more.
 */
function requiredSplitScore(clusteringThreshold: number): number {
  const t = Number.isFinite(clusteringThreshold) ? Math.min(1, Math.max(0, clusteringThreshold)) : 0.5;
  return 0.05 + 0.7 * t;
}

// ── Entry points ─────────────────────────────────────────────────────────

export async function diarize(
  audio: PcmAudio,
  regions: readonly SpeechRegion[],
  settings: DiarizationSettings,
  control: StageControl,
): Promise<SpeakerTurn[]> {
  const duration = audio.samples.length / audio.sampleRate;
  if (!settings.enabled) return duration > 0 ? [{ speaker: 'S1', start: 0, end: round3(duration) }] : [];
  // Inside the recording, in order, overlaps joined (the VAD gives them so; other callers may not).
  const speech: SpeechRegion[] = [];
  for (const r of regions
    .map((r) => ({ start: Math.max(0, r.start), end: Math.min(duration, r.end) }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start)) {
    const prev = speech[speech.length - 1];
    if (prev !== undefined && r.start <= prev.end) prev.end = Math.max(prev.end, r.end);
    else speech.push(r);
  }
  if (speech.length === 0) return [];
  control.progress(0);

  const cut = cutBlocks(speech);
  const windows = cutWindows(cut);
  const blocks = await describeBlocks(audio, cut, control);
  control.progress(0.5);

  const fixed = settings.speaker_count;
  const maxSpeakers = Math.max(1, settings.max_speakers, settings.min_speakers);
  const labels = await clusterBlocks(blocks, windows, {
    fixed: fixed === null ? null : Math.max(1, fixed),
    min: Math.max(1, Math.min(settings.min_speakers, maxSpeakers)),
    max: maxSpeakers,
    splitScore: requiredSplitScore(settings.clustering_threshold),
    control,
  });
  control.progress(0.9);
  const turns = turnsFromBlocks(blocks, labels);
  control.progress(1);
  return turns;
}

/**
 * The speaker of each word: the turn it overlaps most, or else the nearest
 * turn in time. With no turns at all every word is S1.
 */
export function assignSpeakers(words: readonly { start: number; end: number }[], turns: readonly SpeakerTurn[]): string[] {
  if (turns.length === 0) return words.map(() => 'S1');
  const sorted = [...turns].sort((a, b) => a.start - b.start);
  // Turns may overlap in the input; the largest end so far bounds the search to the left.
  const maxEnd = new Float64Array(sorted.length);
  sorted.forEach((t, i) => (maxEnd[i] = Math.max(t.end, i > 0 ? maxEnd[i - 1]! : -Infinity)));
  return words.map((w) => {
    // First turn whose running max end reaches past the word's start.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (maxEnd[mid]! <= w.start) lo = mid + 1;
      else hi = mid;
    }
    let best: SpeakerTurn | null = null;
    let bestOverlap = 0;
    for (let i = lo; i < sorted.length && sorted[i]!.start < w.end; i++) {
      const t = sorted[i]!;
      const overlap = Math.min(t.end, w.end) - Math.max(t.start, w.start);
      if (overlap > bestOverlap) {
        bestOverlap = overlap;
        best = t;
      }
    }
    if (best !== null) return best.speaker;
    // No overlap: the nearest turn by the gap between the intervals.
    let nearest = sorted[0]!;
    let gap = Infinity;
    for (const i of [lo - 1, lo, lo + 1]) {
      const t = sorted[i];
      if (t === undefined) continue;
      const g = Math.max(t.start - w.end, w.start - t.end, 0);
      if (g < gap) {
        gap = g;
        nearest = t;
      }
    }
    return nearest.speaker;
  });
}

// ── Blocks and windows ───────────────────────────────────────────────────

/** A short stretch of one speech region: the unit speakers are assigned to. */
interface Block {
  start: number;
  end: number;
  region: number;
  stats: FrameStats;
}

/** A run of consecutive blocks of one region: the unit the first clustering describes. */
interface Window {
  first: number;
  /** One past the last block. */
  last: number;
}

/** Each region cut into BLOCK_SECONDS blocks (the last takes the remainder; a short region is one block). */
function cutBlocks(regions: readonly SpeechRegion[]): Omit<Block, 'stats'>[] {
  const out: Omit<Block, 'stats'>[] = [];
  regions.forEach((r, region) => {
    const count = Math.max(1, Math.round((r.end - r.start) / BLOCK_SECONDS));
    const step = (r.end - r.start) / count;
    for (let i = 0; i < count; i++)
      out.push({ start: r.start + i * step, end: i === count - 1 ? r.end : r.start + (i + 1) * step, region });
  });
  return out;
}

/** Windows of WINDOW_BLOCKS blocks every WINDOW_HOP_BLOCKS inside each region; a shorter region of at least MIN_WINDOW_SECONDS is one window. */
function cutWindows(blocks: readonly Omit<Block, 'stats'>[]): Window[] {
  const out: Window[] = [];
  let from = 0;
  while (from < blocks.length) {
    let to = from;
    while (to < blocks.length && blocks[to]!.region === blocks[from]!.region) to++;
    const length = blocks[to - 1]!.end - blocks[from]!.start;
    if (to - from <= WINDOW_BLOCKS) {
      if (length >= MIN_WINDOW_SECONDS) out.push({ first: from, last: to });
    } else {
      let s = from;
      for (; s + WINDOW_BLOCKS <= to; s += WINDOW_HOP_BLOCKS) out.push({ first: s, last: s + WINDOW_BLOCKS });
      // The tail the hop did not reach gets a window ending with the region.
      if (out[out.length - 1]!.last < to) out.push({ first: to - WINDOW_BLOCKS, last: to });
    }
    from = to;
  }
  return out;
}

/** Frame energy below which a frame is background, in dBFS: the recording's quiet end plus a margin. */
function backgroundLevelDb(samples: Float32Array): number {
  const levels: number[] = [];
  for (let at = 0; at + FRAME <= samples.length; at += FRAME_HOP * 4) {
    let energy = 0;
    for (let i = 0; i < FRAME; i++) energy += samples[at + i]! ** 2;
    levels.push(10 * Math.log10(energy / FRAME + 1e-12));
  }
  if (levels.length === 0) return -Infinity;
  levels.sort((a, b) => a - b);
  return quantile(levels, BACKGROUND_QUANTILE) + BACKGROUND_MARGIN_DB;
}

/**
 * The frame statistics of every block: cepstra of the frames that carry
 * voice (above the background and within FRAME_DYNAMIC_RANGE_DB of the
 * loudest frame nearby) and log-F0 of its voiced pitch frames.
 */
async function describeBlocks(audio: PcmAudio, cut: readonly Omit<Block, 'stats'>[], control: StageControl): Promise<Block[]> {
  const mfcc = new MfccExtractor(audio.sampleRate);
  const down = decimateBy2(audio.samples);
  const background = backgroundLevelDb(audio.samples);
  const blocks: Block[] = [];
  let from = 0;
  while (from < cut.length) {
    if (blocks.length % 200 === 0 || from === 0) {
      await control.checkpoint();
      control.progress((0.5 * from) / cut.length);
    }
    let to = from;
    while (to < cut.length && cut[to]!.region === cut[from]!.region) to++;
    // One region at a time: its frames, then each block's share.
    const start = cut[from]!.start;
    const end = cut[to - 1]!.end;
    const f0 = Math.floor((start * audio.sampleRate) / FRAME_HOP);
    const f1 = Math.max(f0, Math.floor((end * audio.sampleRate - FRAME) / FRAME_HOP));
    const frames: { ceps: Float64Array; energyDb: number }[] = [];
    for (let f = f0; f <= f1; f++) frames.push(mfcc.frame(audio.samples, f * FRAME_HOP));
    const reach = Math.round(LOCAL_PEAK_SECONDS * 100);
    const peak = slidingMax(
      frames.map((f) => f.energyDb),
      reach,
    );
    const pitch: { time: number; logHz: number }[] = [];
    const p0 = Math.floor((start * PITCH_RATE) / PITCH_HOP);
    const p1 = Math.floor((end * PITCH_RATE - PITCH_FRAME - PITCH_MAX_LAG) / PITCH_HOP);
    for (let p = p0; p <= p1; p++) {
      const hz = yinPitch(down, p * PITCH_HOP);
      if (hz > 0) pitch.push({ time: (p * PITCH_HOP + PITCH_FRAME / 2) / PITCH_RATE, logHz: Math.log2(hz) });
    }
    let fi = 0;
    let pi = 0;
    for (let b = from; b < to; b++) {
      const block = cut[b]!;
      const st = emptyStats();
      // A frame belongs to the block holding its centre.
      for (; fi < frames.length && ((f0 + fi) * FRAME_HOP + FRAME / 2) / audio.sampleRate < block.end; fi++) {
        const fr = frames[fi]!;
        if (fr.energyDb < background || fr.energyDb < peak[fi]! - FRAME_DYNAMIC_RANGE_DB) continue;
        st.n++;
        for (let i = 0; i < CEPSTRA; i++) {
          st.sum[i]! += fr.ceps[i]!;
          for (let j = 0; j < CEPSTRA; j++) st.outer[i * CEPSTRA + j]! += fr.ceps[i]! * fr.ceps[j]!;
        }
      }
      for (; pi < pitch.length && pitch[pi]!.time < block.end; pi++) {
        st.pn++;
        st.psum += pitch[pi]!.logHz;
        st.psq += pitch[pi]!.logHz ** 2;
      }
      blocks.push({ ...block, stats: st });
    }
    from = to;
  }
  return blocks;
}

/** For each position, the largest value within ±reach. */
function slidingMax(values: readonly number[], reach: number): Float64Array {
  const out = new Float64Array(values.length);
  // Block maxima of width reach+1 make it O(n·(reach/width)) = O(n).
  const width = reach + 1;
  const chunk = new Float64Array(Math.ceil(values.length / width)).fill(-Infinity);
  values.forEach((v, i) => (chunk[Math.floor(i / width)] = Math.max(chunk[Math.floor(i / width)]!, v)));
  for (let i = 0; i < values.length; i++) {
    const lo = Math.max(0, i - reach);
    const hi = Math.min(values.length - 1, i + reach);
    let m = -Infinity;
    let j = lo;
    while (j <= hi) {
      if (j % width === 0 && j + width - 1 <= hi) {
        m = Math.max(m, chunk[j / width]!);
        j += width;
      } else {
        m = Math.max(m, values[j]!);
        j++;
      }
    }
    out[i] = m;
  }
  return out;
}

/**
 * Window feature vectors for the first clustering: mean and standard
 * deviation of each cepstrum, mean and spread of log-F0, each dimension
 * standardised over the recording and weighted.
 */
function windowFeatures(windowStats: readonly FrameStats[]): Float64Array[] {
  const pitchMean = new Float64Array(windowStats.length).fill(NaN);
  const pitchSpread = new Float64Array(windowStats.length).fill(NaN);
  const rows = windowStats.map((st, w) => {
    const row = new Float64Array(FEATURE_DIMENSIONS);
    const n = Math.max(1, st.n);
    for (let c = 0; c < CEPSTRA; c++) {
      const mean = st.sum[c]! / n;
      row[c] = mean;
      row[CEPSTRA + c] = Math.sqrt(Math.max(0, st.outer[c * CEPSTRA + c]! / n - mean * mean));
    }
    if (st.pn >= 3) {
      pitchMean[w] = st.psum / st.pn;
      pitchSpread[w] = Math.sqrt(Math.max(0, st.psq / st.pn - (st.psum / st.pn) ** 2));
    }
    return row;
  });
  // Windows without enough voiced frames take the recording's typical pitch: neutral after standardising.
  fillMissing(pitchMean);
  fillMissing(pitchSpread);
  rows.forEach((row, w) => {
    row[2 * CEPSTRA] = pitchMean[w]!;
    row[2 * CEPSTRA + 1] = pitchSpread[w]!;
  });
  standardise(rows);
  for (const row of rows) {
    for (let c = 0; c < CEPSTRA; c++) {
      row[c]! *= WEIGHT_MFCC_MEAN;
      row[CEPSTRA + c]! *= WEIGHT_MFCC_STD;
    }
    row[2 * CEPSTRA]! *= WEIGHT_PITCH_MEDIAN;
    row[2 * CEPSTRA + 1]! *= WEIGHT_PITCH_SPREAD;
  }
  return rows;
}

// ── Features ─────────────────────────────────────────────────────────────

const FRAME = 400; // 25 ms at 16 kHz
const FRAME_HOP = 160; // 10 ms
const FFT_SIZE = 512;
const MEL_FILTERS = 26;
const CEPSTRA = 12; // c1…c12; c0 (loudness) says little about who speaks
const PRE_EMPHASIS = 0.97;
/** Frames more than this far below the window's loudest frame are pauses between words and are left out. */
const FRAME_DYNAMIC_RANGE_DB = 35;

const FEATURE_DIMENSIONS = 2 * CEPSTRA + 2;

/**
 * Sufficient statistics of a window's frame cepstra (count, sum, sum of outer
 * products): clusters add them up to fit a Gaussian for the split test.
 */
interface FrameStats {
  n: number;
  sum: Float64Array;
  outer: Float64Array;
  /** Voiced frames' log2 F0: count, sum, sum of squares. */
  pn: number;
  psum: number;
  psq: number;
}

function emptyStats(): FrameStats {
  return { n: 0, sum: new Float64Array(CEPSTRA), outer: new Float64Array(CEPSTRA * CEPSTRA), pn: 0, psum: 0, psq: 0 };
}

function addStats(into: FrameStats, from: FrameStats): void {
  into.pn += from.pn;
  into.psum += from.psum;
  into.psq += from.psq;
  into.n += from.n;
  for (let i = 0; i < into.sum.length; i++) into.sum[i]! += from.sum[i]!;
  for (let i = 0; i < into.outer.length; i++) into.outer[i]! += from.outer[i]!;
}

function fillMissing(values: Float64Array): void {
  const known = [...values].filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  const fill = known.length > 0 ? quantile(known, 0.5) : 0;
  for (let i = 0; i < values.length; i++) if (Number.isNaN(values[i]!)) values[i] = fill;
}

/** Each dimension to zero mean and unit variance over the recording (a constant dimension becomes 0). */
function standardise(rows: Float64Array[]): void {
  if (rows.length === 0) return;
  const dims = rows[0]!.length;
  for (let d = 0; d < dims; d++) {
    let sum = 0;
    for (const r of rows) sum += r[d]!;
    const mean = sum / rows.length;
    let sq = 0;
    for (const r of rows) sq += (r[d]! - mean) ** 2;
    const std = Math.sqrt(sq / rows.length);
    for (const r of rows) r[d] = std > 1e-9 ? (r[d]! - mean) / std : 0;
  }
}

/** MFCCs of single frames: pre-emphasis, Hamming, |FFT|², mel filterbank, log, DCT-II. */
export class MfccExtractor {
  readonly #window: Float64Array;
  readonly #filters: { from: number; weights: Float64Array }[];
  readonly #dct: Float64Array; // CEPSTRA × MEL_FILTERS, rows for c1…c12
  readonly #re = new Float64Array(FFT_SIZE);
  readonly #im = new Float64Array(FFT_SIZE);
  readonly #mel = new Float64Array(MEL_FILTERS);

  constructor(sampleRate: number) {
    this.#window = new Float64Array(FRAME);
    for (let i = 0; i < FRAME; i++) this.#window[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (FRAME - 1));
    this.#filters = melFilterbank(MEL_FILTERS, FFT_SIZE, sampleRate, 60, Math.min(7600, sampleRate / 2));
    this.#dct = new Float64Array(CEPSTRA * MEL_FILTERS);
    for (let c = 0; c < CEPSTRA; c++) {
      for (let m = 0; m < MEL_FILTERS; m++) {
        this.#dct[c * MEL_FILTERS + m] = Math.cos((Math.PI * (c + 1) * (m + 0.5)) / MEL_FILTERS) * Math.sqrt(2 / MEL_FILTERS);
      }
    }
  }

  /** The frame of FRAME samples starting at `at` (zeros past the end). */
  frame(samples: Float32Array, at: number): { ceps: Float64Array; energyDb: number } {
    const re = this.#re;
    const im = this.#im;
    re.fill(0);
    im.fill(0);
    let prev = at > 0 ? (samples[at - 1] ?? 0) : 0;
    let energy = 0;
    for (let i = 0; i < FRAME; i++) {
      const x = samples[at + i] ?? 0;
      energy += x * x;
      re[i] = (x - PRE_EMPHASIS * prev) * this.#window[i]!;
      prev = x;
    }
    fft(re, im);
    const mel = this.#mel;
    for (let m = 0; m < MEL_FILTERS; m++) {
      const { from, weights } = this.#filters[m]!;
      let acc = 0;
      for (let k = 0; k < weights.length; k++) {
        const bin = from + k;
        acc += weights[k]! * (re[bin]! * re[bin]! + im[bin]! * im[bin]!);
      }
      mel[m] = Math.log(acc + 1e-10);
    }
    const ceps = new Float64Array(CEPSTRA);
    for (let c = 0; c < CEPSTRA; c++) {
      let acc = 0;
      for (let m = 0; m < MEL_FILTERS; m++) acc += this.#dct[c * MEL_FILTERS + m]! * mel[m]!;
      ceps[c] = acc;
    }
    return { ceps, energyDb: 10 * Math.log10(energy / FRAME + 1e-12) };
  }
}

/** Triangular filters evenly spaced on the mel scale, each as its first FFT bin and weights. */
function melFilterbank(
  count: number,
  fftSize: number,
  rate: number,
  lowHz: number,
  highHz: number,
): { from: number; weights: Float64Array }[] {
  const toMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const toHz = (mel: number) => 700 * (10 ** (mel / 2595) - 1);
  const lowMel = toMel(lowHz);
  const highMel = toMel(highHz);
  const edges: number[] = [];
  for (let i = 0; i < count + 2; i++) edges.push((toHz(lowMel + ((highMel - lowMel) * i) / (count + 1)) * fftSize) / rate);
  const filters: { from: number; weights: Float64Array }[] = [];
  for (let m = 0; m < count; m++) {
    const left = edges[m]!;
    const centre = edges[m + 1]!;
    const right = edges[m + 2]!;
    const from = Math.max(0, Math.ceil(left));
    const to = Math.min(fftSize / 2, Math.floor(right));
    const weights = new Float64Array(Math.max(0, to - from + 1));
    for (let bin = from; bin <= to; bin++) {
      weights[bin - from] = bin <= centre ? (bin - left) / (centre - left) : (right - bin) / (right - centre);
    }
    filters.push({ from, weights });
  }
  return filters;
}

const ffts = new Map<number, Fft>();

/** In-place complex FFT (the pipeline's one FFT, server/pipeline/enhance/fft.ts); the length must be a power of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  if (n !== im.length || n === 0 || (n & (n - 1)) !== 0) throw new RangeError('fft length must be a power of two');
  let transform = ffts.get(n);
  if (transform === undefined) {
    transform = new Fft(n);
    ffts.set(n, transform);
  }
  transform.transform(re, im);
}

// Pitch, on audio decimated to 8 kHz.
const PITCH_RATE = 8000;
const PITCH_FRAME = 200; // 25 ms
const PITCH_HOP = 160; // 20 ms
const PITCH_MIN_HZ = 60;
const PITCH_MAX_HZ = 400;
const PITCH_MIN_LAG = Math.floor(PITCH_RATE / PITCH_MAX_HZ);
const PITCH_MAX_LAG = Math.ceil(PITCH_RATE / PITCH_MIN_HZ);
/** YIN's absolute threshold on the normalised difference: below it a dip is a period. */
const YIN_THRESHOLD = 0.15;

/** Halves the rate: a short low-pass (7-tap half-band-like FIR) then every other sample. */
function decimateBy2(x: Float32Array): Float32Array {
  const taps = [-0.0625, 0, 0.5625, 1, 0.5625, 0, -0.0625].map((v) => v / 2);
  const out = new Float32Array(Math.floor(x.length / 2));
  for (let i = 0; i < out.length; i++) {
    const c = 2 * i;
    let acc = 0;
    for (let k = 0; k < taps.length; k++) acc += taps[k]! * (x[c + k - 3] ?? 0);
    out[i] = acc;
  }
  return out;
}

/**
 * YIN (de Cheveigné & Kawahara 2002) on one frame of the 8 kHz signal:
 * the fundamental in Hz, or 0 when the frame is not voiced.
 */
export function yinPitch(x: Float32Array, at: number): number {
  const d = new Float64Array(PITCH_MAX_LAG + 2);
  let energy = 0;
  for (let i = 0; i < PITCH_FRAME; i++) energy += (x[at + i] ?? 0) ** 2;
  if (energy / PITCH_FRAME < 1e-7) return 0; // silence (−70 dBFS)
  for (let tau = 1; tau <= PITCH_MAX_LAG + 1; tau++) {
    let acc = 0;
    for (let i = 0; i < PITCH_FRAME; i++) {
      const diff = (x[at + i] ?? 0) - (x[at + i + tau] ?? 0);
      acc += diff * diff;
    }
    d[tau] = acc;
  }
  // Cumulative mean normalised difference.
  let running = 0;
  const dn = new Float64Array(PITCH_MAX_LAG + 2);
  dn[0] = 1;
  for (let tau = 1; tau <= PITCH_MAX_LAG + 1; tau++) {
    running += d[tau]!;
    dn[tau] = running > 0 ? (d[tau]! * tau) / running : 1;
  }
  for (let tau = PITCH_MIN_LAG; tau <= PITCH_MAX_LAG; tau++) {
    if (dn[tau]! < YIN_THRESHOLD) {
      while (tau + 1 <= PITCH_MAX_LAG && dn[tau + 1]! < dn[tau]!) tau++;
      // Parabolic interpolation around the dip for a sub-sample period.
      const a = dn[tau - 1]!;
      const b = dn[tau]!;
      const c = dn[tau + 1]!;
      const denom = a - 2 * b + c;
      const shift = denom !== 0 ? (0.5 * (a - c)) / denom : 0;
      const period = tau + Math.max(-1, Math.min(1, shift));
      return PITCH_RATE / period;
    }
  }
  return 0;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

// ── Clustering ───────────────────────────────────────────────────────────

interface ClusterOptions {
  fixed: number | null;
  min: number;
  max: number;
  /** The split score (see splitScore) two clusters need to count as two speakers. */
  splitScore: number;
  control: StageControl;
}

/**
 * A speaker label 0..k−1 for every block: windows clustered on their
 * feature vectors give a generous first partition, which is then merged,
 * pair by pair, by the likelihood of the frames, each step followed by a
 * Viterbi resegmentation of the blocks.
 */
async function clusterBlocks(blocks: readonly Block[], windows: readonly Window[], opts: ClusterOptions): Promise<Int32Array> {
  const stats = blocks.map((b) => b.stats);
  const windowStats = windows.map((w) => {
    const st = emptyStats();
    for (let b = w.first; b < w.last; b++) addStats(st, stats[b]!);
    return st;
  });
  // Windows with too few voiced-enough frames cannot be described; their blocks are placed by the resegmentation.
  const usable = windows.map((_, i) => i).filter((i) => windowStats[i]!.n >= MIN_WINDOW_FRAMES);
  if (usable.length <= 1) return new Int32Array(blocks.length);
  const rows = windowFeatures(usable.map((i) => windowStats[i]!));
  // The dendrogram is built on at most MAX_CLUSTER_POINTS windows, evenly spread over the recording.
  const sample: number[] = [];
  if (rows.length <= MAX_CLUSTER_POINTS) for (let i = 0; i < rows.length; i++) sample.push(i);
  else for (let i = 0; i < MAX_CLUSTER_POINTS; i++) sample.push(Math.floor((i * rows.length) / MAX_CLUSTER_POINTS));
  const points = sample.map((i) => normalise(rows[i]!));
  const m = points.length;
  const merges = await averageLinkage(cosineDistances(points), m, opts.control);
  const minSize = Math.min(MIN_SPEAKER_WINDOWS, Math.max(1, Math.floor(m / 4)));
  const startK = Math.min(m, Math.max(INITIAL_CLUSTERS, 2 * opts.max, opts.fixed ?? 0));
  let windowLabels = refine(points, cutToSpeakers(merges, m, startK, minSize, points));

  // Blocks take the label their sampled windows vote for (−1: none covers them).
  const votedLabels = (wl: Int32Array): Int32Array => {
    const k = countLabels(wl);
    const votes = blocks.map(() => new Int32Array(k));
    sample.forEach((s, i) => {
      const w = windows[usable[s]!]!;
      for (let b = w.first; b < w.last; b++) votes[b]![wl[i]!]!++;
    });
    return Int32Array.from(votes, (v) => {
      let best = -1;
      let most = 0;
      v.forEach((count, l) => {
        if (count > most) {
          most = count;
          best = l;
        }
      });
      return best;
    });
  };
  const target = opts.fixed;
  /**
   * The pair of clusters to merge next, or null when every cluster is a speaker of its own.
   * `resegmented`: the labels come from the Viterbi resegmentation (see PITCHLESS_SPLIT_MARGIN).
   */
  const nextMerge = (labels: Int32Array, resegmented: boolean): [number, number] | null => {
    // Label ids may have gaps (a window cluster can win no block): work on the present ones.
    const ids = [...new Set(labels.filter((l) => l >= 0))].sort((a, b) => a - b);
    const k = ids.length;
    if (k <= Math.max(1, target ?? opts.min)) return null;
    const all = clusterStats(labels, ids[k - 1]! + 1, stats);
    const clusters = ids.map((id) => all[id]!);
    const pair = weakestPair(clusters);
    if (target !== null || k > opts.max || pair.score < opts.splitScore) return [ids[pair.a]!, ids[pair.b]!];
    if (resegmented) {
      const pitchless = weakestPitchlessPair(clusters);
      if (pitchless !== null && pitchless.score < opts.splitScore + PITCHLESS_SPLIT_MARGIN) return [ids[pitchless.a]!, ids[pitchless.b]!];
    }
    // A speaker says something of their own: a cluster with too little voice, or only fragments
    // (windows that straddled two voices, turn onsets), joins the cluster it is least distinct from.
    const runs = longestRuns(blocks, labels, ids[k - 1]! + 1);
    let weakest = -1;
    clusters.forEach((c, i) => {
      if (c.n >= MIN_SPEAKER_FRAMES && runs[ids[i]!]! >= MIN_SPEAKER_RUN_SECONDS) return;
      if (weakest < 0 || c.n < clusters[weakest]!.n) weakest = i;
    });
    if (weakest >= 0) return [ids[bestPartner(clusters, weakest)]!, ids[weakest]!];
    return null;
  };

  // Bottom-up on the windows: the least distinct pair (by their frames) merges, then the
  // nearest-centroid passes settle the windows, until every pair is told apart.
  for (;;) {
    await opts.control.checkpoint();
    const merge = nextMerge(votedLabels(windowLabels), false);
    if (merge === null) break;
    const [into, from] = merge;
    windowLabels = refine(
      points,
      windowLabels.map((l) => (l === from ? into : l)),
    );
  }
  // Then block by block: the resegmentation, and the same test on its result (a cluster of
  // windows that straddled two voices dissolves into them and is too small to stay).
  const keepCount = target !== null;
  let labels = resegment(blocks, votedLabels(windowLabels), keepCount);
  for (;;) {
    await opts.control.checkpoint();
    const merge = nextMerge(labels, true);
    if (merge === null) break;
    const [into, from] = merge;
    labels = resegment(
      blocks,
      labels.map((l) => (l === from ? into : l)),
      keepCount,
    );
  }
  return labels;
}

/**
 * Viterbi resegmentation, repeated with refitted models until the labels
 * settle: every block goes to the speaker whose Gaussians explain its
 * frames best, with a penalty for each change of speaker (a smaller one
 * across a pause), so a turn needs sustained evidence. Clusters that end up
 * with no block disappear; labels come back compact.
 */
function resegment(blocks: readonly Block[], start: Int32Array, keepCount = false): Int32Array {
  // Blocks no window covered (−1) have no say in the first models; the Viterbi pass labels them.
  let labels = compactLabels(start, true);
  for (let pass = 0; pass < RESEGMENT_PASSES; pass++) {
    const k = countLabels(labels.filter((l) => l >= 0));
    if (k < 2) return labels.map(() => 0);
    const models = clusterStats(
      labels,
      k,
      blocks.map((b) => b.stats),
    ).map(fitGaussian);
    const next = viterbi(blocks, models);
    // A fixed count is the user's: a pass that would empty a cluster is not taken.
    if (keepCount && countLabels(next) < k) return labels.map((l, i) => (l >= 0 ? l : next[i]!));
    let changed = 0;
    for (let i = 0; i < next.length; i++) if (next[i] !== labels[i]) changed++;
    labels = compactLabels(next);
    if (changed === 0) break;
  }
  return labels;
}

function viterbi(blocks: readonly Block[], models: readonly Gaussian[]): Int32Array {
  const k = models.length;
  const n = blocks.length;
  const back = new Int32Array(n * k);
  let score = new Float64Array(k);
  let next = new Float64Array(k);
  for (let b = 0; b < n; b++) {
    const penalty = b > 0 && blocks[b]!.region === blocks[b - 1]!.region ? SWITCH_PENALTY : SWITCH_PENALTY_ACROSS_PAUSE;
    // The best predecessor for a change of speaker is the same for every state.
    let bestPrev = 0;
    for (let s = 1; s < k; s++) if (score[s]! > score[bestPrev]!) bestPrev = s;
    for (let s = 0; s < k; s++) {
      const stay = score[s]!;
      const change = score[bestPrev]! - penalty;
      const from = b === 0 || stay >= change ? s : bestPrev;
      back[b * k + s] = from;
      next[s] = (b === 0 ? 0 : Math.max(stay, change)) + windowLogLikelihood(models[s]!, blocks[b]!.stats);
    }
    [score, next] = [next, score];
  }
  const out = new Int32Array(n);
  let s = 0;
  for (let i = 1; i < k; i++) if (score[i]! > score[s]!) s = i;
  for (let b = n - 1; b >= 0; b--) {
    out[b] = s;
    s = back[b * k + s]!;
  }
  return out;
}

/** Nearest-centroid passes (k-means on unit vectors) until nothing moves; labels come back compact. */
function refine(points: readonly Float64Array[], start: Int32Array): Int32Array {
  let labels = compactLabels(start);
  for (let pass = 0; pass < REFINE_PASSES; pass++) {
    const k = countLabels(labels);
    if (k < 2) break;
    const centroids = centroidsOf(points, labels, k);
    let changed = 0;
    const next = new Int32Array(labels.length);
    for (let i = 0; i < points.length; i++) {
      next[i] = nearest(points[i]!, centroids);
      if (next[i] !== labels[i]) changed++;
    }
    labels = compactLabels(next);
    if (changed === 0) break;
  }
  return labels;
}

/**
 * How much the pitch half of the split score counts. One voice's pitch is far from one
 * Gaussian (it falls along every sentence), so a full-weight pitch ratio splits a voice
 * into sentence starts and sentence ends.
 */
const PITCH_SPLIT_WEIGHT = 0.5;
/** Fewer voiced frames than this in a cluster and its pitch is not compared. */
const MIN_PITCH_FRAMES = 20;
/**
 * After the resegmentation, a pair whose pitch gives no sign of two voices
 * needs this much more than the bar to stay two. The Viterbi pass chose the
 * partition that its own two models explain best, so the cepstral ratio of
 * its result is inflated: one voice cut by what is being said (the same
 * pitch on both sides, cepstral part about 0.5) scored 0.40–0.50 on
 * six-voice Flite meetings, above the bar 0.40, while different people
 * without a pitch difference scored 0.61 and more (decision 092).
 */
const PITCHLESS_SPLIT_MARGIN = 0.15;

/** Each cluster's summed frame statistics. */
function clusterStats(labels: Int32Array, k: number, stats: readonly FrameStats[]): FrameStats[] {
  const clusters = Array.from({ length: k }, emptyStats);
  labels.forEach((l, i) => {
    if (l >= 0) addStats(clusters[l]!, stats[i]!);
  });
  return clusters;
}

/**
 * How well two clusters are told apart: the generalised likelihood ratio
 * per frame of "two Gaussians" against "one Gaussian",
 *   ½·(log|Σ_ab| − (n_a/n)·log|Σ_a| − (n_b/n)·log|Σ_b|),
 * less the BIC penalty for the second Gaussian's parameters, on the frame
 * cepstra, plus the same on the voiced frames' log-F0. About 0 (or below)
 * when one voice explains both, growing as the voices differ. Unlike a
 * distance between window features standardised over the recording, it does
 * not depend on how many voices the recording holds, and no linear rescaling
 * of the features changes it.
 */
function splitScore(A: FrameStats, B: FrameStats): number {
  const { cepstra, pitch } = splitEvidence(A, B);
  return cepstra + (pitch === null ? 0 : PITCH_SPLIT_WEIGHT * pitch);
}

/**
 * The two halves of the split score, unweighted: the cepstral ratio and the
 * log-F0 ratio (null when either cluster has too few voiced frames to compare).
 */
function splitEvidence(A: FrameStats, B: FrameStats): { cepstra: number; pitch: number | null } {
  const both = emptyStats();
  addStats(both, A);
  addStats(both, B);
  const params = CEPSTRA + (CEPSTRA * (CEPSTRA + 1)) / 2;
  const cepstra =
    0.5 * (logDetCovariance(both) - (A.n / both.n) * logDetCovariance(A) - (B.n / both.n) * logDetCovariance(B)) -
    (0.5 * params * Math.log(Math.max(2, both.n))) / Math.max(1, both.n);
  if (A.pn < MIN_PITCH_FRAMES || B.pn < MIN_PITCH_FRAMES) return { cepstra, pitch: null };
  const pitch =
    0.5 * (Math.log(pitchVariance(both)) - (A.pn / both.pn) * Math.log(pitchVariance(A)) - (B.pn / both.pn) * Math.log(pitchVariance(B))) -
    Math.log(both.pn) / both.pn;
  return { cepstra, pitch };
}

function pitchVariance(x: FrameStats): number {
  return x.pn > 0 ? Math.max(1e-4, x.psq / x.pn - (x.psum / x.pn) ** 2) : 1;
}

/** The least distinct pair of clusters and its split score. */
function weakestPair(clusters: readonly FrameStats[]): { a: number; b: number; score: number } {
  let best = { a: 0, b: 1, score: Infinity };
  for (let a = 0; a < clusters.length; a++) {
    for (let b = a + 1; b < clusters.length; b++) {
      const score = splitScore(clusters[a]!, clusters[b]!);
      if (score < best.score) best = { a, b, score };
    }
  }
  return best;
}

/**
 * The least distinct pair among those whose pitch gives no sign of two voices
 * (its ratio, penalty included, is at most 0, or there is too little voiced
 * speech to compare), or null when there is none.
 */
function weakestPitchlessPair(clusters: readonly FrameStats[]): { a: number; b: number; score: number } | null {
  let best: { a: number; b: number; score: number } | null = null;
  for (let a = 0; a < clusters.length; a++) {
    for (let b = a + 1; b < clusters.length; b++) {
      const { cepstra, pitch } = splitEvidence(clusters[a]!, clusters[b]!);
      if (pitch !== null && pitch > 0) continue;
      const score = cepstra + (pitch === null ? 0 : PITCH_SPLIT_WEIGHT * pitch);
      if (best === null || score < best.score) best = { a, b, score };
    }
  }
  return best;
}

/** For each label, the longest stretch of consecutive blocks of one region that carry it, in seconds. */
function longestRuns(blocks: readonly Block[], labels: Int32Array, k: number): Float64Array {
  const longest = new Float64Array(k);
  let run = 0;
  labels.forEach((l, i) => {
    const b = blocks[i]!;
    const continues = i > 0 && labels[i - 1] === l && blocks[i - 1]!.region === b.region;
    run = (continues ? run : 0) + b.end - b.start;
    if (l >= 0) longest[l] = Math.max(longest[l]!, run);
  });
  return longest;
}

/** The cluster that `of` is least distinct from. */
function bestPartner(clusters: readonly FrameStats[], of: number): number {
  let best = -1;
  let bestScore = Infinity;
  clusters.forEach((c, i) => {
    if (i === of) return;
    const score = splitScore(clusters[of]!, c);
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}

/** A full-covariance Gaussian on the cepstra and a 1-D one on voiced log-F0, from frame statistics. */
interface Gaussian {
  mean: Float64Array;
  /** Inverse covariance, row-major. */
  precision: Float64Array;
  logDet: number;
  pitchMean: number;
  pitchVar: number;
}

function fitGaussian(s: FrameStats): Gaussian {
  const d = CEPSTRA;
  const n = Math.max(1, s.n);
  const mean = s.sum.map((v) => v / n);
  const c = new Float64Array(d * d);
  for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) c[i * d + j] = s.outer[i * d + j]! / n - mean[i]! * mean[j]!;
  for (let i = 0; i < d; i++) c[i * d + i]! += COVARIANCE_RIDGE;
  // Gauss–Jordan inverse (12×12, symmetric positive definite after the ridge).
  const a = c.slice();
  const inv = new Float64Array(d * d);
  for (let i = 0; i < d; i++) inv[i * d + i] = 1;
  let logDet = 0;
  for (let col = 0; col < d; col++) {
    let pivot = col;
    for (let r = col + 1; r < d; r++) if (Math.abs(a[r * d + col]!) > Math.abs(a[pivot * d + col]!)) pivot = r;
    if (pivot !== col) {
      for (let j = 0; j < d; j++) {
        [a[col * d + j], a[pivot * d + j]] = [a[pivot * d + j]!, a[col * d + j]!];
        [inv[col * d + j], inv[pivot * d + j]] = [inv[pivot * d + j]!, inv[col * d + j]!];
      }
    }
    const p = a[col * d + col]!;
    logDet += Math.log(Math.abs(p));
    for (let j = 0; j < d; j++) {
      a[col * d + j]! /= p;
      inv[col * d + j]! /= p;
    }
    for (let r = 0; r < d; r++) {
      if (r === col) continue;
      const f = a[r * d + col]!;
      if (f === 0) continue;
      for (let j = 0; j < d; j++) {
        a[r * d + j]! -= f * a[col * d + j]!;
        inv[r * d + j]! -= f * inv[col * d + j]!;
      }
    }
  }
  const pitchMean = s.pn > 0 ? s.psum / s.pn : 0;
  return { mean, precision: inv, logDet, pitchMean, pitchVar: s.pn >= MIN_PITCH_FRAMES ? pitchVariance(s) : 1 };
}

/**
 * Log-likelihood of a window's frames under a cluster's Gaussians, from the
 * window's sufficient statistics (constants dropped: only comparisons matter).
 */
function windowLogLikelihood(g: Gaussian, w: FrameStats): number {
  const d = CEPSTRA;
  if (w.n === 0) return 0;
  // Σ_f (x_f − μ)ᵀ P (x_f − μ) = tr(P·S) − 2·μᵀP·sum + n·μᵀPμ, with S the sum of outer products.
  let trace = 0;
  let cross = 0;
  let quad = 0;
  for (let i = 0; i < d; i++) {
    let pm = 0;
    let ps = 0;
    for (let j = 0; j < d; j++) {
      const p = g.precision[i * d + j]!;
      trace += p * w.outer[j * d + i]!;
      pm += p * g.mean[j]!;
      ps += p * w.sum[j]!;
    }
    cross += g.mean[i]! * ps;
    quad += g.mean[i]! * pm;
  }
  let ll = -0.5 * (w.n * g.logDet + trace - 2 * cross + w.n * quad);
  if (w.pn > 0) {
    const sq = w.psq - 2 * g.pitchMean * w.psum + w.pn * g.pitchMean ** 2;
    ll += -0.5 * (w.pn * Math.log(g.pitchVar) + sq / g.pitchVar);
  }
  return ll;
}

/** log-determinant of the covariance the statistics describe (Cholesky; a small ridge keeps it defined). */
function logDetCovariance(s: FrameStats): number {
  const d = s.sum.length;
  const n = Math.max(1, s.n);
  const c = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) c[i * d + j] = s.outer[i * d + j]! / n - (s.sum[i]! / n) * (s.sum[j]! / n);
  }
  for (let i = 0; i < d; i++) c[i * d + i]! += COVARIANCE_RIDGE;
  let logDet = 0;
  for (let j = 0; j < d; j++) {
    let diag = c[j * d + j]!;
    for (let k = 0; k < j; k++) diag -= c[j * d + k]! ** 2;
    if (diag <= 0) return -Infinity;
    const l = Math.sqrt(diag);
    c[j * d + j] = l;
    logDet += 2 * Math.log(l);
    for (let i = j + 1; i < d; i++) {
      let v = c[i * d + j]!;
      for (let k = 0; k < j; k++) v -= c[i * d + k]! * c[j * d + k]!;
      c[i * d + j] = v / l;
    }
  }
  return logDet;
}

function normalise(v: Float64Array): Float64Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return norm > 0 ? v.map((x) => x / norm) : v.slice();
}

function dot(a: Float64Array, b: Float64Array): number {
  let acc = 0;
  for (let i = 0; i < a.length; i++) acc += a[i]! * b[i]!;
  return acc;
}

/** Pairwise cosine distances of unit vectors, as a full m×m matrix. */
function cosineDistances(points: readonly Float64Array[]): Float64Array {
  const m = points.length;
  const d = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      const v = 1 - dot(points[i]!, points[j]!);
      d[i * m + j] = v;
      d[j * m + i] = v;
    }
  }
  return d;
}

interface Merge {
  a: number;
  b: number;
  distance: number;
}

/**
 * Average-linkage agglomerative clustering by the nearest-neighbour chain
 * algorithm: O(m²) time on an m×m distance matrix (a copy is updated with
 * the Lance–Williams rule). Returns the m−1 merges sorted by distance, as
 * pairs of original point indices that represent the two joined clusters.
 */
async function averageLinkage(distances: Float64Array, m: number, control: StageControl): Promise<Merge[]> {
  const d = distances.slice();
  const size = new Int32Array(m).fill(1);
  const active = new Uint8Array(m).fill(1);
  const merges: Merge[] = [];
  const chain: number[] = [];
  let remaining = m;
  while (remaining > 1) {
    if (merges.length % 100 === 0) await control.checkpoint();
    if (chain.length === 0) {
      let start = 0;
      while (!active[start]) start++;
      chain.push(start);
    }
    const a = chain[chain.length - 1]!;
    const prev = chain.length >= 2 ? chain[chain.length - 2]! : -1;
    let b = -1;
    let best = Infinity;
    for (let j = 0; j < m; j++) {
      if (j === a || !active[j]) continue;
      const v = d[a * m + j]!;
      // Ties go to the previous link, so the chain cannot cycle.
      if (v < best || (v === best && j === prev)) {
        best = v;
        b = j;
      }
    }
    if (b === prev) {
      chain.pop();
      chain.pop();
      merges.push({ a, b, distance: best });
      // The merged cluster lives on at index a.
      const sa = size[a]!;
      const sb = size[b]!;
      for (let j = 0; j < m; j++) {
        if (!active[j] || j === a || j === b) continue;
        const v = (sa * d[a * m + j]! + sb * d[b * m + j]!) / (sa + sb);
        d[a * m + j] = v;
        d[j * m + a] = v;
      }
      size[a] = sa + sb;
      active[b] = 0;
      remaining--;
    } else {
      chain.push(b);
    }
  }
  return merges.sort((x, y) => x.distance - y.distance);
}

/**
 * Cuts the dendrogram so that it holds `speakers` clusters of at least
 * minSize points (or as many as it can), and moves the points of smaller
 * clusters to the nearest of those. Labels are 0..k−1.
 */
function cutToSpeakers(
  merges: readonly Merge[],
  m: number,
  speakers: number,
  minSize: number,
  points: readonly Float64Array[],
): Int32Array {
  let best: { raw: Int32Array; big: number } | null = null;
  // Fewer clusters than `speakers` can never hold that many big ones; past it, small ones are split off first.
  for (let clusters = speakers; clusters <= m; clusters++) {
    const raw = replay(merges, m, m - clusters);
    const sizes = new Map<number, number>();
    for (const r of raw) sizes.set(r, (sizes.get(r) ?? 0) + 1);
    const big = [...sizes.values()].filter((s) => s >= minSize).length;
    if (best === null || big > best.big) best = { raw, big };
    if (big >= speakers) break;
    if (clusters - speakers > 60) break; // the data will not give that many; keep the best seen
  }
  const raw = best!.raw;
  const sizes = new Map<number, number>();
  for (const r of raw) sizes.set(r, (sizes.get(r) ?? 0) + 1);
  const bigRoots = [...sizes.entries()].filter(([, s]) => s >= minSize).map(([root]) => root);
  if (bigRoots.length === 0) return new Int32Array(m);
  const labelOf = new Map(bigRoots.map((root, i) => [root, i]));
  const labels = new Int32Array(m).fill(-1);
  for (let i = 0; i < m; i++) labels[i] = labelOf.get(raw[i]!) ?? -1;
  const centroids = centroidsOf(
    points.filter((_, i) => labels[i]! >= 0),
    labels.filter((l) => l >= 0),
    bigRoots.length,
  );
  for (let i = 0; i < m; i++) if (labels[i]! < 0) labels[i] = nearest(points[i]!, centroids);
  return labels;
}

/** Cluster roots after the first `count` merges (union–find). */
function replay(merges: readonly Merge[], m: number, count: number): Int32Array {
  const parent = new Int32Array(m);
  for (let i = 0; i < m; i++) parent[i] = i;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  for (let i = 0; i < count; i++) {
    const { a, b } = merges[i]!;
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[rb] = ra;
  }
  const roots = new Int32Array(m);
  for (let i = 0; i < m; i++) roots[i] = find(i);
  return roots;
}

function centroidsOf(points: readonly Float64Array[], labels: ArrayLike<number>, k: number): Float64Array[] {
  const dims = points[0]?.length ?? 0;
  const sums = Array.from({ length: k }, () => new Float64Array(dims));
  for (let i = 0; i < points.length; i++) {
    const s = sums[labels[i]!]!;
    const p = points[i]!;
    for (let d = 0; d < dims; d++) s[d]! += p[d]!;
  }
  return sums.map(normalise);
}

function nearest(p: Float64Array, centroids: readonly Float64Array[]): number {
  let best = 0;
  let bestSim = -Infinity;
  centroids.forEach((c, i) => {
    const sim = dot(p, c);
    if (sim > bestSim) {
      bestSim = sim;
      best = i;
    }
  });
  return best;
}

function countLabels(labels: Int32Array): number {
  return new Set(labels).size;
}

/** Renumbers labels 0..k−1 with no gaps (a cluster can empty during refinement); with keepUnlabelled, −1 stays −1. */
function compactLabels(labels: Int32Array, keepUnlabelled = false): Int32Array {
  const map = new Map<number, number>();
  return labels.map((l) => {
    if (keepUnlabelled && l < 0) return l;
    let v = map.get(l);
    if (v === undefined) {
      v = map.size;
      map.set(l, v);
    }
    return v;
  });
}

// ── From block labels to turns ───────────────────────────────────────────

function turnsFromBlocks(blocks: readonly Block[], labels: Int32Array): SpeakerTurn[] {
  // Runs of a label inside a region become turns; regions' edges are the turns' outer edges.
  let turns: { label: number; start: number; end: number }[] = [];
  blocks.forEach((b, i) => {
    const last = turns[turns.length - 1];
    const label = Math.max(0, labels[i]!);
    if (last !== undefined && last.label === label && blocks[i - 1]!.region === b.region) last.end = b.end;
    else turns.push({ label, start: b.start, end: b.end });
  });

  // Short turns between others are absorbed by the longer neighbour (within reach).
  let changed = true;
  while (changed && turns.length > 1) {
    changed = false;
    for (let i = 0; i < turns.length; i++) {
      const t = turns[i]!;
      if (t.end - t.start >= MIN_TURN_SECONDS) continue;
      const prev = turns[i - 1];
      const next = turns[i + 1];
      const prevNear = prev !== undefined && t.start - prev.end <= MERGE_GAP_SECONDS ? prev : undefined;
      const nextNear = next !== undefined && next.start - t.end <= MERGE_GAP_SECONDS ? next : undefined;
      const into =
        prevNear && nextNear
          ? prevNear.end - prevNear.start >= nextNear.end - nextNear.start
            ? prevNear
            : nextNear
          : (prevNear ?? nextNear);
      if (into === undefined || into.label === t.label) continue;
      t.label = into.label;
      changed = true;
    }
    turns = mergeSameSpeaker(turns);
  }
  turns = mergeSameSpeaker(turns);

  // S1, S2, … in order of first appearance.
  const names = new Map<number, string>();
  return turns.map((t) => {
    let name = names.get(t.label);
    if (name === undefined) {
      name = `S${names.size + 1}`;
      names.set(t.label, name);
    }
    return { speaker: name, start: round3(t.start), end: round3(t.end) };
  });
}

function mergeSameSpeaker<T extends { label: number; start: number; end: number }>(turns: T[]): T[] {
  const out: T[] = [];
  for (const t of turns) {
    const prev = out[out.length - 1];
    if (prev !== undefined && prev.label === t.label && t.start - prev.end <= MERGE_GAP_SECONDS) prev.end = Math.max(prev.end, t.end);
    else out.push({ ...t });
  }
  return out;
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
