/**
 * Diarization's Viterbi resegmentation (server/pipeline/diarize.ts, step 3):
 * every block goes to the speaker whose Gaussians explain its frames best,
 * with a penalty per change of speaker, models refitted between passes.
 */
import type { Block } from './blocks.ts';
import { compactLabels, countLabels } from './labels.ts';
import { clusterStats, fitGaussian, windowLogLikelihood, type Gaussian } from './likelihood.ts';

/** Passes of Viterbi resegmentation (models refitted between passes) after each merge. */
const RESEGMENT_PASSES = 4;

/** Log-likelihood (nats) a change of speaker costs in the resegmentation, inside a region and across a pause. */
const SWITCH_PENALTY = 25;
const SWITCH_PENALTY_ACROSS_PAUSE = 10;

/**
 * Viterbi resegmentation, repeated with refitted models until the labels
 * settle: every block goes to the speaker whose Gaussians explain its
 * frames best, with a penalty for each change of speaker (a smaller one
 * across a pause), so a turn needs sustained evidence. Clusters that end up
 * with no block disappear; labels come back compact.
 */
export function resegment(blocks: readonly Block[], start: Int32Array, keepCount = false): Int32Array {
  // Blocks no window covered (−1) have no say in the first models; the Viterbi pass labels them.
  let labels = compactLabels(start, true);
  for (let pass = 0; pass < RESEGMENT_PASSES; pass++) {
    const k = countLabels(labels.filter((l) => l >= 0));
    if (k < 2) return labels.map(() => 0);
    const models = clusterStats(
      labels,
      k,
      blocks.map((b) => b.stats),
    ).map(fitGaussian);
    const next = viterbi(blocks, models);
    // A fixed count is the user's: a pass that would empty a cluster is not taken.
    if (keepCount && countLabels(next) < k) return labels.map((l, i) => (l >= 0 ? l : next[i]!));
    let changed = 0;
    for (let i = 0; i < next.length; i++) if (next[i] !== labels[i]) changed++;
    labels = compactLabels(next);
    if (changed === 0) break;
  }
  return labels;
}

function viterbi(blocks: readonly Block[], models: readonly Gaussian[]): Int32Array {
  const k = models.length;
  const n = blocks.length;
  const back = new Int32Array(n * k);
  let score = new Float64Array(k);
  let next = new Float64Array(k);
  for (let b = 0; b < n; b++) {
    const penalty = b > 0 && blocks[b]!.region === blocks[b - 1]!.region ? SWITCH_PENALTY : SWITCH_PENALTY_ACROSS_PAUSE;
    // The best predecessor for a change of speaker is the same for every state.
    let bestPrev = 0;
    for (let s = 1; s < k; s++) if (score[s]! > score[bestPrev]!) bestPrev = s;
    for (let s = 0; s < k; s++) {
      const stay = score[s]!;
      const change = score[bestPrev]! - penalty;
      const from = b === 0 || stay >= change ? s : bestPrev;
      back[b * k + s] = from;
      next[s] = (b === 0 ? 0 : Math.max(stay, change)) + windowLogLikelihood(models[s]!, blocks[b]!.stats);
    }
    [score, next] = [next, score];
  }
  const out = new Int32Array(n);
  let s = 0;
  for (let i = 1; i < k; i++) if (score[i]! > score[s]!) s = i;
  for (let b = n - 1; b >= 0; b--) {
    out[b] = s;
    s = back[b * k + s]!;
  }
  return out;
}
