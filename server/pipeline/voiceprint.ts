/**
 * Voiceprints: what the application keeps of a person's voice to recognise
 * them in later meetings (speaker identification, decision 146).
 *
 * A voiceprint is the diarizer's own frame statistics (diarize/features.ts,
 * FrameStats): count, sum and sum of outer products of the MFCCs c1…c12 of
 * the frames that carry voice, and the count, sum and sum of squares of the
 * voiced frames' log2 F0. Statistics add up, so a voiceprint learnt from one
 * meeting is strengthened by the next one by adding (accumulateVoiceprint),
 * and nothing but these 160 numbers is kept: no audio, no words.
 *
 * Two voices are compared by the diarizer's own likelihood test
 * (diarize/likelihood.ts, splitEvidence): the per-frame likelihood ratio of
 * one full-covariance Gaussian on the cepstra against two, plus half the
 * same test on log-F0 (the diarizer's split score without its BIC penalty
 * term's dependence on cluster sizes aside). In a meeting each cluster ×
 * person score is divided by the mean of its cohort, the scores of the same
 * cluster and person with the others, so a room's shift of every score
 * cancels (decision 167), and mapped to a similarity in 0..1
 * (voiceSimilarities): 1 for statistics no test tells apart,
 * SIMILARITY_AT_BAR (the spec's default match_threshold 0.75) where real
 * recorded speech of one person and of different people are told apart
 * with equal error rates (bench/voiceprint-choice.ts measured it).
 */
import type { PcmAudio, StageControl } from './types.ts';
import { cutBlocks, describeBlocks } from './diarize/blocks.ts';
import { CEPSTRA, addStats, emptyStats, type FrameStats } from './diarize/features.ts';
import { splitEvidence } from './diarize/likelihood.ts';

/** A person's voice as statistics (see above); plain numbers, so it can be stored as JSON. */
export interface Voiceprint {
  /** Voice frames counted (10 ms each). */
  n: number;
  sum: number[];
  outer: number[];
  pn: number;
  psum: number;
  psq: number;
}

/** Fewer voice frames than this (3 s) and a speaker's statistics are too few to enrol or to identify by. */
export const MIN_VOICEPRINT_FRAMES = 300;

/** How much the log-F0 test counts beside the cepstral one (as in the diarizer's split score). */
const PITCH_WEIGHT = 0.5;

/**
 * The comparison score at which one person and different people were told
 * apart with equal error rates on real recorded speech (bench/voiceprint-choice.ts,
 * decision 146); it maps to SIMILARITY_AT_BAR.
 */
export const SCORE_AT_BAR = 0.3;
const SIMILARITY_AT_BAR = 0.75;

/** The voice statistics of the given stretches of a recording (the frames the diarizer would count). */
export async function voiceStats(
  audio: PcmAudio,
  stretches: readonly { start: number; end: number }[],
  control: StageControl,
): Promise<FrameStats> {
  const duration = audio.samples.length / audio.sampleRate;
  const regions = stretches
    .map((s) => ({ start: Math.max(0, s.start), end: Math.min(duration, s.end) }))
    .filter((s) => s.end - s.start > 0.05)
    .sort((a, b) => a.start - b.start);
  const total = emptyStats();
  if (regions.length === 0) return total;
  const blocks = await describeBlocks(audio, cutBlocks(regions), control);
  for (const b of blocks) addStats(total, b.stats);
  return total;
}

/**
 * The voice statistics of each speaker of a recording, from their stretches,
 * in one pass over the audio (one analysis of the recording's background and
 * pitch track, as voiceStats would make per speaker).
 */
export async function voiceStatsBySpeaker(
  audio: PcmAudio,
  stretches: readonly { speaker: string; start: number; end: number }[],
  control: StageControl,
): Promise<Map<string, FrameStats>> {
  const duration = audio.samples.length / audio.sampleRate;
  const regions = stretches
    .map((s) => ({ speaker: s.speaker, start: Math.max(0, s.start), end: Math.min(duration, s.end) }))
    .filter((s) => s.end - s.start > 0.05)
    .sort((a, b) => a.start - b.start);
  const out = new Map<string, FrameStats>(stretches.map((s) => [s.speaker, emptyStats()]));
  if (regions.length === 0) return out;
  const blocks = await describeBlocks(audio, cutBlocks(regions), control);
  for (const b of blocks) addStats(out.get(regions[b.region]!.speaker)!, b.stats);
  return out;
}

export function toVoiceprint(s: FrameStats): Voiceprint {
  return { n: s.n, sum: [...s.sum], outer: [...s.outer], pn: s.pn, psum: s.psum, psq: s.psq };
}

export function fromVoiceprint(v: Voiceprint): FrameStats {
  return { n: v.n, sum: Float64Array.from(v.sum), outer: Float64Array.from(v.outer), pn: v.pn, psum: v.psum, psq: v.psq };
}

