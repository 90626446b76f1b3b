/**
 * Diarization's first step (server/pipeline/diarize.ts): speech regions cut
 * into 0.25 s blocks, each with the frame statistics of the frames that
 * carry voice (above the recording's background, within 35 dB of the
 * loudest frame nearby); windows of 6 blocks; the window feature vectors the
 * first clustering works on.
 */
import type { PcmAudio, SpeechRegion, StageControl } from '../types.ts';
import {
  CEPSTRA,
  FEATURE_DIMENSIONS,
  FRAME,
  FRAME_DYNAMIC_RANGE_DB,
  FRAME_HOP,
  MEL_FILTERS,
  MfccExtractor,
  PITCH_FRAME,
  PITCH_HOP,
  PITCH_MAX_LAG,
  PITCH_RATE,
  decimateBy2,
  emptyStats,
  quantile,
  yinPitch,
  type FrameStats,
} from './features.ts';

/** Speech regions are cut into blocks of about this length: the unit a speaker is assigned to. */
const BLOCK_SECONDS = 0.25;
/** Windows of 6 blocks (1.5 s) every 3 (0.75 s) describe the voice for the first clustering. */
const WINDOW_BLOCKS = 6;
const WINDOW_HOP_BLOCKS = 3;
/** A region shorter than this has no window of its own; the resegmentation still gives it a speaker. */
const MIN_WINDOW_SECONDS = 0.4;

/** Frames quieter than this quantile of the recording's frame levels plus the margin are background, not voice. */
const BACKGROUND_QUANTILE = 0.1;
const BACKGROUND_MARGIN_DB = 6;
/** Frames are compared with the loudest frame within this many seconds either side. */
const LOCAL_PEAK_SECONDS = 0.75;

/** Feature weights after standardisation (cosine distance scales with their squares). */
const WEIGHT_MFCC_MEAN = 1;
const WEIGHT_MFCC_STD = 0.5;
const WEIGHT_PITCH_MEDIAN = 2.5;
const WEIGHT_PITCH_SPREAD = 0.7;

/** A short stretch of one speech region: the unit speakers are assigned to. */
export interface Block {
  start: number;
  end: number;
  region: number;
  stats: FrameStats;
  /**
   * The log mel energies (MEL_FILTERS a frame, in order) of the frames the
   * statistics hold: what the mixture model of overlapped speech is built
   * from (diarize/mixture.ts). Absent on blocks made from statistics alone.
   */
  logMel?: Float32Array;
}

/** A run of consecutive blocks of one region: the unit the first clustering describes. */
export interface Window {
  first: number;
  /** One past the last block. */
  last: number;
}

/** Each region cut into BLOCK_SECONDS blocks (the last takes the remainder; a short region is one block). */
export function cutBlocks(regions: readonly SpeechRegion[]): Omit<Block, 'stats'>[] {
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
export function cutWindows(blocks: readonly Omit<Block, 'stats'>[]): Window[] {
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
export async function describeBlocks(
  audio: PcmAudio,
  cut: readonly Omit<Block, 'stats'>[],
  control: StageControl,
  /** Keep each block's frames' log mel energies (`Block.logMel`, 10 kB per second of speech): the diarizer's mixture model needs them. */
  keepLogMel = false,
): Promise<Block[]> {
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
    const frames: { ceps: Float64Array; energyDb: number; logMel: Float64Array }[] = [];
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
      const mel: Float64Array[] = [];
      // A frame belongs to the block holding its centre.
      for (; fi < frames.length && ((f0 + fi) * FRAME_HOP + FRAME / 2) / audio.sampleRate < block.end; fi++) {
        const fr = frames[fi]!;
        if (fr.energyDb < background || fr.energyDb < peak[fi]! - FRAME_DYNAMIC_RANGE_DB) continue;
        if (keepLogMel) mel.push(fr.logMel);
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
      if (keepLogMel) {
        const logMel = new Float32Array(mel.length * MEL_FILTERS);
        mel.forEach((m, k) => logMel.set(m, k * MEL_FILTERS));
        blocks.push({ ...block, stats: st, logMel });
      } else blocks.push({ ...block, stats: st });
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
export function windowFeatures(windowStats: readonly FrameStats[]): Float64Array[] {
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
