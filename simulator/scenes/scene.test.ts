import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fft } from '../../common/audio/fft.ts';
import { convolve } from './fft-convolve.ts';
import { impulseResponse, measuredDrr, schroederRt60 } from './room.ts';
import { activePower, babbleNoise, hvacNoise, keyboardNoise, measuredSnr, pinkNoise } from './noise.ts';
import { clip, dropouts, mp3Codec } from './channel.ts';
import { SceneError, addSceneNoise, applyScene, resolveScene, roomMix, subSeed } from './scene.ts';
import { sceneFromFlags } from './scene-flags.ts';
import { parseScript } from '../scripts/meeting-script.ts';
import { renderScript } from '../synth/render-script.ts';

const SR = 16_000;

/** A voice-like test signal: bursts of a harmonic tone with pauses, deterministic. */
function speechLike(seconds: number, sampleRate = SR): Float32Array {
  const x = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < x.length; i++) {
    const t = i / sampleRate;
    const on = Math.floor(t / 0.7) % 3 !== 2; // 1.4 s on, 0.7 s off
    if (!on) continue;
    x[i] =
      0.3 *
      (Math.sin(2 * Math.PI * 140 * t) + 0.5 * Math.sin(2 * Math.PI * 280 * t) + 0.25 * Math.sin(2 * Math.PI * 1200 * t)) *
      (0.6 + 0.4 * Math.sin(2 * Math.PI * 3 * t));
  }
  return x;
}

test('the FFT convolution equals the direct one', () => {
  const x = Float32Array.from({ length: 3000 }, (_, i) => ((i * 7919) % 101) / 101 - 0.5);
  x.fill(0, 1000, 2000); // a silent stretch is skipped, not mis-added
  const h = Float32Array.from({ length: 300 }, (_, i) => Math.exp(-i / 40) * (i % 2 === 0 ? 1 : -0.5));
  const fast = convolve(x, h);
  for (const n of [0, 17, 999, 1500, 2100, 2999]) {
    let direct = 0;
    for (let k = 0; k < h.length && k <= n; k++) direct += h[k]! * x[n - k]!;
    assert.ok(Math.abs(fast[n]! - direct) < 1e-4, `sample ${n}: ${fast[n]} vs ${direct}`);
  }
  const re = Float64Array.from([1, 2, 3, 4]);
  const im = new Float64Array(4);
  fft(re, im);
  fft(re, im, true);
  assert.deepEqual(
    [...re].map((v) => Math.round(v * 1e9) / 1e9),
    [1, 2, 3, 4],
  );
});

test('the synthesized room response has the RT60 and DRR asked for (Schroeder backward integration)', () => {
  for (const rt60 of [0.3, 0.4, 0.7, 1.2]) {
    for (const seed of [1, 2, 3]) {
      const ir = impulseResponse({ rt60, drr_db: 3 }, { distance_m: 1, gain_db: 0 }, SR, seed);
      const measured = schroederRt60(ir, SR);
      assert.ok(Math.abs(measured - rt60) / rt60 < 0.1, `RT60 ${rt60} s, seed ${seed}: measured ${measured.toFixed(3)} s`);
      assert.ok(Math.abs(measuredDrr(ir) - 3) < 0.01, `DRR ${measuredDrr(ir)}`);
    }
  }
  // Twice as far: the direct path is 6 dB weaker, the tail the same.
  const far = impulseResponse({ rt60: 0.4, drr_db: 3 }, { distance_m: 2, gain_db: 0 }, SR, 1);
  assert.ok(Math.abs(measuredDrr(far) - (3 - 20 * Math.log10(2))) < 0.01);
});

