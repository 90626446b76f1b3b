/**
 * The cohort normalisation of voiceprint scores (decision 167): each pair of
 * cluster and person measured against the cluster's scores with the other
 * enrolled people and the person's scores with the meeting's other clusters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cohortNormalisedScores, cohortScores, RATIO_AT_BAR, voiceSimilarities } from './voiceprint.ts';
import { emptyStats } from './diarize/features.ts';

test('a pair’s cohort is its row and its column without itself, unscored entries left out', () => {
  const scores = [
    [1, 2, 3],
    [4, 5, Number.NaN],
  ];
  assert.deepEqual(cohortScores(scores, 0, 0).sort(), [2, 3, 4]);
  assert.deepEqual(cohortScores(scores, 1, 1).sort(), [2, 4]);
  assert.deepEqual(cohortScores([[7]], 0, 0), []);
});

test('a room that raises every score of a meeting leaves the normalised scores as they were', () => {
  const quiet = [
    [0.1, 1.0, 1.2],
    [0.9, 0.2, 1.1],
  ];
  const noisy = quiet.map((row) => row.map((s) => 3 * s));
  const a = cohortNormalisedScores(quiet);
  const b = cohortNormalisedScores(noisy);
  for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) assert.ok(Math.abs(a[i]![j]! - b[i]![j]!) < 1e-12);
  // Each cluster's own person scores well under its cohort, the others about at it.
  assert.ok(a[0]![0]! < 0.2 && a[1]![1]! < 0.3);
  assert.ok(a[0]![2]! > 1);
});

test('no cohort, a cohort of zeros or an unscored pair gives no normalised score', () => {
  assert.deepEqual(cohortNormalisedScores([[0.4]]), [[null]]);
  assert.deepEqual(cohortNormalisedScores([[0.4, 0]]), [[null, 0]]);
  assert.deepEqual(cohortNormalisedScores([[Number.NaN, 1]]), [[null, null]]);
  assert.deepEqual(cohortNormalisedScores([]), []);
});

test('a cluster too short to score gets similarity 0 and the matrix has one row per cluster, one column per person', () => {
  const short = { ...emptyStats(), n: 10 };
  assert.deepEqual(voiceSimilarities([short, short], [emptyStats(), emptyStats(), emptyStats()], 100), [
    [0, 0, 0],
    [0, 0, 0],
  ]);
  assert.deepEqual(voiceSimilarities([], [emptyStats()], 100), []);
  assert.ok(RATIO_AT_BAR > 0 && RATIO_AT_BAR < 1);
});
