/**
 * The identification stage's parts on their own: the one-to-one assignment
 * of names to speaker clusters, the similarity's scale, and the stage doing
 * nothing while the section is off or nobody is enrolled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestSimilarityPairs, identifySpeakers } from './identify-speakers.ts';
import { accumulateVoiceprint, isVoiceprint, similarityOfScore, SCORE_AT_BAR, toVoiceprint } from './voiceprint.ts';
import { emptyStats } from './diarize/features.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled } from './types.ts';
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
