/**
 * Additive noise for acoustic scenes, generated from a seed and mixed at a
 * signal-to-noise ratio measured against the speech's active power.
 *
 * Power is measured over active 10 ms frames only (ACTIVE_FLOOR_DB below):
 * the silence between turns would otherwise dilute the speech power and make
 * every meeting with long pauses look quieter than it sounds. The same rule
 * measures the noise, so sparse noises (keyboard clicks, interruptions) are
 * set by how loud they are when they sound, as a listener hears them.
 */
import { seededRandom, type SeededRandom } from '../seeded-random.ts';
import { gaussian } from './room.ts';

/** A frame counts as active when within this many dB of the loud frames (their 95th percentile). */
const ACTIVE_FLOOR_DB = 40;

/** Mean square over active 10 ms frames (see ACTIVE_FLOOR_DB); 0 for silence. */
export function activePower(x: Float32Array, sampleRate: number): number {
  const frame = Math.max(1, Math.round(sampleRate / 100));
  const energies: number[] = [];
  for (let start = 0; start + frame <= x.length; start += frame) {
    let e = 0;
    for (let i = start; i < start + frame; i++) e += x[i]! * x[i]!;
    energies.push(e / frame);
  }
  if (energies.length === 0) return 0;
  const sorted = [...energies].sort((a, b) => a - b);
  const loud = sorted[Math.min(sorted.length - 1, Math.floor(0.95 * sorted.length))]!;
  if (loud === 0) return 0;
  const floor = loud * 10 ** (-ACTIVE_FLOOR_DB / 10);
  let sum = 0;
  let count = 0;
  for (const e of energies) {
    if (e >= floor) {
      sum += e;
      count++;
    }
  }
  return count === 0 ? 0 : sum / count;
}

/** The SNR of `speech` over `noise` in dB, both measured by activePower. */
export function measuredSnr(speech: Float32Array, noise: Float32Array, sampleRate: number): number {
  return 10 * Math.log10(activePower(speech, sampleRate) / activePower(noise, sampleRate));
}

/** Stationary pink (1/f) noise: white noise through Paul Kellett's filter bank, flat within 0.05 dB per octave above 9 Hz. */
export function pinkNoise(length: number, seed: number): Float32Array {
  const r = seededRandom(seed);
  const out = new Float32Array(length);
  let b0 = 0,
    b1 = 0,
    b2 = 0,
    b3 = 0,
    b4 = 0,
    b5 = 0,
    b6 = 0;
  for (let i = 0; i < length; i++) {
    const w = gaussian(() => r.next());
    b0 = 0.99886 * b0 + w * 0.0555179;
    b1 = 0.99332 * b1 + w * 0.0750759;
    b2 = 0.969 * b2 + w * 0.153852;
    b3 = 0.8665 * b3 + w * 0.3104856;
    b4 = 0.55 * b4 + w * 0.5329522;
    b5 = -0.7616 * b5 - w * 0.016898;
    out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362;
    b6 = w * 0.115926;
  }
  return out;
}

/**
 * Air conditioning: the mains hum of a fan motor (60 Hz and its harmonics,
 * slowly wavering) over low-passed rumble, about equal in power.
 */
export function hvacNoise(length: number, sampleRate: number, seed: number): Float32Array {
  const r = seededRandom(seed);
  const out = new Float32Array(length);
  const harmonics = [60, 120, 180, 240].map((f, k) => ({ f, amp: 0.5 / (k + 1), phase: r.next() * 2 * Math.PI }));
  // One-pole low-pass at 250 Hz, twice: rumble without hiss.
  const a = Math.exp((-2 * Math.PI * 250) / sampleRate);
  let l1 = 0;
  let l2 = 0;
  const waver = r.next() * 2 * Math.PI;
  for (let i = 0; i < length; i++) {
    const t = i / sampleRate;
    let hum = 0;
    for (const h of harmonics) hum += h.amp * Math.sin(2 * Math.PI * h.f * t + h.phase);
    hum *= 1 + 0.1 * Math.sin(2 * Math.PI * 0.3 * t + waver);
    l1 = a * l1 + (1 - a) * gaussian(() => r.next());
    l2 = a * l2 + (1 - a) * l1;
    out[i] = 0.5 * hum + 12 * l2;
  }
  return out;
}

