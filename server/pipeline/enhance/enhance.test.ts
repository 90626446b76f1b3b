/**
 * The enhancement stages on signals whose answer is known: WPE on a dry
 * signal put through a known impulse response, the denoiser on speech with a
 * known noise added, the Hermitian solver on a small system, and the front
 * end's modes. Everything is seeded, so the bounds are deterministic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWav } from '../../../common/audio/wav.ts';
import { applyScene, resolveScene } from '../../../simulator/scenes/scene.ts';
import { uncontrolled, type PcmAudio } from '../types.ts';
import { combineWithFrontEnd } from '../vad.ts';
import { enhanceSpeech } from './front-end.ts';
import { denoise } from './rnnoise.ts';
import { downsample3, upsample3 } from '../../../common/audio/resample.ts';
import { dereverberate, solveHermitian } from './wpe.ts';

const RATE = 16_000;

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
}

function pcm(samples: Float32Array): PcmAudio {
  return { sampleRate: RATE, samples, durationSeconds: samples.length / RATE };
}

/**
 * A dry signal with speech's sparsity: 150–250 ms "syllables" separated by
 * 100–300 ms of silence, each a noise-excited burst with a few harmonics on
 * a drifting pitch (a pure tone would be predictable from its own past, which
 * no speech is).
 */
function syllables(seconds: number, seed: number): Float32Array {
  const random = seeded(seed);
  const out = new Float32Array(seconds * RATE);
  let at = Math.round(0.2 * RATE);
  while (at < out.length - RATE / 2) {
    const length = Math.round((0.15 + 0.1 * random()) * RATE);
    const f0 = 100 + 120 * random();
    let phase = 0;
    for (let i = 0; i < length && at + i < out.length; i++) {
      const envelope = Math.sin((Math.PI * i) / length) ** 2;
      phase += (2 * Math.PI * f0 * (1 + (0.1 * i) / length)) / RATE;
      let v = 0;
      for (let h = 1; h <= 4; h++) v += Math.sin(h * phase) / h;
      out[at + i] = 0.1 * envelope * (v * 0.3 + gaussian(random));
    }
    at += length + Math.round((0.1 + 0.2 * random()) * RATE);
  }
  return out;
}

/** Direct path plus an exponentially decaying noise tail (RT60, direct-to-reverberant ratio). */
function roomResponse(rt60: number, drrDb: number, seed: number): Float32Array {
  const random = seeded(seed);
  const h = new Float32Array(Math.round(rt60 * RATE));
  h[0] = 1;
  let energy = 0;
  for (let n = 32; n < h.length; n++) {
    h[n] = gaussian(random) * Math.exp((-6.9 * n) / (rt60 * RATE));
    energy += h[n]! ** 2;
  }
  const gain = Math.sqrt(10 ** (-drrDb / 10) / energy);
  for (let n = 32; n < h.length; n++) h[n] = h[n]! * gain;
  return h;
}

function convolve(x: Float32Array, h: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (v === 0) continue;
    for (let k = 0; k < h.length && i + k < out.length; k++) out[i + k] = out[i + k]! + v * h[k]!;
  }
  return out;
}

function correlation(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
}

test('WPE: the dereverberated output correlates better with the dry signal than the reverberant input does', async () => {
  const dry = syllables(6, 1);
  const wet = convolve(dry, roomResponse(0.5, 0, 2));
  const out = await dereverberate(pcm(wet), uncontrolled());
  assert.equal(out.samples.length, wet.length, 'same length, so word times stay put');
  const before = correlation(dry, wet);
  const after = correlation(dry, out.samples);
  // The prediction delay keeps the first 24 ms of reflections, so the output is not the dry signal; the tail is what goes.
  assert.ok(after > before + 0.02, `correlation with the dry signal: input ${before.toFixed(3)}, output ${after.toFixed(3)}`);
});

test('WPE leaves a dry signal nearly as it was', async () => {
  const dry = syllables(6, 3);
  const out = await dereverberate(pcm(dry), uncontrolled());
  assert.ok(correlation(dry, out.samples) > 0.95);
});

