/**
 * Diarization's likelihood test (server/pipeline/diarize.ts, step 3): the
 * split score of two clusters (the per-frame BIC likelihood ratio of two
 * Gaussians against one, on the cepstra and on log-F0) and the Gaussians the
 * resegmentation scores blocks with. Decisions 034 and 092.
 */
import { CEPSTRA, addStats, emptyStats, type FrameStats } from './features.ts';

/** Added to covariance diagonals (cepstra are O(1)–O(10)), so a small cluster's covariance stays invertible. */
const COVARIANCE_RIDGE = 1e-3;

/**
 * How much the pitch half of the split score counts. One voice's pitch is far from one
 * Gaussian (it falls along every sentence), so a full-weight pitch ratio splits a voice
 * into sentence starts and sentence ends.
 */
const PITCH_SPLIT_WEIGHT = 0.5;
/** Fewer voiced frames than this in a cluster and its pitch is not compared. */
const MIN_PITCH_FRAMES = 20;
/**
 * After the resegmentation, a pair whose pitch gives no sign of two voices
 * needs this much more than the bar to stay two. The Viterbi pass chose the
 * partition that its own two models explain best, so the cepstral ratio of
 * its result is inflated: one voice cut by what is being said (the same
 * pitch on both sides, cepstral part about 0.5) scored 0.40–0.50 on
 * six-voice Flite meetings, above the bar 0.40, while different people
 * without a pitch difference scored 0.61 and more (decision 092).
 */
export const PITCHLESS_SPLIT_MARGIN = 0.15;

/** Each cluster's summed frame statistics. */
export function clusterStats(labels: Int32Array, k: number, stats: readonly FrameStats[]): FrameStats[] {
  const clusters = Array.from({ length: k }, emptyStats);
  labels.forEach((l, i) => {
    if (l >= 0) addStats(clusters[l]!, stats[i]!);
  });
  return clusters;
}

/**
 * How well two clusters are told apart: the generalised likelihood ratio
 * per frame of "two Gaussians" against "one Gaussian",
 *   ½·(log|Σ_ab| − (n_a/n)·log|Σ_a| − (n_b/n)·log|Σ_b|),
 * less the BIC penalty for the second Gaussian's parameters, on the frame
 * cepstra, plus the same on the voiced frames' log-F0. About 0 (or below)
 * when one voice explains both, growing as the voices differ. Unlike a
 * distance between window features standardised over the recording, it does
 * not depend on how many voices the recording holds, and no linear rescaling
 * of the features changes it.
 */
function splitScore(A: FrameStats, B: FrameStats): number {
  const { cepstra, pitch } = splitEvidence(A, B);
  return cepstra + (pitch === null ? 0 : PITCH_SPLIT_WEIGHT * pitch);
}

/**
 * The two halves of the split score, unweighted: the cepstral ratio and the
 * log-F0 ratio (null when either cluster has too few voiced frames to compare).
 */
export function splitEvidence(A: FrameStats, B: FrameStats): { cepstra: number; pitch: number | null } {
  const both = emptyStats();
  addStats(both, A);
  addStats(both, B);
  const params = CEPSTRA + (CEPSTRA * (CEPSTRA + 1)) / 2;
  const cepstra =
    0.5 * (logDetCovariance(both) - (A.n / both.n) * logDetCovariance(A) - (B.n / both.n) * logDetCovariance(B)) -
    (0.5 * params * Math.log(Math.max(2, both.n))) / Math.max(1, both.n);
  if (A.pn < MIN_PITCH_FRAMES || B.pn < MIN_PITCH_FRAMES) return { cepstra, pitch: null };
  const pitch =
    0.5 * (Math.log(pitchVariance(both)) - (A.pn / both.pn) * Math.log(pitchVariance(A)) - (B.pn / both.pn) * Math.log(pitchVariance(B))) -
    Math.log(both.pn) / both.pn;
  return { cepstra, pitch };
}

function pitchVariance(x: FrameStats): number {
  return x.pn > 0 ? Math.max(1e-4, x.psq / x.pn - (x.psum / x.pn) ** 2) : 1;
}

/** The least distinct pair of clusters and its split score. */
export function weakestPair(clusters: readonly FrameStats[]): { a: number; b: number; score: number } {
  let best = { a: 0, b: 1, score: Infinity };
  for (let a = 0; a < clusters.length; a++) {
    for (let b = a + 1; b < clusters.length; b++) {
      const score = splitScore(clusters[a]!, clusters[b]!);
      if (score < best.score) best = { a, b, score };
    }
  }
  return best;
}

/**
 * The least distinct pair among those whose pitch gives no sign of two voices
 * (its ratio, penalty included, is at most 0, or there is too little voiced
 * speech to compare), or null when there is none.
 */
export function weakestPitchlessPair(clusters: readonly FrameStats[]): { a: number; b: number; score: number } | null {
  let best: { a: number; b: number; score: number } | null = null;
  for (let a = 0; a < clusters.length; a++) {
    for (let b = a + 1; b < clusters.length; b++) {
      const { cepstra, pitch } = splitEvidence(clusters[a]!, clusters[b]!);
      if (pitch !== null && pitch > 0) continue;
      const score = cepstra + (pitch === null ? 0 : PITCH_SPLIT_WEIGHT * pitch);
      if (best === null || score < best.score) best = { a, b, score };
    }
  }
  return best;
}

