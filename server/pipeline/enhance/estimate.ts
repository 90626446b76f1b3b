/**
 * Blind estimates of how noisy and how reverberant a recording is, for the
 * front end's automatic mode (decision 036). Both work on the voice-activity
 * stage's frame levels (30 ms frames, 10 ms hop), so they cost one pass.
 *
 * - Noise: the gap between the loud end of the level distribution (speech
 *   peaks) and the noise floor. Minimum statistics (the floor the
 *   voice-activity stage tracks) give the floor; the 95th percentile of frame
 *   levels stands for active speech. Not a calibrated SNR, but monotonic in it
 *   and independent of the recording's gain.
 * - Reverberation: a room stops a sound from decaying faster than 60 dB per
 *   RT60. Dry speech falls by hundreds of dB/s at every word end; in a room no
 *   fall is steeper than the room's decay. So the fastest decays over short
 *   windows (their 90th percentile, well above the noise floor) give an upper
 *   bound on the decay rate, and 60 / rate estimates RT60.
 */
import type { FrameAnalysis } from '../vad.ts';

export interface SignalEstimate {
  /** Speech peaks over noise floor, dB. Very large for digital silence between words. */
  snrDb: number;
  /** Blind RT60 estimate in seconds (≈0.1 or below for dry speech). */
  rt60Seconds: number;
  /** Decays that entered the RT60 estimate (few → the estimate says little). */
  decays: number;
}

/** Frames in a decay window (60 ms). */
const DECAY_FRAMES = 6;
/** A decay window must start this far above the floor, and stay above floor + DECAY_MARGIN_DB. */
const DECAY_HEADROOM_DB = 14;
const DECAY_MARGIN_DB = 4;
/** Floors below this are digital silence; they are counted as this level. */
const SILENCE_DB = -90;

export function estimateSignal(frames: FrameAnalysis): SignalEstimate {
  const { levelDb, floorDb } = frames;
  const n = levelDb.length;
  if (n === 0) return { snrDb: 0, rt60Seconds: 0, decays: 0 };
  const levels = Array.from(levelDb).sort((a, b) => a - b);
  const floors = Array.from(floorDb, (v) => Math.max(v, SILENCE_DB)).sort((a, b) => a - b);
  const peak = levels[Math.min(n - 1, Math.floor(0.95 * n))]!;
  const floor = floors[Math.floor(0.5 * n)]!;
  const snrDb = peak - floor;

  const rates: number[] = [];
  const hop = frames.hopSeconds;
  for (let t = 0; t + DECAY_FRAMES <= n; t++) {
    const lowest = Math.max(floorDb[t]!, SILENCE_DB) + DECAY_MARGIN_DB;
    if (levelDb[t]! < Math.max(floorDb[t]!, SILENCE_DB) + DECAY_HEADROOM_DB) continue;
    let falling = true;
    for (let i = 1; i < DECAY_FRAMES; i++) {
      const v = levelDb[t + i]!;
      if (v > levelDb[t + i - 1]! || v < lowest) {
        falling = false;
        break;
      }
    }
    if (!falling) continue;
    // Least-squares slope of the window, dB per second.
    let sx = 0;
    let sy = 0;
    let sxx = 0;
    let sxy = 0;
    for (let i = 0; i < DECAY_FRAMES; i++) {
      const x = i * hop;
      const y = levelDb[t + i]!;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    const slope = (DECAY_FRAMES * sxy - sx * sy) / (DECAY_FRAMES * sxx - sx * sx);
    if (slope < 0) rates.push(-slope);
  }
  if (rates.length === 0) return { snrDb, rt60Seconds: 0, decays: 0 };
  rates.sort((a, b) => a - b);
  const fastest = rates[Math.min(rates.length - 1, Math.floor(0.9 * rates.length))]!;
  return { snrDb, rt60Seconds: 60 / fastest, decays: rates.length };
}