test('the Hermitian solver solves a small complex system', () => {
  // A = B Bᴴ + I for a fixed B, x known; p = A x.
  const k = 3;
  const bRe = [1, 0.5, -0.2, 0.3, 2, 0.1, -0.4, 0.2, 1.5];
  const bIm = [0.1, -0.3, 0.2, 0.5, 0, -0.1, 0.3, 0.2, -0.6];
  const aRe = new Float64Array(k * k);
  const aIm = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      let re = i === j ? 1 : 0;
      let im = 0;
      for (let m = 0; m < k; m++) {
        // B_im · conj(B_jm)
        re += bRe[i * k + m]! * bRe[j * k + m]! + bIm[i * k + m]! * bIm[j * k + m]!;
        im += bIm[i * k + m]! * bRe[j * k + m]! - bRe[i * k + m]! * bIm[j * k + m]!;
      }
      aRe[i * k + j] = re;
      aIm[i * k + j] = im;
    }
  }
  const xRe = [0.7, -1.2, 0.4];
  const xIm = [0.3, 0.5, -0.9];
  const pRe = new Float64Array(k);
  const pIm = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      pRe[i] = pRe[i]! + aRe[i * k + j]! * xRe[j]! - aIm[i * k + j]! * xIm[j]!;
      pIm[i] = pIm[i]! + aRe[i * k + j]! * xIm[j]! + aIm[i * k + j]! * xRe[j]!;
    }
  }
  const gRe = new Float64Array(k);
  const gIm = new Float64Array(k);
  assert.equal(solveHermitian(aRe, aIm, pRe, pIm, k, gRe, gIm), true);
  for (let i = 0; i < k; i++) {
    assert.ok(Math.abs(gRe[i]! - xRe[i]!) < 1e-9 && Math.abs(gIm[i]! - xIm[i]!) < 1e-9, `component ${i}`);
  }
  assert.equal(solveHermitian(new Float64Array([-1]), new Float64Array([0]), pRe, pIm, 1, gRe, gIm), false, 'not positive definite');
});

test('resampling 16 → 48 → 16 kHz keeps the signal below 7.6 kHz', () => {
  const x = syllables(2, 5);
  const back = downsample3(upsample3(x));
  assert.equal(back.length, x.length);
  // The filter cuts at 7.6 kHz: the top 5 % of the band of this noise-excited signal goes.
  assert.ok(correlation(x, back) > 0.95);
});

let hasFlite = true;
try {
  execFileSync('flite', ['-lv'], { stdio: 'ignore' });
} catch {
  hasFlite = false;
}