/** The cluster that `of` is least distinct from. */
export function bestPartner(clusters: readonly FrameStats[], of: number): number {
  let best = -1;
  let bestScore = Infinity;
  clusters.forEach((c, i) => {
    if (i === of) return;
    const score = splitScore(clusters[of]!, c);
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}

/** A full-covariance Gaussian on the cepstra and a 1-D one on voiced log-F0, from frame statistics. */
export interface Gaussian {
  mean: Float64Array;
  /** Inverse covariance, row-major. */
  precision: Float64Array;
  logDet: number;
  pitchMean: number;
  pitchVar: number;
}

export function fitGaussian(s: FrameStats): Gaussian {
  const d = CEPSTRA;
  const n = Math.max(1, s.n);
  const mean = s.sum.map((v) => v / n);
  const c = new Float64Array(d * d);
  for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) c[i * d + j] = s.outer[i * d + j]! / n - mean[i]! * mean[j]!;
  for (let i = 0; i < d; i++) c[i * d + i]! += COVARIANCE_RIDGE;
  // Gauss–Jordan inverse (12×12, symmetric positive definite after the ridge).
  const a = c.slice();
  const inv = new Float64Array(d * d);
  for (let i = 0; i < d; i++) inv[i * d + i] = 1;
  let logDet = 0;
  for (let col = 0; col < d; col++) {
    let pivot = col;
    for (let r = col + 1; r < d; r++) if (Math.abs(a[r * d + col]!) > Math.abs(a[pivot * d + col]!)) pivot = r;
    if (pivot !== col) {
      for (let j = 0; j < d; j++) {
        [a[col * d + j], a[pivot * d + j]] = [a[pivot * d + j]!, a[col * d + j]!];
        [inv[col * d + j], inv[pivot * d + j]] = [inv[pivot * d + j]!, inv[col * d + j]!];
      }
    }
    const p = a[col * d + col]!;
    logDet += Math.log(Math.abs(p));
    for (let j = 0; j < d; j++) {
      a[col * d + j]! /= p;
      inv[col * d + j]! /= p;
    }
    for (let r = 0; r < d; r++) {
      if (r === col) continue;
      const f = a[r * d + col]!;
      if (f === 0) continue;
      for (let j = 0; j < d; j++) {
        a[r * d + j]! -= f * a[col * d + j]!;
        inv[r * d + j]! -= f * inv[col * d + j]!;
      }
    }
  }
  const pitchMean = s.pn > 0 ? s.psum / s.pn : 0;
  return { mean, precision: inv, logDet, pitchMean, pitchVar: s.pn >= MIN_PITCH_FRAMES ? pitchVariance(s) : 1 };
}

/**
 * Log-likelihood of a window's frames under a cluster's Gaussians, from the
 * window's sufficient statistics (constants dropped: only comparisons matter).
 */
export function windowLogLikelihood(g: Gaussian, w: FrameStats): number {
  const d = CEPSTRA;
  if (w.n === 0) return 0;
  // Σ_f (x_f − μ)ᵀ P (x_f − μ) = tr(P·S) − 2·μᵀP·sum + n·μᵀPμ, with S the sum of outer products.
  let trace = 0;
  let cross = 0;
  let quad = 0;
  for (let i = 0; i < d; i++) {
    let pm = 0;
    let ps = 0;
    for (let j = 0; j < d; j++) {
      const p = g.precision[i * d + j]!;
      trace += p * w.outer[j * d + i]!;
      pm += p * g.mean[j]!;
      ps += p * w.sum[j]!;
    }
    cross += g.mean[i]! * ps;
    quad += g.mean[i]! * pm;
  }
  let ll = -0.5 * (w.n * g.logDet + trace - 2 * cross + w.n * quad);
  if (w.pn > 0) {
    const sq = w.psq - 2 * g.pitchMean * w.psum + w.pn * g.pitchMean ** 2;
    ll += -0.5 * (w.pn * Math.log(g.pitchVar) + sq / g.pitchVar);
  }
  return ll;
}

/** log-determinant of the covariance the statistics describe (Cholesky; a small ridge keeps it defined). */
function logDetCovariance(s: FrameStats): number {
  const d = s.sum.length;
  const n = Math.max(1, s.n);
  const c = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) c[i * d + j] = s.outer[i * d + j]! / n - (s.sum[i]! / n) * (s.sum[j]! / n);
  }
  for (let i = 0; i < d; i++) c[i * d + i]! += COVARIANCE_RIDGE;
  let logDet = 0;
  for (let j = 0; j < d; j++) {
    let diag = c[j * d + j]!;
    for (let k = 0; k < j; k++) diag -= c[j * d + k]! ** 2;
    if (diag <= 0) return -Infinity;
    const l = Math.sqrt(diag);
    c[j * d + j] = l;
    logDet += 2 * Math.log(l);
    for (let i = j + 1; i < d; i++) {
      let v = c[i * d + j]!;
      for (let k = 0; k < j; k++) v -= c[i * d + k]! * c[j * d + k]!;
      c[i * d + j] = v / l;
    }
  }
  return logDet;
}
