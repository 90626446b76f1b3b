/**
 * Diarization: who spoke when, by clustering the voice in short windows.
 *
 *   1. Speech regions are cut into windows of 1.5 s every 0.75 s.
 *   2. Each window is described by MFCCs (pre-emphasis, Hamming window,
 *      radix-2 FFT, mel filterbank, log, DCT; mean and standard deviation of
 *      c1…c12 over the window's voiced-enough frames) and pitch (YIN on voiced
 *      frames: median log-F0 and its spread). Every dimension is standardised
 *      over the recording, then weighted.
 *   3. Agglomerative clustering, average linkage on cosine distance, gives
 *      a dendrogram. With speaker_count the cut gives that many speakers.
 *      Otherwise, from max_speakers down to min_speakers, the first cut in
 *      which every pair of clusters passes a likelihood-ratio test on their
 *      frames (weakestSplit; the bar comes from clustering_threshold) wins,
 *      and one speaker when none does. Clusters too small to be a speaker
 *      (a cough, a laugh) join the nearest real one.
 *   4. Labels are refined by reassigning windows to the nearest centroid,
 *      voted onto a 0.1 s time grid, smoothed with a majority filter, and
 *      runs become turns; speakers are named S1, S2, … by first appearance.
 * Decision: docs/decisions/010-decode-vad-diarization.md.
 */
import type { DiarizationSettings, PcmAudio, SpeakerTurn, SpeechRegion, StageControl } from './types.ts';

const WINDOW_SECONDS = 1.5;
const WINDOW_HOP_SECONDS = 0.75;
/** A region shorter than this has no window of its own; it takes its speaker from the nearest labelled speech. */
const MIN_WINDOW_SECONDS = 0.4;
/** Above this many windows, the dendrogram is built on an evenly spaced sample of them (memory and time grow as n²). */
const MAX_CLUSTER_POINTS = 1200;
/** A cluster with fewer windows than this is not a speaker of its own. */
const MIN_SPEAKER_WINDOWS = 3;
/** Passes of nearest-centroid reassignment after the cut. */
const REFINE_PASSES = 5;
/** Time grid of the smoothing, and the majority filter's length on it. */
const GRID_SECONDS = 0.1;
const SMOOTH_SECONDS = 1.1;
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
 * The split score (see weakestSplit) that two clusters need to stay two
 * speakers, from clustering_threshold (0..1): 0.1 at 0, 0.3 at the default
 * 0.5, 0.5 at 1. A higher threshold merges more and finds fewer speakers.
 * Calibrated on synthetic voices (decision 010): one voice split in two
 * scores 0.1–0.2, two distinct voices 0.4 and more.
 */