/** A well-formed voiceprint (read back from storage): the right lengths, finite numbers. */
export function isVoiceprint(v: unknown): v is Voiceprint {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  const list = (x: unknown, n: number) => Array.isArray(x) && x.length === n && x.every(finite);
  return finite(o.n) && finite(o.pn) && finite(o.psum) && finite(o.psq) && list(o.sum, CEPSTRA) && list(o.outer, CEPSTRA * CEPSTRA);
}

/** A voiceprint strengthened by more of the same person's speech: the statistics added. */
export function accumulateVoiceprint(into: Voiceprint | null, more: Voiceprint): Voiceprint {
  if (into === null) return more;
  const s = fromVoiceprint(into);
  addStats(s, fromVoiceprint(more));
  return toVoiceprint(s);
}

/** The statistics with each voice's mean taken out: only the spread of the frames around it is left. */
export function centred(s: FrameStats): FrameStats {
  const n = Math.max(1, s.n);
  const outer = s.outer.slice();
  for (let i = 0; i < CEPSTRA; i++) for (let j = 0; j < CEPSTRA; j++) outer[i * CEPSTRA + j]! -= (s.sum[i]! * s.sum[j]!) / n;
  return { ...s, sum: new Float64Array(CEPSTRA), outer };
}

/** The comparison score of two voices: about 0 for one voice, growing as they differ (see the file's comment). */
export function voiceScore(a: FrameStats, b: FrameStats): number {
  const { cepstra, pitch } = splitEvidence(a, b);
  return cepstra + (pitch === null ? 0 : PITCH_WEIGHT * pitch);
}

/** A score mapped to 0..1: 1 at or below 0, SIMILARITY_AT_BAR at SCORE_AT_BAR, towards 0 beyond. */
export function similarityOfScore(score: number, scoreAtBar = SCORE_AT_BAR): number {
  if (!Number.isFinite(score)) return 0;
  return Math.min(1, SIMILARITY_AT_BAR ** (Math.max(0, score) / scoreAtBar));
}

/**
 * The score of a pair (cluster, person) with its cohort: the cluster against
 * every other enrolled voice, and the person against every other cluster of
 * the meeting. Both are by construction scores of different people, heard
 * in the same recording and enrolled in the same way as the pair, so they
 * carry the same shift a room's noise or reverberation puts on every score
 * of that cluster or person (S-norm's two cohorts, in speaker verification).
 * Non-finite scores (a cluster too short to score) are left out.
 */
export function cohortScores(scores: readonly (readonly number[])[], row: number, column: number): number[] {
  const cohort: number[] = [];
  scores[row]!.forEach((s, c) => {
    if (c !== column && Number.isFinite(s)) cohort.push(s);
  });
  scores.forEach((r, i) => {
    const s = r[column]!;
    if (i !== row && Number.isFinite(s)) cohort.push(s);
  });
  return cohort;
}

/**
 * Each score divided by the mean of its cohort (cohortScores): about 1 for
 * a pair of different people in any room, below it as the pair's voices
 * agree more than the cohort's do. A pair without a cohort (one cluster and
 * one person) or with a cohort of zero scores keeps null: it has nothing to
 * be measured against. Non-finite scores stay null.
 */
export function cohortNormalisedScores(scores: readonly (readonly number[])[]): (number | null)[][] {
  return scores.map((row, r) =>
    row.map((s, c) => {
      if (!Number.isFinite(s)) return null;
      const cohort = cohortScores(scores, r, c);
      const mean = cohort.reduce((a, b) => a + b, 0) / Math.max(1, cohort.length);
      return cohort.length === 0 || !(mean > 0) ? null : Math.max(0, s) / mean;
    }),
  );
}

/**
 * The cohort-normalised score (cohortNormalisedScores) at which one person
 * and different people were told apart with equal error rates on real
 * recorded speech, the clean, office and reverb-only scenes pooled, the
 * front end on auto (bench/voiceprint-choice.ts, decision 167); it maps to
 * SIMILARITY_AT_BAR, the spec's default match_threshold.
 */
export const RATIO_AT_BAR = 0.54;

/**
 * How alike each cluster of a meeting is to each enrolled person, 0..1 (the
 * spec's match_threshold is compared with it): each pair's score measured
 * against its cohort (cohortNormalisedScores), so a room that moves every
 * score of a cluster moves the cohort with it (decision 167). A pair without
 * a cohort (one cluster, one person) falls back to its raw score's
 * similarity. A cluster of fewer than minClusterFrames voice frames is
 * neither scored (0) nor part of any cohort.
 */
export function voiceSimilarities(clusters: readonly FrameStats[], prints: readonly FrameStats[], minClusterFrames: number): number[][] {
  const scores = clusters.map((c) => prints.map((p) => (c.n < minClusterFrames ? Number.NaN : voiceScore(p, c))));
  return cohortNormalisedScores(scores).map((row, i) =>
    row.map((ratio, j) => (ratio !== null ? similarityOfScore(ratio, RATIO_AT_BAR) : similarityOfScore(scores[i]![j]!))),
  );
}
