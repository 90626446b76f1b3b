/**
 * Room reverberation from a synthesized impulse response: a direct path, then
 * a tail of Gaussian noise whose envelope falls by 60 dB over RT60 seconds
 * (the statistical model of a diffuse late field). The direct-to-reverberant
 * ratio (DRR) sets how loud the tail is against the direct sound; a speaker
 * farther from the microphone gets a weaker direct path (1/distance) while
 * the diffuse tail stays about as loud, so the DRR falls by 20·log10(distance).
 *
 * Deterministic: the tail's noise comes from a seeded generator.
 */
import { seededRandom } from '../seeded-random.ts';
import { convolve } from './fft-convolve.ts';

export interface RoomSettings {
  /** Seconds for the tail to decay by 60 dB. */
  rt60: number;
  /** Direct-to-reverberant energy ratio at 1 m, in dB. */
  drr_db: number;
}

export interface SpeakerPlacement {
  /** Metres from the microphone; 1 is the reference distance. */
  distance_m: number;
  /** Extra gain of this speaker's voice, in dB (a quiet or loud talker). */
  gain_db: number;
}

/** The first reflection arrives a few milliseconds after the direct sound in a meeting room. */
const FIRST_REFLECTION_SECONDS = 0.004;

/** A standard normal sample (Box–Muller) from a uniform generator. */
export function gaussian(next: () => number): number {
  const u = Math.max(next(), 1e-12);
  const v = next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * The impulse response of one speaker's position: length 1.2·RT60 (the tail
 * is 72 dB down there), direct path at sample 0 with amplitude 1/distance.
 */
export function impulseResponse(room: RoomSettings, place: SpeakerPlacement, sampleRate: number, seed: number): Float32Array {
  if (!(room.rt60 > 0)) throw new Error(`rt60 must be above 0 s, got ${room.rt60}`);
  const length = Math.max(2, Math.round(1.2 * room.rt60 * sampleRate));
  const ir = new Float32Array(length);
  const distance = Math.max(0.1, place.distance_m);
  const direct = 1 / distance;
  ir[0] = direct;
  const random = seededRandom(seed);
  const onset = Math.max(1, Math.round(FIRST_REFLECTION_SECONDS * sampleRate));
  const decay = Math.log(1000) / (room.rt60 * sampleRate); // amplitude falls 60 dB over rt60
  let tailEnergy = 0;
  for (let n = onset; n < length; n++) {
    const v = gaussian(() => random.next()) * Math.exp(-decay * (n - onset));
    ir[n] = v;
    tailEnergy += v * v;
  }
  // The tail is scaled so that direct² / tail energy equals the DRR at 1 m;
  // at other distances only the direct path changes.
  const wantTail = 1 / 10 ** (room.drr_db / 10);
  const scale = tailEnergy > 0 ? Math.sqrt(wantTail / tailEnergy) : 0;
  for (let n = onset; n < length; n++) ir[n]! *= scale;
  const gain = 10 ** (place.gain_db / 20);
  if (gain !== 1) for (let n = 0; n < length; n++) ir[n]! *= gain;
  return ir;
}

/** One speaker's track as heard from their place in the room. */
export function reverberate(
  track: Float32Array,
  room: RoomSettings,
  place: SpeakerPlacement,
  sampleRate: number,
  seed: number,
): Float32Array {
  return convolve(track, impulseResponse(room, place, sampleRate, seed));
}

/**
 * RT60 of an impulse response measured the standard way: Schroeder backward
 * integration of the squared response, a line fitted to the decay curve
 * between -5 and -25 dB (T20), extrapolated to 60 dB.
 */
export function schroederRt60(ir: Float32Array, sampleRate: number): number {
  const energy = new Float64Array(ir.length);
  let acc = 0;
  for (let n = ir.length - 1; n >= 0; n--) {
    acc += ir[n]! * ir[n]!;
    energy[n] = acc;
  }
  const total = energy[0]!;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let n = 0; n < ir.length; n++) {
    const db = 10 * Math.log10(energy[n]! / total);
    if (db <= -5 && db >= -25) {
      xs.push(n / sampleRate);
      ys.push(db);
    }
  }
  if (xs.length < 2) throw new Error('the response decays too fast to measure');
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
  }
  const slope = sxy / sxx; // dB per second, negative
  return -60 / slope;
}

/** Direct-to-reverberant ratio of a response whose direct path is sample 0, in dB. */
export function measuredDrr(ir: Float32Array): number {
  let tail = 0;
  for (let n = 1; n < ir.length; n++) tail += ir[n]! * ir[n]!;
  return 10 * Math.log10((ir[0]! * ir[0]!) / tail);
}