test('each noise is added at the SNR asked for, within 0.5 dB, against the speech alone', async () => {
  const speech = speechLike(20);
  const clips = [speechLike(1.3), speechLike(2.1).map((v) => v * 0.5)];
  for (const type of ['pink', 'hvac', 'babble', 'keyboard'] as const) {
    for (const snr of [0, 5, 15, 25]) {
      const scene = resolveScene({ noise: [{ type, snr_db: snr }] }, 4);
      const mixed = Float32Array.from(speech);
      await addSceneNoise(mixed, SR, scene, { babble: async () => clips });
      const noise = mixed.map((v, i) => v - speech[i]!);
      const got = measuredSnr(speech, noise, SR);
      assert.ok(Math.abs(got - snr) < 0.5, `${type} at ${snr} dB: measured ${got.toFixed(2)} dB`);
    }
  }
  // The generators themselves: deterministic by seed, different across seeds.
  assert.deepEqual(pinkNoise(1000, 3), pinkNoise(1000, 3));
  assert.notDeepEqual(pinkNoise(1000, 3), pinkNoise(1000, 4));
  assert.deepEqual(hvacNoise(1000, SR, 3), hvacNoise(1000, SR, 3));
  assert.deepEqual(keyboardNoise(SR * 5, SR, 3), keyboardNoise(SR * 5, SR, 3));
  assert.deepEqual(babbleNoise(SR * 5, SR, clips, 3), babbleNoise(SR * 5, SR, clips, 3));
  assert.ok(activePower(keyboardNoise(SR * 10, SR, 3), SR) > 0, 'keys are heard');
});

test('pink noise falls about 3 dB per octave', () => {
  const x = pinkNoise(1 << 16, 9);
  const re = Float64Array.from(x);
  const im = new Float64Array(re.length);
  fft(re, im);
  const band = (lo: number, hi: number): number => {
    let e = 0;
    const a = Math.round((lo / SR) * re.length);
    const b = Math.round((hi / SR) * re.length);
    for (let k = a; k < b; k++) e += re[k]! ** 2 + im[k]! ** 2;
    return e;
  };
  // Energy per octave is flat for 1/f noise.
  const ratio = 10 * Math.log10(band(250, 500) / band(2000, 4000));
  assert.ok(Math.abs(ratio) < 1.5, `octave energies differ by ${ratio.toFixed(2)} dB`);
});

test('channel stages: clipping, dropouts, and an MP3 round trip that keeps the timing', async () => {
  const x = speechLike(3);
  const clipped = clip(x, 6);
  const peak = Math.max(...x.map(Math.abs));
  assert.ok(Math.max(...clipped.map(Math.abs)) <= peak * 10 ** (-6 / 20) + 1e-6);
  const dropped = dropouts(x, SR, 200, 80, 5); // about ten gaps in 3 s
  assert.equal(dropped.length, x.length);
  assert.ok(dropped.filter((v, i) => v === 0 && x[i] !== 0).length > 0.08 * SR, "at least one gap's worth of speech is dropped");
  assert.deepEqual(dropouts(x, SR, 200, 80, 5), dropped);

  const coded = await mp3Codec(x, SR, 32);
  assert.equal(coded.length, x.length);
  // The codec's delay is removed: the output lines up with the input at lag 0.
  const corr = (lag: number): number => {
    let c = 0;
    for (let i = 4000; i < 20000; i++) c += x[i]! * (coded[i + lag] ?? 0);
    return c;
  };
  const lags = [-40, -10, -1, 1, 10, 40, 576, 1105];
  for (const lag of lags) assert.ok(corr(0) > corr(lag), `lag 0 beats lag ${lag}`);
});

test('a scene is resolved from presets and flags; bad scenes are refused with the reason', () => {
  const office = resolveScene('office');
  assert.deepEqual(office.room, { rt60: 0.4, drr_db: 3 });
  assert.deepEqual(office.noise, [{ type: 'pink', snr_db: 15 }]);
  assert.equal(office.seed, 1);
  const hard = resolveScene({ preset: 'hard' }, 9);
  assert.deepEqual(hard.channel, [{ type: 'mp3', kbps: 32 }]);
  assert.equal(hard.seed, 9);
  assert.deepEqual(resolveScene(undefined).preset, 'clean');
  assert.throws(() => resolveScene('attic'), SceneError);
  assert.throws(() => resolveScene({ room: { rt60: 9 } }), /rt60/);
  assert.throws(() => resolveScene({ noise: [{ type: 'jazz', snr_db: 3 } as never] }), SceneError);

  const flagged = resolveScene(
    sceneFromFlags({
      scene: 'office',
      noise: 'babble:10,keyboard:20',
      channel: 'telephone,dropouts:4:60',
      distance: 'S1=2',
      gain: 'S2=-3',
    }),
  );
  assert.deepEqual(flagged.room, { rt60: 0.4, drr_db: 3 }, 'the preset room stays');
  assert.deepEqual(flagged.noise, [
    { type: 'babble', snr_db: 10 },
    { type: 'keyboard', snr_db: 20 },
  ]);
  assert.deepEqual(flagged.channel, [{ type: 'telephone' }, { type: 'dropouts', per_minute: 4, ms: 60 }]);
  assert.deepEqual(flagged.speakers, { S1: { distance_m: 2, gain_db: 0 }, S2: { distance_m: 1, gain_db: -3 } });
  assert.deepEqual(
    resolveScene(sceneFromFlags({ rt60: '0.6' }, 'noise-only')).room,
    { rt60: 0.6, drr_db: 3 },
    'flags extend the script scene',
  );
  assert.deepEqual(resolveScene(sceneFromFlags({ channel: 'opus:12' })).channel, [{ type: 'opus', kbps: 12 }]);
  assert.throws(() => sceneFromFlags({ channel: 'opus' }), SceneError);
  assert.throws(() => sceneFromFlags({ noise: 'pink' }), SceneError);
  assert.throws(() => sceneFromFlags({ distance: 'S1' }), SceneError);
  assert.throws(() => sceneFromFlags({ drr: '3' }), /--rt60/);
  assert.notEqual(subSeed(1, 'room', 'S1'), subSeed(1, 'room', 'S2'));
});

