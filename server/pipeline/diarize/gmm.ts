/**
 * A small diagonal-covariance Gaussian mixture on frame cepstra, fitted by
 * EM: the models of one voice and of two voices at once that the mixture
 * detector of overlapped speech compares (diarize/mixture.ts, decision 179).
 * One Gaussian describes a voice's frames on average; several describe its
 * different sounds, so a block of one voice saying something unusual is not
 * taken for a mixture just because a broader model covers it.
 */

/** A mixture of Gaussians with diagonal covariances. */
export interface Gmm {
  weights: Float64Array;
  means: Float64Array[];
  /** Inverse variances. */
  precisions: Float64Array[];
  /** log weight − ½·Σ log(2π·variance), per component. */
  logConst: Float64Array;
}

/** Components of a model; fewer when there are under FRAMES_PER_COMPONENT frames each. */
const GMM_COMPONENTS = 8;
const FRAMES_PER_COMPONENT = 50;
const EM_ITERATIONS = 12;
/** Variances are kept at least this share of the frames' overall variance, so a component cannot shrink onto a few frames. */
const VARIANCE_FLOOR = 0.01;

/**
 * EM from a fixed start (the means on frames at evenly spaced quantiles of
 * the dimension that varies most, the variances the overall ones), so a run
 * gives the same model.
 */
export function fitGmm(frames: readonly Float64Array[], components = GMM_COMPONENTS): Gmm {
  const n = frames.length;
  const d = frames[0]?.length ?? 0;
  const k = Math.max(1, Math.min(components, Math.floor(n / FRAMES_PER_COMPONENT)));
  const mean = new Float64Array(d);
  const variance = new Float64Array(d);
  for (const x of frames) for (let i = 0; i < d; i++) mean[i]! += x[i]! / n;
  for (const x of frames) for (let i = 0; i < d; i++) variance[i]! += (x[i]! - mean[i]!) ** 2 / n;
  const floor = variance.map((v) => Math.max(1e-6, VARIANCE_FLOOR * v));
  const widest = variance.indexOf(Math.max(...variance));
  const order = frames.map((_, i) => i).sort((a, b) => frames[a]![widest]! - frames[b]![widest]! || a - b);
  const g: Gmm = {
    weights: new Float64Array(k).fill(1 / k),
    means: Array.from({ length: k }, (_, c) => Float64Array.from(frames[order[Math.floor(((c + 0.5) * n) / k)]!]!)),
    precisions: Array.from({ length: k }, () => variance.map((v) => 1 / Math.max(v, 1e-6))),
    logConst: new Float64Array(k),
  };
  updateConstants(g);
  const resp = new Float64Array(k);
  for (let iter = 0; iter < EM_ITERATIONS; iter++) {
    const w = new Float64Array(k);
    const s1 = Array.from({ length: k }, () => new Float64Array(d));
    const s2 = Array.from({ length: k }, () => new Float64Array(d));
    for (const x of frames) {
      posteriors(g, x, resp);
      for (let c = 0; c < k; c++) {
        const r = resp[c]!;
        if (r < 1e-8) continue;
        w[c]! += r;
        for (let i = 0; i < d; i++) {
          s1[c]![i]! += r * x[i]!;
          s2[c]![i]! += r * x[i]! * x[i]!;
        }
      }
    }
    for (let c = 0; c < k; c++) {
      if (w[c]! < 1e-6) continue; // an empty component keeps its last parameters
      g.weights[c] = w[c]! / n;
      for (let i = 0; i < d; i++) {
        const m = s1[c]![i]! / w[c]!;
        g.means[c]![i] = m;
        g.precisions[c]![i] = 1 / Math.max(floor[i]!, s2[c]![i]! / w[c]! - m * m);
      }
    }
    updateConstants(g);
  }
  return g;
}

/** The mean log-likelihood per frame of `frames` under the model. */
export function gmmLogLikelihood(g: Gmm, frames: readonly Float64Array[]): number {
  if (frames.length === 0) return 0;
  let total = 0;
  for (const x of frames) total += frameLogLikelihood(g, x);
  return total / frames.length;
}

function componentLog(g: Gmm, c: number, x: Float64Array): number {
  const m = g.means[c]!;
  const p = g.precisions[c]!;
  let q = 0;
  for (let i = 0; i < x.length; i++) q += (x[i]! - m[i]!) ** 2 * p[i]!;
  return g.logConst[c]! - 0.5 * q;
}

function frameLogLikelihood(g: Gmm, x: Float64Array): number {
  let max = -Infinity;
  const logs = g.means.map((_, c) => componentLog(g, c, x));
  for (const l of logs) max = Math.max(max, l);
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - max);
  return max + Math.log(sum);
}

function posteriors(g: Gmm, x: Float64Array, out: Float64Array): void {
  let max = -Infinity;
  for (let c = 0; c < out.length; c++) {
    out[c] = componentLog(g, c, x);
    max = Math.max(max, out[c]!);
  }
  let sum = 0;
  for (let c = 0; c < out.length; c++) {
    out[c] = Math.exp(out[c]! - max);
    sum += out[c]!;
  }
  for (let c = 0; c < out.length; c++) out[c]! /= sum;
}

function updateConstants(g: Gmm): void {
  g.means.forEach((_, c) => {
    let logDet = 0;
    for (const p of g.precisions[c]!) logDet -= Math.log(p);
    g.logConst[c] = Math.log(Math.max(1e-12, g.weights[c]!)) - 0.5 * (logDet + g.precisions[c]!.length * Math.log(2 * Math.PI));
  });
}
