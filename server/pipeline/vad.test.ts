/**
 * Voice activity on speech with known silences: espeak-ng lines placed
 * between silent gaps over a low noise floor, with a loud burst of white
 * noise in one gap that must not count as speech.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { analyseFrames, detectSpeech } from './vad.ts';
import type { PcmAudio, SpeechRegion, VadSettings } from './types.ts';

const RATE = 16_000;
const DEFAULTS: VadSettings = { enabled: true, threshold: 0.5, min_speech_ms: 250, min_silence_ms: 500, speech_pad_ms: 100 };

/** espeak-ng speech at 16 kHz, with its own leading and trailing silence cut off. */
function speak(voice: string[], text: string): Float32Array {
  const wav = execFileSync('espeak-ng', [...voice, '--stdout', text]);
  const raw = execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-i', '-', '-ar', String(RATE), '-ac', '1', '-f', 'f32le', '-'], {
    input: wav,
  });
  const x = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
  let from = 0;
  let to = x.length;
  while (from < to && Math.abs(x[from]!) < 1e-3) from++;
  while (to > from && Math.abs(x[to - 1]!) < 1e-3) to--;
  return x.slice(from, to);
}

function noise(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return (s / 0x7fffffff - 0.5) * 3.46; // uniform with unit variance
  };
}

let audio: PcmAudio;
const truth: SpeechRegion[] = [];
let burst: SpeechRegion;

before(() => {
  const lines = [
    speak(['-v', 'en-us', '-p', '40'], 'Good morning, thank you all for joining the call today.'),
    speak(['-v', 'en-gb+f2', '-p', '60'], 'Can we start with the budget?'),
    speak(['-v', 'en-us', '-p', '40'], 'Yes, the numbers are in the shared folder.'),
  ];
  // Silences: 1 s, 2 s, 1.5 s, 1 s.
  const gaps = [1, 2, 1.5, 1];
  const length = gaps.reduce((n, g) => n + g * RATE, 0) + lines.reduce((n, l) => n + l.length, 0);
  const x = new Float32Array(length);
  let at = gaps[0]! * RATE;
  lines.forEach((line, i) => {
    x.set(line, at);
    truth.push({ start: at / RATE, end: (at + line.length) / RATE });
    at += line.length + gaps[i + 1]! * RATE;
  });
  const rnd = noise(5);
  for (let i = 0; i < x.length; i++) x[i]! += 0.003 * rnd(); // about −50 dBFS of hiss
  // A 0.4 s burst of loud white noise in the middle of the 2 s gap.
  const burstAt = Math.round((truth[0]!.end + 0.8) * RATE);
  for (let i = 0; i < 0.4 * RATE; i++) x[burstAt + i]! += 0.2 * rnd();
  burst = { start: burstAt / RATE, end: burstAt / RATE + 0.4 };
  audio = { sampleRate: RATE, samples: x, durationSeconds: x.length / RATE };
});

const total = (regions: readonly SpeechRegion[]) => regions.reduce((n, r) => n + r.end - r.start, 0);

describe('detectSpeech', () => {
  test('finds each line and none of the silences, within 0.2 s', () => {
    const regions = detectSpeech(audio, DEFAULTS);
    assert.equal(regions.length, truth.length, JSON.stringify(regions));
    regions.forEach((r, i) => {
      assert.ok(Math.abs(r.start - truth[i]!.start) < 0.2, `start ${r.start} vs ${truth[i]!.start}`);
      assert.ok(Math.abs(r.end - truth[i]!.end) < 0.2, `end ${r.end} vs ${truth[i]!.end}`);
    });
  });

  test('a loud burst of white noise is not speech', () => {
    const regions = detectSpeech(audio, DEFAULTS);
    assert.ok(
      regions.every((r) => r.end <= burst.start || r.start >= burst.end),
      JSON.stringify(regions),
    );
    const frames = analyseFrames(audio);
    const mid = Math.round((burst.start + 0.2) / frames.hopSeconds);
    assert.ok(frames.levelDb[mid]! > frames.floorDb[mid]! + 20, 'the burst is loud');
    assert.ok(frames.probability[mid]! < 0.5, `burst probability ${frames.probability[mid]}`);
  });

  test('regions are ordered, disjoint and inside the recording', () => {
    for (const settings of [DEFAULTS, { ...DEFAULTS, speech_pad_ms: 2000 }, { ...DEFAULTS, threshold: 0.1 }]) {
      const regions = detectSpeech(audio, settings);
      regions.forEach((r, i) => {
        assert.ok(r.start >= 0 && r.end <= audio.durationSeconds && r.start < r.end);
        if (i > 0) assert.ok(r.start > regions[i - 1]!.end);
      });
    }
  });

  test('enabled: false gives one region covering everything', () => {
    assert.deepEqual(detectSpeech(audio, { ...DEFAULTS, enabled: false }), [{ start: 0, end: audio.durationSeconds }]);
  });

  test('digital silence has no speech at any threshold', () => {
    const silence: PcmAudio = { sampleRate: RATE, samples: new Float32Array(3 * RATE), durationSeconds: 3 };
    for (const threshold of [0, 0.5, 1]) assert.deepEqual(detectSpeech(silence, { ...DEFAULTS, threshold }), []);
  });

  test('steady noise alone is not speech, whatever its level', () => {
    for (const level of [0.001, 0.05]) {
      const rnd = noise(9);
      const x = new Float32Array(4 * RATE).map(() => level * rnd());
      assert.deepEqual(detectSpeech({ sampleRate: RATE, samples: x, durationSeconds: 4 }, DEFAULTS), [], `level ${level}`);
    }
  });

  test('a higher threshold never finds more speech', () => {
    let previous = Infinity;
    for (const threshold of [0, 0.2, 0.5, 0.8, 0.95, 1]) {
      const found = total(detectSpeech(audio, { ...DEFAULTS, threshold }));
      assert.ok(found <= previous + 1e-9, `threshold ${threshold}: ${found} > ${previous}`);
      previous = found;
    }
    assert.equal(previous, 0, 'threshold 1 finds nothing');
  });

  test('min_silence_ms bridges gaps shorter than it', () => {
    // The gaps between lines are 2 s and 1.5 s: bridging 1.8 s joins the last two lines only.
    const regions = detectSpeech(audio, { ...DEFAULTS, min_silence_ms: 1800 });
    assert.equal(regions.length, 2, JSON.stringify(regions));
    assert.ok(Math.abs(regions[1]!.start - truth[1]!.start) < 0.2 && Math.abs(regions[1]!.end - truth[2]!.end) < 0.2);
  });

  test('min_speech_ms drops regions shorter than it', () => {
    const shortest = Math.min(...truth.map((r) => r.end - r.start));
    const regions = detectSpeech(audio, { ...DEFAULTS, min_speech_ms: Math.round((shortest + 0.5) * 1000) });
    assert.equal(regions.length, truth.length - 1, JSON.stringify(regions));
  });

  test('speech_pad_ms widens each region on both sides', () => {
    const plain = detectSpeech(audio, { ...DEFAULTS, speech_pad_ms: 0 });
    const padded = detectSpeech(audio, { ...DEFAULTS, speech_pad_ms: 300 });
    assert.equal(padded.length, plain.length);
    padded.forEach((r, i) => {
      assert.ok(Math.abs(plain[i]!.start - 0.3 - r.start) < 0.002);
      assert.ok(Math.abs(plain[i]!.end + 0.3 - r.end) < 0.002);
    });
  });
});