function requiredSplitScore(clusteringThreshold: number): number {
  const t = Number.isFinite(clusteringThreshold) ? Math.min(1, Math.max(0, clusteringThreshold)) : 0.5;
  return 0.05 + 0.4 * t;
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

  const windows = cutWindows(speech);
  const { rows: features, stats } = await describeWindows(audio, windows, control);
  control.progress(0.6);

  let labels: Int32Array;
  if (windows.length === 0) {
    labels = new Int32Array(0);
  } else {
    const fixed = settings.speaker_count;
    const maxSpeakers = Math.max(1, settings.max_speakers, settings.min_speakers);
    labels = await clusterWindows(features, stats, {
      fixed: fixed === null || fixed === undefined ? null : Math.max(1, fixed),
      min: Math.max(1, Math.min(settings.min_speakers, maxSpeakers)),
      max: maxSpeakers,
      splitScore: requiredSplitScore(settings.clustering_threshold),
      control,
    });
  }
  control.progress(0.9);
  const turns = turnsFromWindows(speech, windows, labels);
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

// ── Windows ──────────────────────────────────────────────────────────────

interface Window {
  start: number;
  end: number;
}

function cutWindows(regions: readonly SpeechRegion[]): Window[] {
  const out: Window[] = [];
  for (const r of regions) {
    const length = r.end - r.start;
    if (length < MIN_WINDOW_SECONDS) continue;
    if (length <= WINDOW_SECONDS) {
      out.push({ start: r.start, end: r.end });
      continue;
    }
    let s = r.start;
    for (; s + WINDOW_SECONDS <= r.end; s += WINDOW_HOP_SECONDS) out.push({ start: s, end: s + WINDOW_SECONDS });
    // The tail the hop did not reach gets a window ending with the region.
    if (out[out.length - 1]!.end < r.end - 0.1) out.push({ start: r.end - WINDOW_SECONDS, end: r.end });
  }
  // In time order (the tail window starts before the last hop's): later steps walk them with one pointer.
  return out.sort((a, b) => a.start - b.start);
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

/**
 * Per-window feature vectors (one row of FEATURE_DIMENSIONS per window,
 * standardised and weighted) and the frame statistics of each window.
 */
async function describeWindows(
  audio: PcmAudio,
  windows: readonly Window[],
  control: StageControl,
): Promise<{ rows: Float64Array[]; stats: FrameStats[] }> {
  const mfcc = new MfccExtractor(audio.sampleRate);
  const rows: Float64Array[] = [];
  const stats: FrameStats[] = [];
  const pitchMedian = new Float64Array(windows.length).fill(NaN);
  const pitchSpread = new Float64Array(windows.length).fill(NaN);
  // Frames are shared by overlapping windows: cache them by frame index.
  const frameCache = new Map<number, { ceps: Float64Array; energyDb: number }>();
  const pitchCache = new Map<number, number>();
  const down = decimateBy2(audio.samples);

  for (let w = 0; w < windows.length; w++) {
    if (w % 50 === 0) {
      await control.checkpoint();
      control.progress((0.6 * w) / windows.length);
    }
    const win = windows[w]!;
    const first = Math.floor((win.start * audio.sampleRate) / FRAME_HOP);
    const last = Math.max(first, Math.floor((win.end * audio.sampleRate - FRAME) / FRAME_HOP));
    const frames: { ceps: Float64Array; energyDb: number }[] = [];
    for (let f = first; f <= last; f++) {
      let fr = frameCache.get(f);
      if (fr === undefined) {
        fr = mfcc.frame(audio.samples, f * FRAME_HOP);
        frameCache.set(f, fr);
      }
      frames.push(fr);
    }
    // The cache only needs frames later windows may still reach.
    for (const key of frameCache.keys()) {
      if (key >= first) break;
      frameCache.delete(key);
    }
    const loudest = frames.reduce((m, f) => Math.max(m, f.energyDb), -Infinity);
    const kept = frames.filter((f) => f.energyDb >= loudest - FRAME_DYNAMIC_RANGE_DB);
    const st = emptyStats();
    for (const f of kept) {
      st.n++;
      for (let i = 0; i < CEPSTRA; i++) {
        st.sum[i]! += f.ceps[i]!;
        for (let j = 0; j < CEPSTRA; j++) st.outer[i * CEPSTRA + j]! += f.ceps[i]! * f.ceps[j]!;
      }
    }
    stats.push(st);
    const row = new Float64Array(FEATURE_DIMENSIONS);
    for (let c = 0; c < CEPSTRA; c++) {
      let sum = 0;
      for (const f of kept) sum += f.ceps[c]!;
      const mean = sum / kept.length;
      let sq = 0;
      for (const f of kept) sq += (f.ceps[c]! - mean) ** 2;
      row[c] = mean;
      row[CEPSTRA + c] = Math.sqrt(sq / kept.length);
    }

    // Pitch on the 8 kHz copy, every 20 ms.
    const f0: number[] = [];
    const pFirst = Math.floor((win.start * 8000) / PITCH_HOP);
    const pLast = Math.floor((win.end * 8000 - PITCH_FRAME - PITCH_MAX_LAG) / PITCH_HOP);
    for (let p = pFirst; p <= pLast; p++) {
      let hz = pitchCache.get(p);
      if (hz === undefined) {
        hz = yinPitch(down, p * PITCH_HOP);
        pitchCache.set(p, hz);
      }
      if (hz > 0) f0.push(Math.log2(hz));
    }
    for (const key of pitchCache.keys()) {
      if (key >= pFirst) break;
      pitchCache.delete(key);
    }
    for (const v of f0) {
      st.pn++;
      st.psum += v;
      st.psq += v * v;
    }
    if (f0.length >= 3) {
      f0.sort((a, b) => a - b);
      pitchMedian[w] = quantile(f0, 0.5);
      pitchSpread[w] = quantile(f0, 0.75) - quantile(f0, 0.25);
    }
    rows.push(row);
  }

  // Windows without enough voiced frames take the recording's typical pitch: neutral after standardising.
  fillMissing(pitchMedian);
  fillMissing(pitchSpread);
  rows.forEach((row, w) => {
    row[2 * CEPSTRA] = pitchMedian[w]!;
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
  return { rows, stats };
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
function melFilterbank(count: number, fftSize: number, rate: number, lowHz: number, highHz: number): { from: number; weights: Float64Array }[] {
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

const fftTables = new Map<number, { rev: Uint32Array; cos: Float64Array; sin: Float64Array }>();

/** In-place iterative radix-2 complex FFT; the length must be a power of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  if (n !== im.length || n === 0 || (n & (n - 1)) !== 0) throw new RangeError('fft length must be a power of two');
  let tables = fftTables.get(n);
  if (tables === undefined) {
    const bits = Math.log2(n);
    const rev = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      rev[i] = r;
    }
    const cos = new Float64Array(n / 2);
    const sin = new Float64Array(n / 2);
    for (let i = 0; i < n / 2; i++) {
      cos[i] = Math.cos((2 * Math.PI * i) / n);
      sin[i] = -Math.sin((2 * Math.PI * i) / n);
    }
    tables = { rev, cos, sin };
    fftTables.set(n, tables);
  }
  const { rev, cos, sin } = tables;
  for (let i = 0; i < n; i++) {
    const j = rev[i]!;
    if (j > i) {
      const tr = re[i]!;
      re[i] = re[j]!;
      re[j] = tr;
      const ti = im[i]!;
      im[i] = im[j]!;
      im[j] = ti;
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const half = size >> 1;
    const step = n / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * step]!;
        const wi = sin[k * step]!;
        const a = start + k;
        const b = a + half;
        const xr = re[b]! * wr - im[b]! * wi;
        const xi = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a]! += xr;
        im[a]! += xi;
      }
    }
  }
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
  /** The split score (see weakestSplit) two clusters need to count as two speakers. */
  splitScore: number;
  control: StageControl;
}

/** Cluster labels 0..k−1 for every window. */
async function clusterWindows(rows: readonly Float64Array[], stats: readonly FrameStats[], opts: ClusterOptions): Promise<Int32Array> {
  const n = rows.length;
  const unit = rows.map(normalise);
  // The dendrogram is built on at most MAX_CLUSTER_POINTS windows, evenly spread over the recording.
  const sample: number[] = [];
  if (n <= MAX_CLUSTER_POINTS) for (let i = 0; i < n; i++) sample.push(i);
  else for (let i = 0; i < MAX_CLUSTER_POINTS; i++) sample.push(Math.floor((i * n) / MAX_CLUSTER_POINTS));
  const points = sample.map((i) => unit[i]!);
  const m = points.length;
  if (m === 1) return new Int32Array(n);

  const distances = cosineDistances(points);
  const merges = await averageLinkage(distances, m, opts.control);
  const minSize = Math.min(MIN_SPEAKER_WINDOWS, Math.max(1, Math.floor(m / 4)));
  // A cut of the dendrogram, then nearest-centroid passes: the cut gives the structure,
  // the passes fix windows that average linkage put on the wrong side early on.
  const candidate = (k: number) => refine(points, cutToSpeakers(merges, m, k, minSize, points));

  let labels: Int32Array;
  if (opts.fixed !== null) {
    labels = candidate(Math.min(opts.fixed, m));
  } else {
    // From the most speakers allowed down: the first partition whose every pair of clusters
    // is told apart (split score ≥ the bar) is the answer; one speaker when none is.
    const sampledStats = sample.map((i) => stats[i]!);
    labels = new Int32Array(m);
    for (let k = Math.min(opts.max, m); k >= Math.max(2, opts.min); k--) {
      await opts.control.checkpoint();
      const found = candidate(k);
      const count = countLabels(found);
      if (count >= Math.max(2, opts.min) && weakestSplit(found, count, sampledStats) >= opts.splitScore) {
        labels = found;
        break;
      }
    }
    if (countLabels(labels) < opts.min) labels = candidate(Math.min(opts.min, m));
  }

  if (m === n) return labels;
  // The windows left out of the sample go to the nearest centroid, then all are refined together.
  const centroids = centroidsOf(points, labels, countLabels(labels));
  const all = new Int32Array(n);
  for (let i = 0; i < n; i++) all[i] = nearest(unit[i]!, centroids);
  return refine(unit, all);
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

/** Fewer voiced frames than this in a cluster and its pitch is not compared. */
const MIN_PITCH_FRAMES = 20;

/**
 * How well the least distinct pair of clusters is told apart: the smallest,
 * over pairs, of the generalised likelihood ratio per frame of "two
 * Gaussians" against "one Gaussian",
 *   ½·(log|Σ_ab| − (n_a/n)·log|Σ_a| − (n_b/n)·log|Σ_b|),
 * on the frame cepstra plus the same on the voiced frames' log-F0. It is
 * about 0 when the two clusters' frames look alike and grows as the voices
 * differ. Unlike a distance between window features standardised over the
 * recording, it does not depend on how many voices the recording holds, and
 * no linear rescaling of the features changes it.
 */
function weakestSplit(labels: Int32Array, k: number, stats: readonly FrameStats[]): number {
  const clusters = Array.from({ length: k }, emptyStats);
  labels.forEach((l, i) => addStats(clusters[l]!, stats[i]!));
  const pitchVariance = (x: FrameStats) => Math.max(1e-4, x.psq / x.pn - (x.psum / x.pn) ** 2);
  let weakest = Infinity;
  for (let a = 0; a < k; a++) {
    for (let b = a + 1; b < k; b++) {
      const A = clusters[a]!;
      const B = clusters[b]!;
      const both = emptyStats();
      addStats(both, A);
      addStats(both, B);
      // The BIC penalty per frame for the second Gaussian's extra parameters (a mean and a full
      // covariance): without it, small clusters look distinct just because their fit is tighter.
      const params = CEPSTRA + (CEPSTRA * (CEPSTRA + 1)) / 2;
      let score =
        0.5 * (logDetCovariance(both) - (A.n / both.n) * logDetCovariance(A) - (B.n / both.n) * logDetCovariance(B)) -
        (0.5 * params * Math.log(Math.max(2, both.n))) / Math.max(1, both.n);
      if (A.pn >= MIN_PITCH_FRAMES && B.pn >= MIN_PITCH_FRAMES) {
        score +=
          0.5 *
            (Math.log(pitchVariance(both)) - (A.pn / both.pn) * Math.log(pitchVariance(A)) - (B.pn / both.pn) * Math.log(pitchVariance(B))) -
          Math.log(both.pn) / both.pn;
      }
      weakest = Math.min(weakest, score);
    }
  }
  return weakest;
}

/** log-determinant of the covariance the statistics describe (Cholesky; a small ridge keeps it defined). */
function logDetCovariance(s: FrameStats): number {
  const d = s.sum.length;
  const n = Math.max(1, s.n);
  const c = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) c[i * d + j] = s.outer[i * d + j]! / n - (s.sum[i]! / n) * (s.sum[j]! / n);
  }
  for (let i = 0; i < d; i++) c[i * d + i]! += 1e-3;
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
function cutToSpeakers(merges: readonly Merge[], m: number, speakers: number, minSize: number, points: readonly Float64Array[]): Int32Array {
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

/** Renumbers labels 0..k−1 with no gaps (a cluster can empty during refinement). */
function compactLabels(labels: Int32Array): Int32Array {
  const map = new Map<number, number>();
  return labels.map((l) => {
    let v = map.get(l);
    if (v === undefined) {
      v = map.size;
      map.set(l, v);
    }
    return v;
  });
}

// ── From window labels to turns ──────────────────────────────────────────

function turnsFromWindows(regions: readonly SpeechRegion[], windows: readonly Window[], labels: Int32Array): SpeakerTurn[] {
  let k = 1;
  for (const l of labels) k = Math.max(k, l + 1);
  // Each region on a 0.1 s grid; each cell takes the label its covering windows vote for,
  // nearer window centres weighing more.
  interface Cell {
    time: number;
    label: number;
  }
  const cells: Cell[][] = [];
  let w0 = 0;
  for (const r of regions) {
    const row: Cell[] = [];
    const count = Math.max(1, Math.round((r.end - r.start) / GRID_SECONDS));
    const step = (r.end - r.start) / count;
    for (let c = 0; c < count; c++) {
      const t = r.start + (c + 0.5) * step;
      // Windows are sorted by start and at most WINDOW_SECONDS long: one starting that far back has ended.
      while (w0 < windows.length && windows[w0]!.start + WINDOW_SECONDS < t) w0++;
      const votes = new Float64Array(k);
      for (let w = w0; w < windows.length && windows[w]!.start <= t; w++) {
        const win = windows[w]!;
        if (win.end < t) continue;
        const centre = (win.start + win.end) / 2;
        const halfWidth = (win.end - win.start) / 2 + 1e-6;
        votes[labels[w]!]! += 1 - Math.abs(t - centre) / halfWidth + 1e-3;
      }
      let label = -1;
      let best = 0;
      votes.forEach((v, i) => {
        if (v > best) {
          best = v;
          label = i;
        }
      });
      row.push({ time: t, label });
    }
    cells.push(row);
  }

  // Cells no window covered (regions too short for one) take the nearest labelled cell's label.
  const flat = cells.flat();
  const labelled = flat.filter((c) => c.label >= 0);
  if (labelled.length === 0) for (const c of flat) c.label = 0;
  else {
    let j = 0;
    for (const c of flat) {
      if (c.label >= 0) continue;
      while (j + 1 < labelled.length && Math.abs(labelled[j + 1]!.time - c.time) <= Math.abs(labelled[j]!.time - c.time)) j++;
      c.label = labelled[j]!.label;
    }
  }

  // Majority filter along each region.
  const half = Math.floor(SMOOTH_SECONDS / GRID_SECONDS / 2);
  for (const row of cells) {
    const source = row.map((c) => c.label);
    for (let i = 0; i < row.length; i++) {
      const counts = new Map<number, number>();
      for (let j = Math.max(0, i - half); j <= Math.min(row.length - 1, i + half); j++) counts.set(source[j]!, (counts.get(source[j]!) ?? 0) + 1);
      let label = source[i]!;
      let most = counts.get(label) ?? 0;
      for (const [l, n] of counts) {
        if (n > most) {
          most = n;
          label = l;
        }
      }
      row[i]!.label = label;
    }
  }

  // Runs of a label become turns; regions' edges are the turns' outer edges.
  let turns: { label: number; start: number; end: number }[] = [];
  regions.forEach((r, ri) => {
    const row = cells[ri]!;
    const step = (r.end - r.start) / row.length;
    let runStart = 0;
    for (let i = 1; i <= row.length; i++) {
      if (i === row.length || row[i]!.label !== row[runStart]!.label) {
        turns.push({ label: row[runStart]!.label, start: r.start + runStart * step, end: r.start + i * step });
        runStart = i;
      }
    }
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
        prevNear && nextNear ? (prevNear.end - prevNear.start >= nextNear.end - nextNear.start ? prevNear : nextNear) : (prevNear ?? nextNear);
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
