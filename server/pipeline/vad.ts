/**
 * Voice activity: which parts of a recording hold speech.
 *
 * Per 30 ms frame (10 ms hop) two cues are measured on the high-passed signal:
 *   - loudness above an adaptive noise floor (minimum statistics: the floor
 *     is the quietest smoothed frame within ±2.5 s, so it follows a noise
 *     level that changes over the recording);
 *   - spectral flatness from a 10th-order LPC fit (the residual energy over
 *     the frame energy; Itakura's flatness of the model spectrum). Voiced
 *     speech has strong formants and a low flatness; hiss, fans and noise
 *     bursts are flat.
 * Each cue goes through a logistic curve and the two are multiplied into a
 * speech probability, so a loud but flat noise burst stays unlikely. A frame
 * is speech above `threshold`; runs of speech frames become regions, gaps
 * shorter than min_silence_ms are bridged, regions shorter than
 * min_speech_ms are dropped, and the rest are padded by speech_pad_ms.
 * Decision: docs/decisions/010-decode-vad-diarization.md.
 */
import type { PcmAudio, SpeechRegion, VadSettings } from './types.ts';

const FRAME_SECONDS = 0.03;
const HOP_SECONDS = 0.01;
const LPC_ORDER = 10;
/** Below this level (dBFS) a frame is silence whatever its shape: digital silence, dither. */
const ABSOLUTE_FLOOR_DB = -70;
/** Half-width of the window in which the noise floor is the quietest frame. */
const FLOOR_WINDOW_SECONDS = 2.5;
/** The minimum of smoothed noise sits a little under its mean. */
const FLOOR_BIAS_DB = 2;
/** Frames averaged (in dB) before the floor's minimum is taken. */
const FLOOR_SMOOTH_FRAMES = 5;
/** Logistic curve of loudness: 50 % at this many dB above the floor, steepness per dB. */
const SNR_MID_DB = 9;
const SNR_SLOPE = 1 / 2.5;
/** Logistic curve of shape: 50 % at this flatness (dB, ≤ 0; white noise is about 0), steepness per dB. */
const FLATNESS_MID_DB = -3;
const FLATNESS_SLOPE = 1 / 1.5;
/** Frames averaged in the final probability, so one odd frame does not split a region. */
const PROBABILITY_SMOOTH_FRAMES = 3;

export interface FrameAnalysis {
  hopSeconds: number;
  frameSeconds: number;
  /** Per frame: speech probability 0..1. */
  probability: Float32Array;
  /** Per frame: level in dBFS, noise floor in dBFS, LPC flatness in dB (0 where not measured: too quiet to matter). */
  levelDb: Float32Array;
  floorDb: Float32Array;
  flatnessDb: Float32Array;
}

export function detectSpeech(audio: PcmAudio, settings: VadSettings): SpeechRegion[] {
  const duration = audio.samples.length / audio.sampleRate;
  if (duration <= 0) return [];
  if (!settings.enabled) return [{ start: 0, end: duration }];
  const frames = analyseFrames(audio);
  const probability =
    audio.speechProbability === undefined ? frames.probability : combineWithFrontEnd(frames.probability, audio.speechProbability);
  const threshold = clamp(settings.threshold, 0, 1);
  const speech = new Uint8Array(probability.length);
  for (let i = 0; i < speech.length; i++) speech[i] = probability[i]! > threshold ? 1 : 0;
  return regionsFromFrames(speech, frames, duration, settings);
}