/** Real synthesized speech (Flite's kal16 voice), padded by a second of silence either side. */
function fliteSpeech(): Float32Array {
  const dir = mkdtempSync(join(tmpdir(), 'mas-enhance-test-'));
  try {
    const file = join(dir, 'speech.wav');
    execFileSync('flite', [
      '-voice',
      'kal16',
      '-t',
      'The portal is feature complete, but testing found two bugs in the billing page.',
      '-o',
      file,
    ]);
    const wav = parseWav(readFileSync(file));
    assert.equal(wav.sampleRate, RATE);
    const out = new Float32Array(wav.samples.length + 2 * RATE);
    for (let i = 0; i < wav.samples.length; i++) out[RATE + i] = wav.samples[i]! / 32768;
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function power(x: Float32Array, from: number, to: number): number {
  let acc = 0;
  for (let i = from; i < to; i++) acc += x[i]! ** 2;
  return acc / Math.max(1, to - from);
}

test(
  'the denoiser on speech in white noise: the SNR improves and the speech stays',
  { skip: hasFlite ? false : 'flite is not installed' },
  async () => {
    const clean = fliteSpeech();
    const random = seeded(9);
    const speechEnd = clean.length - RATE;
    const speechPower = power(clean, RATE, speechEnd);
    const noiseLevel = Math.sqrt(speechPower / 10 ** (5 / 10)); // 5 dB SNR
    const noisy = clean.map((v) => v + noiseLevel * gaussian(random));
    const { audio, speechProbability } = await denoise(pcm(noisy), uncontrolled());
    assert.equal(audio.samples.length, noisy.length);
    // Noise alone: the first and last second. Speech + residual noise: the middle.
    const noiseBefore = power(noisy, 0, RATE);
    const noiseAfter = (power(audio.samples, RATE / 4, RATE) + power(audio.samples, speechEnd + RATE / 4, clean.length)) / 2;
    const speechAfter = power(audio.samples, RATE, speechEnd) - noiseAfter;
    const snrIn = 10 * Math.log10(speechPower / noiseBefore);
    const snrOut = 10 * Math.log10(speechAfter / noiseAfter);
    assert.ok(snrOut > snrIn + 10, `SNR in ${snrIn.toFixed(1)} dB, out ${snrOut.toFixed(1)} dB`);
    assert.ok(speechAfter > 0.4 * speechPower, `speech power kept: ${(speechAfter / speechPower).toFixed(2)}`);
    assert.ok(correlation(clean, audio.samples) > 0.8, 'the output lines up with the clean speech (no delay)');
    // Its speech probability (per 10 ms) is high in the speech, low in the noise.
    const mean = (from: number, to: number) => speechProbability.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);
    assert.ok(mean(20, 90) < 0.2 && mean(120, speechProbability.length - 120) > 0.5);
  },
);

test(
  'front end: off and clean audio in auto mode pass through; on runs both parts',
  { skip: hasFlite ? false : 'flite is not installed' },
  async () => {
    const clean = pcm(fliteSpeech());
    const all = { dereverberation: true, denoise: true };
    const off = await enhanceSpeech(clean, { enhancement: 'off', ...all }, uncontrolled());
    assert.equal(off.audio, clean);
    const auto = await enhanceSpeech(clean, { enhancement: 'auto', ...all }, uncontrolled());
    assert.equal(auto.audio, clean, 'a clean, dry recording is left alone');
    assert.ok(auto.estimate !== null && auto.estimate.snrDb > 35);
    const on = await enhanceSpeech(clean, { enhancement: 'on', ...all }, uncontrolled());
    assert.equal(on.denoised && on.dereverberated, true);
    assert.equal(on.audio.samples.length, clean.samples.length);
    assert.ok(on.audio.speechProbability !== undefined, "the denoiser's speech probability travels with the audio");

    const random = seeded(11);
    const noisy = pcm(clean.samples.map((v) => v + 0.02 * gaussian(random)));
    const autoNoisy = await enhanceSpeech(noisy, { enhancement: 'auto', ...all }, uncontrolled());
    assert.equal(autoNoisy.denoised, true, 'noise is found and removed');
    assert.equal(autoNoisy.dereverberated, false, 'a dry recording is not dereverberated');
    const noDenoise = await enhanceSpeech(noisy, { enhancement: 'auto', dereverberation: true, denoise: false }, uncontrolled());
    assert.equal(noDenoise.denoised, false, 'the denoise switch is obeyed');
  },
);

test("voice activity averages its own probability with the front end's, one slice later", () => {
  const combined = combineWithFrontEnd(new Float32Array([0.2, 0.4, 0.6]), new Float32Array([1, 0, 1, 0]));
  assert.deepEqual(
    Array.from(combined, (v) => Math.round(v * 100) / 100),
    [0.1, 0.7, 0.3],
  );
});

/** Debian's pocketsphinx-testdata: real readings recorded in ordinary rooms. */
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const hasRealSpeech = (() => {
  try {
    readFileSync(join(LIBRIVOX, 'fileids'));
    return true;
  } catch {
    return false;
  }
})();

test(
  'front end, auto: real clean readings are left alone; the same readings in a 0.4 s room are dereverberated, then denoised',
  { skip: hasRealSpeech ? false : 'pocketsphinx-testdata is not installed' },
  async () => {
    const ids = readFileSync(join(LIBRIVOX, 'fileids'), 'utf8').split('\n').filter(Boolean);
    const parts = ids.map((id) => Float32Array.from(parseWav(readFileSync(join(LIBRIVOX, `${id}.wav`))).samples, (v) => v / 32768));
    const joined = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (joined.set(p, at), at + p.length), 0);
    const all = { enhancement: 'auto' as const, dereverberation: true, denoise: true };
    const clean = await enhanceSpeech(pcm(joined), all, uncontrolled());
    assert.equal(
      clean.denoised || clean.dereverberated,
      false,
      `clean real speech (SNR ${clean.estimate?.snrDb.toFixed(1)} dB, RT60 ${clean.estimate?.rt60Seconds.toFixed(3)} s) is passed on`,
    );
    const room = await applyScene([{ speaker: 'reader', samples: joined }], RATE, resolveScene('reverb-only', 1));
    const reverberant = await enhanceSpeech(pcm(room), all, uncontrolled());
    assert.equal(
      reverberant.dereverberated,
      true,
      `in the room (RT60 estimate ${reverberant.estimate?.rt60Seconds.toFixed(3)} s) WPE runs`,
    );
    assert.equal(reverberant.denoised, true, 'and the denoiser after it, for the tail WPE leaves (decision 067)');
  },
);
