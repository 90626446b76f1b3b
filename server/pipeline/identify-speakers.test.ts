/**
 * The identification stage's parts on their own: the one-to-one assignment
 * of names to speaker clusters, the similarity's scale, the stage doing
 * nothing while the section is off or nobody is enrolled, and the stage
 * reading no audio when the diarizer handed its statistics through.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestSimilarityPairs, identifySpeakers } from './identify-speakers.ts';
import { accumulateVoiceprint, isVoiceprint, similarityOfScore, SCORE_AT_BAR, toVoiceprint } from './voiceprint.ts';
import { CEPSTRA, emptyStats, type FrameStats } from './diarize/features.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled, type PcmAudio } from './types.ts';
import type { Transcription, TranscriptionSettings } from './transcribe.ts';

test('each name goes to at most one cluster, the assignment of greatest total similarity among matches', () => {
  // Cluster 0 matches both people; cluster 1 only the first: the first goes to cluster 1, the second to cluster 0.
  assert.deepEqual(
    bestSimilarityPairs(
      [
        [0.9, 0.85],
        [0.95, 0.1],
      ],
      0.75,
    ).sort(),
    [
      [0, 1],
      [1, 0],
    ],
  );
  // Below the threshold nobody is named; more clusters than people leave the rest unnamed.
  assert.deepEqual(bestSimilarityPairs([[0.7], [0.74]], 0.75), []);
  assert.deepEqual(bestSimilarityPairs([[0.8], [0.9], [0.1]], 0.75), [[1, 0]]);
  assert.deepEqual(bestSimilarityPairs([], 0.75), []);
});

test('the similarity is 1 for voices no test tells apart and 0.75 at the measured bar', () => {
  assert.equal(similarityOfScore(-0.2), 1);
  assert.equal(similarityOfScore(SCORE_AT_BAR), 0.75);
  assert.ok(similarityOfScore(4 * SCORE_AT_BAR) < 0.35);
  assert.equal(similarityOfScore(Number.NaN), 0);
});

test('voiceprints add up and a damaged one is recognised', () => {
  const s = emptyStats();
  s.n = 10;
  s.sum[0] = 5;
  const v = toVoiceprint(s);
  assert.equal(isVoiceprint(v), true);
  assert.equal(accumulateVoiceprint(v, v).n, 20);
  assert.equal(accumulateVoiceprint(null, v), v);
  assert.equal(isVoiceprint({ ...v, sum: [1, 2] }), false);
  assert.equal(isVoiceprint(null), false);
});

test('the stage changes nothing while the section is off or nobody is enrolled', async () => {
  const transcription: Transcription = {
    audio: { sampleRate: PIPELINE_SAMPLE_RATE, samples: new Float32Array(PIPELINE_SAMPLE_RATE), durationSeconds: 1 },
    speechFound: true,
    words: [],
    speakers: [],
    segments: [{ speaker: 'S1', start: 0, end: 1, text: 'hello', words: [] }],
  };
  const base = { vad: {}, diarization: {}, customWords: [], initialPrompt: '' } as unknown as TranscriptionSettings;
  const print = toVoiceprint(emptyStats());
  assert.equal(await identifySpeakers.run(transcription, uncontrolled(), base), transcription);
  const off = { ...base, speakerIdentification: { enabled: false, matchThreshold: 0.75, voiceprints: () => [{ name: 'A', print }] } };
  assert.equal(await identifySpeakers.run(transcription, uncontrolled(), off), transcription);
  const nobody = { ...base, speakerIdentification: { enabled: true, matchThreshold: 0.75, voiceprints: () => [] } };
  assert.equal(await identifySpeakers.run(transcription, uncontrolled(), nobody), transcription);
  // A cluster with too little voice is named nobody.
  const silent = { ...base, speakerIdentification: { enabled: true, matchThreshold: 0.75, voiceprints: () => [{ name: 'A', print }] } };
  assert.deepEqual((await identifySpeakers.run(transcription, uncontrolled(), silent)).speakerNames, {});
});

/** Voice statistics of `n` made-up frames around `centre` (a full-rank spread, no pitch). */
function madeUpVoice(centre: number, n = 400): FrameStats {
  const s = emptyStats();
  let seed = 7;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31 - 0.5;
  for (let f = 0; f < n; f++) {
    const x = Array.from({ length: CEPSTRA }, (_, i) => centre + (i + 1) * 0.1 * next());
    s.n++;
    for (let i = 0; i < CEPSTRA; i++) {
      s.sum[i]! += x[i]!;
      for (let j = 0; j < CEPSTRA; j++) s.outer[i * CEPSTRA + j]! += x[i]! * x[j]!;
    }
  }
  return s;
}

test("with the diarizer's statistics handed through the stage reads no audio; without them for every key it does", async () => {
  let read = 0;
  const audio = { sampleRate: PIPELINE_SAMPLE_RATE, durationSeconds: 4 } as PcmAudio;
  const samples = new Float32Array(4 * PIPELINE_SAMPLE_RATE);
  Object.defineProperty(audio, 'samples', {
    get: () => {
      read++;
      return samples;
    },
  });
  const ana = madeUpVoice(1);
  const transcription: Transcription = {
    audio,
    speechFound: true,
    words: [],
    speakers: [],
    segments: [
      { speaker: 'S1', start: 0, end: 2, text: 'hello', words: [] },
      { speaker: 'S2', start: 2, end: 4, text: 'there', words: [] },
    ],
    voices: { S1: madeUpVoice(-3), S2: ana },
  };
  const settings = {
    vad: {},
    diarization: {},
    customWords: [],
    initialPrompt: '',
    speakerIdentification: { enabled: true, matchThreshold: 0.75, voiceprints: () => [{ name: 'Ana', print: toVoiceprint(ana) }] },
  } as unknown as TranscriptionSettings;
  assert.deepEqual((await identifySpeakers.run(transcription, uncontrolled(), settings)).speakerNames, { S2: 'Ana' });
  assert.equal(read, 0, 'no audio analysis');
  // A key the diarizer gave nothing for (keys changed after it): every cluster is measured from the audio.
  const { S1 } = transcription.voices!;
  const renamed = await identifySpeakers.run({ ...transcription, voices: { S1: S1! } }, uncontrolled(), settings);
  assert.ok(read > 0, 'the audio was analysed');
  assert.deepEqual(renamed.speakerNames, {}, 'silence is named nobody');
});