/** The per-frame measurements behind detectSpeech (also for tests and tuning). */
export function analyseFrames(audio: PcmAudio): FrameAnalysis {
  const rate = audio.sampleRate;
  const frameLen = Math.round(FRAME_SECONDS * rate);
  const hop = Math.round(HOP_SECONDS * rate);
  const x = highPass(audio.samples, rate);
  const count = x.length <= frameLen ? 1 : Math.floor((x.length - frameLen) / hop) + 1;
  const window = hamming(frameLen);
  let windowPower = 0;
  for (let i = 0; i < frameLen; i++) windowPower += window[i]! * window[i]!;
  windowPower /= frameLen;

  // Pass 1: level of every frame, and the noise floor under it.
  const levelDb = new Float32Array(count);
  for (let f = 0; f < count; f++) {
    const start = f * hop;
    let acc = 0;
    for (let i = 0; i < frameLen; i++) {
      const v = (x[start + i] ?? 0) * window[i]!;
      acc += v * v;
    }
    levelDb[f] = 10 * Math.log10(acc / frameLen / windowPower + 1e-12);
  }
  const floorDb = noiseFloor(levelDb, Math.round(FLOOR_WINDOW_SECONDS / HOP_SECONDS));

  // Pass 2: shape (LPC flatness), only where loudness alone leaves speech possible.
  const flatnessDb = new Float32Array(count);
  const raw = new Float32Array(count);
  const frame = new Float64Array(frameLen);
  const r = new Float64Array(LPC_ORDER + 1);
  for (let f = 0; f < count; f++) {
    if (levelDb[f]! < ABSOLUTE_FLOOR_DB) continue;
    const snr = levelDb[f]! - Math.max(floorDb[f]!, ABSOLUTE_FLOOR_DB);
    const loud = logistic((snr - SNR_MID_DB) * SNR_SLOPE);
    if (loud < 0.02) continue; // the product stays below any useful threshold whatever the shape
    const start = f * hop;
    for (let i = 0; i < frameLen; i++) frame[i] = (x[start + i] ?? 0) * window[i]!;
    for (let lag = 0; lag <= LPC_ORDER; lag++) {
      let acc = 0;
      for (let i = lag; i < frameLen; i++) acc += frame[i]! * frame[i - lag]!;
      r[lag] = acc;
    }
    flatnessDb[f] = 10 * Math.log10(lpcResidualRatio(r));
    const shaped = logistic((FLATNESS_MID_DB - flatnessDb[f]!) * FLATNESS_SLOPE);
    raw[f] = loud * shaped;
  }
  return {
    hopSeconds: hop / rate,
    frameSeconds: frameLen / rate,
    probability: movingAverage(raw, PROBABILITY_SMOOTH_FRAMES),
    levelDb,
    floorDb,
    flatnessDb,
  };
}

/**
 * The mean of this detector's probability and a front end's (the denoiser's,
 * per 10 ms slice). Frame f here is centred at f·10 ms + 15 ms, so it stands
 * for slice f + 1. Measured frame accuracy (decision 036): the mean beats
 * either alone in noise and stays within a point of the best elsewhere.
 */
export function combineWithFrontEnd(own: Float32Array, frontEnd: Float32Array): Float32Array {
  const out = new Float32Array(own.length);
  for (let f = 0; f < own.length; f++) {
    const other = frontEnd[Math.min(frontEnd.length - 1, f + 1)];
    out[f] = other === undefined ? own[f]! : (own[f]! + other) / 2;
  }
  return out;
}

/** Frame flags → regions in seconds, with the settings' bridging, minimum length and padding. */
function regionsFromFrames(speech: Uint8Array, frames: FrameAnalysis, duration: number, settings: VadSettings): SpeechRegion[] {
  const { hopSeconds: hop, frameSeconds } = frames;
  // Frame i stands for the hop-long slice around its centre.
  const centreOffset = frameSeconds / 2 - hop / 2;
  const raw: SpeechRegion[] = [];
  let runStart = -1;
  for (let i = 0; i <= speech.length; i++) {
    const on = i < speech.length && speech[i] === 1;
    if (on && runStart < 0) runStart = i;
    if (!on && runStart >= 0) {
      raw.push({ start: Math.max(0, runStart * hop + centreOffset), end: Math.min(duration, i * hop + centreOffset) });
      runStart = -1;
    }
  }
  if (raw.length === 0) return [];
  // The edges of the recording count as speech edges: the first and last frames' slices reach them.
  if (raw[0]!.start <= centreOffset + 1e-9) raw[0]!.start = 0;
  const last = raw[raw.length - 1]!;
  if (last.end >= (speech.length - 1) * hop + centreOffset + hop - 1e-9) last.end = duration;

  const minSilence = Math.max(0, settings.min_silence_ms) / 1000;
  const bridged: SpeechRegion[] = [];
  for (const r of raw) {
    const prev = bridged[bridged.length - 1];
    if (prev !== undefined && r.start - prev.end < minSilence) prev.end = r.end;
    else bridged.push({ ...r });
  }
  const minSpeech = Math.max(0, settings.min_speech_ms) / 1000;
  const pad = Math.max(0, settings.speech_pad_ms) / 1000;
  const out: SpeechRegion[] = [];
  for (const r of bridged) {
    if (r.end - r.start < minSpeech) continue;
    const start = Math.max(0, r.start - pad);
    const end = Math.min(duration, r.end + pad);
    const prev = out[out.length - 1];
    if (prev !== undefined && start <= prev.end) prev.end = Math.max(prev.end, end);
    else out.push({ start, end });
  }
  // Millisecond precision, never past the recording's end.
  return out.map((r) => ({ start: round3(r.start), end: Math.min(duration, round3(r.end)) }));
}