/** One keystroke: a short, bright, quickly decaying burst. */
function addClick(out: Float32Array, at: number, sampleRate: number, r: SeededRandom, level: number): void {
  const length = Math.round(0.006 * sampleRate);
  const tau = 0.0012 * sampleRate;
  let previous = 0;
  for (let i = 0; i < length && at + i < out.length; i++) {
    const w = gaussian(() => r.next());
    // A first difference tilts the burst towards high frequencies: a click, not a thud.
    out[at + i]! += level * (w - previous) * Math.exp(-i / tau);
    previous = w;
  }
}

/** Typing: bursts of 1–4 s of keystrokes (each a press and a softer release), a few seconds apart. */
export function keyboardNoise(length: number, sampleRate: number, seed: number): Float32Array {
  const r = seededRandom(seed);
  const out = new Float32Array(length);
  let t = Math.round((0.5 + r.next() * 2) * sampleRate);
  while (t < length) {
    const burstEnd = t + Math.round((1 + r.next() * 3) * sampleRate);
    while (t < burstEnd && t < length) {
      const level = 0.6 + 0.4 * r.next();
      addClick(out, t, sampleRate, r, level);
      addClick(out, t + Math.round((0.03 + 0.04 * r.next()) * sampleRate), sampleRate, r, level * 0.4);
      t += Math.round((0.08 + 0.14 * r.next()) * sampleRate);
    }
    t += Math.round((2 + r.next() * 6) * sampleRate);
  }
  return out;
}

/**
 * Babble: `streams` talkers at once, each saying random clips (sentences not
 * from any script) one after another with short gaps, starting at random
 * points. At a low level it is the murmur of a busy office or café.
 */
export function babbleNoise(length: number, sampleRate: number, clips: readonly Float32Array[], seed: number, streams = 4): Float32Array {
  if (clips.length === 0) throw new Error('babble needs at least one voice clip');
  const r = seededRandom(seed);
  const out = new Float32Array(length);
  for (let s = 0; s < streams; s++) {
    let t = -Math.round(r.next() * 3 * sampleRate); // start mid-sentence
    while (t < length) {
      const clip = r.pick(clips);
      const gain = 0.6 + 0.4 * r.next();
      for (let i = 0; i < clip.length; i++) {
        const at = t + i;
        if (at >= 0 && at < length) out[at]! += gain * clip[i]!;
      }
      t += clip.length + Math.round((0.1 + 0.4 * r.next()) * sampleRate);
    }
  }
  return out;
}

/**
 * Interruptions that are not speech: a desk phone ringing (two rings of the
 * North American 440 + 480 Hz cadence, 2 s on, 4 s off) or a knock at the
 * door (three damped low thumps), at random times about `perMinute` times a
 * minute. Words of the truth are never covered on purpose: these land where
 * they land, as in a room.
 */
export function interruptionNoise(length: number, sampleRate: number, perMinute: number, seed: number): Float32Array {
  const r = seededRandom(seed);
  const out = new Float32Array(length);
  const meanGap = (60 / Math.max(perMinute, 1e-3)) * sampleRate;
  let t = Math.round(r.next() * meanGap);
  while (t < length) {
    if (r.next() < 0.5) {
      for (let ring = 0; ring < 2; ring++) {
        const start = t + ring * 6 * sampleRate;
        for (let i = 0; i < 2 * sampleRate && start + i < length; i++) {
          const s = i / sampleRate;
          out[start + i]! += 0.5 * (Math.sin(2 * Math.PI * 440 * s) + Math.sin(2 * Math.PI * 480 * s));
        }
      }
    } else {
      for (let k = 0; k < 3; k++) {
        const start = t + Math.round(k * 0.22 * sampleRate);
        const f = 110 + 40 * r.next();
        for (let i = 0; i < 0.08 * sampleRate && start + i < length; i++) {
          const s = i / sampleRate;
          out[start + i]! += Math.sin(2 * Math.PI * f * s) * Math.exp(-s / 0.015) + 0.3 * gaussian(() => r.next()) * Math.exp(-s / 0.004);
        }
      }
    }
    t += Math.round(meanGap * (0.5 + r.next()));
  }
  return out;
}