test('applyScene is deterministic by seed and per speaker', async () => {
  const a = speechLike(4);
  const b = speechLike(4).map((v, i) => (i > SR * 2 ? v * 0.7 : 0));
  const tracks = [
    { speaker: 'S1', samples: a },
    { speaker: 'S2', samples: b },
  ];
  const scene = resolveScene({ preset: 'office', speakers: { S2: { distance_m: 3 } } }, 3);
  const one = await applyScene(tracks, SR, scene);
  const two = await applyScene(tracks, SR, scene);
  assert.deepEqual(one, two);
  const other = await applyScene(tracks, SR, resolveScene('office', 4));
  assert.notDeepEqual(one, other);
  // Without a room, a farther speaker is only quieter (1/distance).
  const quiet = roomMix([{ speaker: 'S1', samples: a }], SR, resolveScene({ speakers: { S1: { distance_m: 2, gain_db: 0 } } }));
  assert.ok(Math.abs(quiet[1000]! - a[1000]! / 2) < 1e-7);
});

test('a rendered meeting: same script, scene and seed give the same bytes; the truth words never change', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scene-render-'));
  try {
    const script = parseScript({
      title: 'Scene check',
      language: 'en',
      speakers: [
        { key: 'A', name: 'Ann Lee', voice: 'en-us', pitch: 60 },
        { key: 'B', name: 'Bo Chen', voice: 'en-gb', pitch: 30 },
      ],
      lines: [
        { speaker: 'A', text: 'The build is green again.' },
        { speaker: 'B', text: 'Good, then we ship on Monday.' },
      ],
      scene: 'reverb-only',
    });
    const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
    const clean = await renderScript(script, join(dir, 'clean.wav'), { scene: 'clean' });
    const first = await renderScript(script, join(dir, 'a.wav'), { scene: 'hard', seed: 5 });
    const again = await renderScript(script, join(dir, 'b.wav'), { scene: 'hard', seed: 5 });
    const seeded = await renderScript(script, join(dir, 'c.wav'), { scene: 'hard', seed: 6 });
    const fromScript = await renderScript(script, join(dir, 'd.wav'));
    assert.equal(digest(first.wav), digest(again.wav), 'same bytes');
    assert.notEqual(digest(first.wav), digest(seeded.wav), 'another seed, another room');
    assert.notEqual(digest(first.wav), digest(clean.wav));
    for (const r of [first, seeded, fromScript]) {
      assert.deepEqual(r.truth.words, clean.truth.words, 'words and times do not depend on the scene');
      assert.deepEqual(r.truth.turns, clean.truth.turns);
      assert.equal(r.truth.duration, clean.truth.duration);
    }
    assert.equal(first.truth.scene.preset, 'hard');
    assert.equal(first.truth.scene.seed, 5);
    assert.equal(fromScript.truth.scene.preset, 'reverb-only', "the script's scene is the default");
    assert.equal(clean.truth.scene.preset, 'clean');
    const written = JSON.parse(readFileSync(first.truthPath, 'utf8')) as { scene: { seed: number; channel: unknown[] } };
    assert.equal(written.scene.seed, 5);
    assert.deepEqual(written.scene.channel, [{ type: 'mp3', kbps: 32 }]);
    await assert.rejects(renderScript(script, join(dir, 'e.wav'), { scene: { speakers: { Z: { distance_m: 2 } } } }), /no speaker "Z"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