// ── Signal helpers ───────────────────────────────────────────────────────

/** First-order high-pass near 60 Hz: removes DC, rumble and most mains hum before measuring level. */
function highPass(samples: Float32Array, rate: number): Float32Array {
  const a = Math.exp((-2 * Math.PI * 60) / rate);
  const out = new Float32Array(samples.length);
  let prevIn = 0;
  let prevOut = 0;
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i]!;
    prevOut = a * (prevOut + v - prevIn);
    prevIn = v;
    out[i] = prevOut;
  }
  return out;
}

function hamming(n: number): Float64Array {
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / Math.max(1, n - 1));
  return w;
}

/**
 * Levinson–Durbin on autocorrelation r[0..p]: the prediction error left by
 * the best p-th order linear predictor, as a fraction of r[0]. That is the
 * spectral flatness of the all-pole model: 1 for white noise, ≪ 1 for
 * formant-shaped (voiced) speech.
 */
function lpcResidualRatio(r: Float64Array): number {
  const p = r.length - 1;
  const r0 = r[0]! * (1 + 1e-9); // a hair of white noise keeps the recursion stable
  if (r0 <= 0) return 1;
  const a = new Float64Array(p + 1);
  const prev = new Float64Array(p + 1);
  let err = r0;
  for (let i = 1; i <= p; i++) {
    let acc = r[i]!;
    for (let j = 1; j < i; j++) acc -= a[j]! * r[i - j]!;
    const k = acc / err;
    prev.set(a);
    a[i] = k;
    for (let j = 1; j < i; j++) a[j] = prev[j]! - k * prev[i - j]!;
    err *= 1 - k * k;
    if (err <= r0 * 1e-9) return 1e-9;
  }
  return err / r0;
}

/** Minimum statistics: per frame, the lowest smoothed level within ±half frames, plus a small bias. */
function noiseFloor(levelDb: Float32Array, half: number): Float32Array {
  const smooth = movingAverage(levelDb, FLOOR_SMOOTH_FRAMES);
  const n = smooth.length;
  const out = new Float32Array(n);
  // Sliding minimum with a monotonic deque: O(n) whatever the window.
  const deque = new Int32Array(n);
  let head = 0;
  let tail = 0;
  let next = 0;
  for (let i = 0; i < n; i++) {
    const hi = Math.min(n - 1, i + half);
    for (; next <= hi; next++) {
      while (tail > head && smooth[deque[tail - 1]!]! >= smooth[next]!) tail--;
      deque[tail++] = next;
    }
    while (deque[head]! < i - half) head++;
    out[i] = smooth[deque[head]!]! + FLOOR_BIAS_DB;
  }
  return out;
}

function movingAverage(x: Float32Array, width: number): Float32Array {
  const half = Math.floor(width / 2);
  const out = new Float32Array(x.length);
  let sum = 0;
  let lo = 0;
  let hi = -1;
  for (let i = 0; i < x.length; i++) {
    const from = Math.max(0, i - half);
    const to = Math.min(x.length - 1, i + half);
    while (hi < to) sum += x[++hi]!;
    while (lo < from) sum -= x[lo++]!;
    out[i] = sum / (to - from + 1);
  }
  return out;
}

function logistic(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

function clamp(v: number, lo: number, hi: number): number {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : lo;
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
