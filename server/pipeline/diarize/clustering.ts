/**
 * Diarization's clustering (server/pipeline/diarize.ts, steps 2 and 3):
 * average linkage on the windows' feature vectors cut into a generous first
 * partition, then bottom-up merging of the least distinct pair by the
 * frames' likelihood (likelihood.ts), each step followed by nearest-centroid
 * passes on the windows or, after them, the Viterbi resegmentation of the
 * blocks (resegment.ts).
 */
import type { StageControl } from '../types.ts';
import { windowFeatures, type Block, type Window } from './blocks.ts';
import { addStats, emptyStats } from './features.ts';
import { compactLabels, countLabels } from './labels.ts';
import { PITCHLESS_SPLIT_MARGIN, bestPartner, clusterStats, weakestPair, weakestPitchlessPair } from './likelihood.ts';
import { resegment } from './resegment.ts';

/** A window with fewer kept frames than this says too little about a voice to be clustered. */
const MIN_WINDOW_FRAMES = 20;
/** Above this many windows, the dendrogram is built on an evenly spaced sample of them (memory and time grow as n²). */
const MAX_CLUSTER_POINTS = 1200;
/** In the dendrogram cut, a cluster with fewer windows than this is not kept. */
const MIN_SPEAKER_WINDOWS = 3;
/** Passes of nearest-centroid refinement after the dendrogram cut. */
const REFINE_PASSES = 5;

/** Clusters cut from the dendrogram before merging by likelihood (at least twice max_speakers). */
const INITIAL_CLUSTERS = 12;
/** A cluster with fewer kept frames (10 ms each) than this is not a speaker of its own: 2 s of voice. */
const MIN_SPEAKER_FRAMES = 200;
/** Nor is one whose longest uninterrupted stretch is shorter than this. */
const MIN_SPEAKER_RUN_SECONDS = 1.5;

interface ClusterOptions {
  fixed: number | null;
  min: number;
  max: number;
  /** The split score (see splitScore) two clusters need to count as two speakers. */
  splitScore: number;
  control: StageControl;
}

/**
 * A speaker label 0..k−1 for every block: windows clustered on their
 * feature vectors give a generous first partition, which is then merged,
 * pair by pair, by the likelihood of the frames, each step followed by a
 * Viterbi resegmentation of the blocks.
 */
export async function clusterBlocks(blocks: readonly Block[], windows: readonly Window[], opts: ClusterOptions): Promise<Int32Array> {
  const stats = blocks.map((b) => b.stats);
  const windowStats = windows.map((w) => {
    const st = emptyStats();
    for (let b = w.first; b < w.last; b++) addStats(st, stats[b]!);
    return st;
  });
  // Windows with too few voiced-enough frames cannot be described; their blocks are placed by the resegmentation.
  const usable = windows.map((_, i) => i).filter((i) => windowStats[i]!.n >= MIN_WINDOW_FRAMES);
  if (usable.length <= 1) return new Int32Array(blocks.length);
  const rows = windowFeatures(usable.map((i) => windowStats[i]!));
  // The dendrogram is built on at most MAX_CLUSTER_POINTS windows, evenly spread over the recording.
  const sample: number[] = [];
  if (rows.length <= MAX_CLUSTER_POINTS) for (let i = 0; i < rows.length; i++) sample.push(i);
  else for (let i = 0; i < MAX_CLUSTER_POINTS; i++) sample.push(Math.floor((i * rows.length) / MAX_CLUSTER_POINTS));
  const points = sample.map((i) => normalise(rows[i]!));
  const m = points.length;
  const merges = await averageLinkage(cosineDistances(points), m, opts.control);
  const minSize = Math.min(MIN_SPEAKER_WINDOWS, Math.max(1, Math.floor(m / 4)));
  const startK = Math.min(m, Math.max(INITIAL_CLUSTERS, 2 * opts.max, opts.fixed ?? 0));
  let windowLabels = refine(points, cutToSpeakers(merges, m, startK, minSize, points));

  // Blocks take the label their sampled windows vote for (−1: none covers them).
  const votedLabels = (wl: Int32Array): Int32Array => {
    const k = countLabels(wl);
    const votes = blocks.map(() => new Int32Array(k));
    sample.forEach((s, i) => {
      const w = windows[usable[s]!]!;
      for (let b = w.first; b < w.last; b++) votes[b]![wl[i]!]!++;
    });
    return Int32Array.from(votes, (v) => {
      let best = -1;
      let most = 0;
      v.forEach((count, l) => {
        if (count > most) {
          most = count;
          best = l;
        }
      });
      return best;
    });
  };
  const target = opts.fixed;
  /**
   * The pair of clusters to merge next, or null when every cluster is a speaker of its own.
   * `resegmented`: the labels come from the Viterbi resegmentation (see PITCHLESS_SPLIT_MARGIN).
   */
  const nextMerge = (labels: Int32Array, resegmented: boolean): [number, number] | null => {
    // Label ids may have gaps (a window cluster can win no block): work on the present ones.
    const ids = [...new Set(labels.filter((l) => l >= 0))].sort((a, b) => a - b);
    const k = ids.length;
    if (k <= Math.max(1, target ?? opts.min)) return null;
    const all = clusterStats(labels, ids[k - 1]! + 1, stats);
    const clusters = ids.map((id) => all[id]!);
    const pair = weakestPair(clusters);
    if (target !== null || k > opts.max || pair.score < opts.splitScore) return [ids[pair.a]!, ids[pair.b]!];
    if (resegmented) {
      const pitchless = weakestPitchlessPair(clusters);
      if (pitchless !== null && pitchless.score < opts.splitScore + PITCHLESS_SPLIT_MARGIN) return [ids[pitchless.a]!, ids[pitchless.b]!];
    }
    // A speaker says something of their own: a cluster with too little voice, or only fragments
    // (windows that straddled two voices, turn onsets), joins the cluster it is least distinct from.
    const runs = longestRuns(blocks, labels, ids[k - 1]! + 1);
    let weakest = -1;
    clusters.forEach((c, i) => {
      if (c.n >= MIN_SPEAKER_FRAMES && runs[ids[i]!]! >= MIN_SPEAKER_RUN_SECONDS) return;
      if (weakest < 0 || c.n < clusters[weakest]!.n) weakest = i;
    });
    if (weakest >= 0) return [ids[bestPartner(clusters, weakest)]!, ids[weakest]!];
    return null;
  };

  // Bottom-up on the windows: the least distinct pair (by their frames) merges, then the
  // nearest-centroid passes settle the windows, until every pair is told apart.
  for (;;) {
    await opts.control.checkpoint();
    const merge = nextMerge(votedLabels(windowLabels), false);
    if (merge === null) break;
    const [into, from] = merge;
    windowLabels = refine(
      points,
      windowLabels.map((l) => (l === from ? into : l)),
    );
  }
  // Then block by block: the resegmentation, and the same test on its result (a cluster of
  // windows that straddled two voices dissolves into them and is too small to stay).
  const keepCount = target !== null;
  let labels = resegment(blocks, votedLabels(windowLabels), keepCount);
  for (;;) {
    await opts.control.checkpoint();
    const merge = nextMerge(labels, true);
    if (merge === null) break;
    const [into, from] = merge;
    labels = resegment(
      blocks,
      labels.map((l) => (l === from ? into : l)),
      keepCount,
    );
  }
  return labels;
}

/**
 * The pair of speakers in `labels` (the blocks' labels as the turns give
 * them, short turns absorbed) that the likelihood test of the clustering
 * would merge, as [into, from], or null when every pair passes it: a split
 * score under the bar, or under the bar plus PITCHLESS_SPLIT_MARGIN when
 * pitch gives no sign of two voices. Labels −1 (no turn) are left out.
 */
export function indistinctPair(blocks: readonly Block[], labels: Int32Array, splitScore: number): [number, number] | null {
  const ids = [...new Set(labels.filter((l) => l >= 0))].sort((a, b) => a - b);
  if (ids.length < 2) return null;
  const all = clusterStats(
    labels,
    ids[ids.length - 1]! + 1,
    blocks.map((b) => b.stats),
  );
  const clusters = ids.map((id) => all[id]!);
  const pair = weakestPair(clusters);
  if (pair.score < splitScore) return [ids[pair.a]!, ids[pair.b]!];
  const pitchless = weakestPitchlessPair(clusters);
  if (pitchless !== null && pitchless.score < splitScore + PITCHLESS_SPLIT_MARGIN) return [ids[pitchless.a]!, ids[pitchless.b]!];
  return null;
}

/**
 * A speaker in `labels` (as indistinctPair reads them) that is two others at
 * once, as [into, from], or null: one whose frames a single Gaussian of two
 * other speakers' frames pooled explains as well as two Gaussians would (the
 * split score against the pair's pooled statistics under the bar). Two
 * voices mixed sit between the two voices, inside what their pooled Gaussian
 * covers; a third person's voice does not. Overlapped speech long enough to
 * pass a speaker's other tests (decision 156: an interruption of 3.8 s)
 * otherwise leaves as a speaker of its own. It joins the one of the two it is
 * least distinct from. Needs three speakers.
 */
export function mixedSpeaker(blocks: readonly Block[], labels: Int32Array, splitScore: number): [number, number] | null {
  const ids = [...new Set(labels.filter((l) => l >= 0))].sort((a, b) => a - b);
  if (ids.length < 3) return null;
  const all = clusterStats(
    labels,
    ids[ids.length - 1]! + 1,
    blocks.map((b) => b.stats),
  );
  let best: { score: number; from: number; into: number } | null = null;
  for (const c of ids) {
    for (const a of ids) {
      for (const b of ids) {
        if (a === c || b === c || b <= a) continue;
        const pooled = emptyStats();
        addStats(pooled, all[a]!);
        addStats(pooled, all[b]!);
        const score = weakestPair([all[c]!, pooled]).score;
        if (score >= splitScore || (best !== null && score >= best.score)) continue;
        const into = weakestPair([all[c]!, all[a]!]).score <= weakestPair([all[c]!, all[b]!]).score ? a : b;
        best = { score, from: c, into };
      }
    }
  }
  return best === null ? null : [best.into, best.from];
}

/** Nearest-centroid passes (k-means on unit vectors) until nothing moves; labels come back compact. */
function refine(points: readonly Float64Array[], start: Int32Array): Int32Array {
  let labels = compactLabels(start);
  for (let pass = 0; pass < REFINE_PASSES; pass++) {
    const k = countLabels(labels);
    if (k < 2) break;
    const centroids = centroidsOf(points, labels, k);
    let changed = 0;
    const next = new Int32Array(labels.length);
    for (let i = 0; i < points.length; i++) {
      next[i] = nearest(points[i]!, centroids);
      if (next[i] !== labels[i]) changed++;
    }
    labels = compactLabels(next);
    if (changed === 0) break;
  }
  return labels;
}

/** For each label, the longest stretch of consecutive blocks of one region that carry it, in seconds. */
function longestRuns(blocks: readonly Block[], labels: Int32Array, k: number): Float64Array {
  const longest = new Float64Array(k);
  let run = 0;
  labels.forEach((l, i) => {
    const b = blocks[i]!;
    const continues = i > 0 && labels[i - 1] === l && blocks[i - 1]!.region === b.region;
    run = (continues ? run : 0) + b.end - b.start;
    if (l >= 0) longest[l] = Math.max(longest[l]!, run);
  });
  return longest;
}

function normalise(v: Float64Array): Float64Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return norm > 0 ? v.map((x) => x / norm) : v.slice();
}

function dot(a: Float64Array, b: Float64Array): number {
  let acc = 0;
  for (let i = 0; i < a.length; i++) acc += a[i]! * b[i]!;
  return acc;
}

/** Pairwise cosine distances of unit vectors, as a full m×m matrix. */
function cosineDistances(points: readonly Float64Array[]): Float64Array {
  const m = points.length;
  const d = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      const v = 1 - dot(points[i]!, points[j]!);
      d[i * m + j] = v;
      d[j * m + i] = v;
    }
  }
  return d;
}

interface Merge {
  a: number;
  b: number;
  distance: number;
}

/**
 * Average-linkage agglomerative clustering by the nearest-neighbour chain
 * algorithm: O(m²) time on an m×m distance matrix (a copy is updated with
 * the Lance–Williams rule). Returns the m−1 merges sorted by distance, as
 * pairs of original point indices that represent the two joined clusters.
 */
async function averageLinkage(distances: Float64Array, m: number, control: StageControl): Promise<Merge[]> {
  const d = distances.slice();
  const size = new Int32Array(m).fill(1);
  const active = new Uint8Array(m).fill(1);
  const merges: Merge[] = [];
  const chain: number[] = [];
  let remaining = m;
  while (remaining > 1) {
    if (merges.length % 100 === 0) await control.checkpoint();
    if (chain.length === 0) {
      let start = 0;
      while (!active[start]) start++;
      chain.push(start);
    }
    const a = chain[chain.length - 1]!;
    const prev = chain.length >= 2 ? chain[chain.length - 2]! : -1;
    let b = -1;
    let best = Infinity;
    for (let j = 0; j < m; j++) {
      if (j === a || !active[j]) continue;
      const v = d[a * m + j]!;
      // Ties go to the previous link, so the chain cannot cycle.
      if (v < best || (v === best && j === prev)) {
        best = v;
        b = j;
      }
    }
    if (b === prev) {
      chain.pop();
      chain.pop();
      merges.push({ a, b, distance: best });
      // The merged cluster lives on at index a.
      const sa = size[a]!;
      const sb = size[b]!;
      for (let j = 0; j < m; j++) {
        if (!active[j] || j === a || j === b) continue;
        const v = (sa * d[a * m + j]! + sb * d[b * m + j]!) / (sa + sb);
        d[a * m + j] = v;
        d[j * m + a] = v;
      }
      size[a] = sa + sb;
      active[b] = 0;
      remaining--;
    } else {
      chain.push(b);
    }
  }
  return merges.sort((x, y) => x.distance - y.distance);
}

/**
 * Cuts the dendrogram so that it holds `speakers` clusters of at least
 * minSize points (or as many as it can), and moves the points of smaller
 * clusters to the nearest of those. Labels are 0..k−1.
 */
function cutToSpeakers(
  merges: readonly Merge[],
  m: number,
  speakers: number,
  minSize: number,
  points: readonly Float64Array[],
): Int32Array {
  let best: { raw: Int32Array; big: number } | null = null;
  // Fewer clusters than `speakers` can never hold that many big ones; past it, small ones are split off first.
  for (let clusters = speakers; clusters <= m; clusters++) {
    const raw = replay(merges, m, m - clusters);
    const sizes = new Map<number, number>();
    for (const r of raw) sizes.set(r, (sizes.get(r) ?? 0) + 1);
    const big = [...sizes.values()].filter((s) => s >= minSize).length;
    if (best === null || big > best.big) best = { raw, big };
    if (big >= speakers) break;
    if (clusters - speakers > 60) break; // the data will not give that many; keep the best seen
  }
  const raw = best!.raw;
  const sizes = new Map<number, number>();
  for (const r of raw) sizes.set(r, (sizes.get(r) ?? 0) + 1);
  const bigRoots = [...sizes.entries()].filter(([, s]) => s >= minSize).map(([root]) => root);
  if (bigRoots.length === 0) return new Int32Array(m);
  const labelOf = new Map(bigRoots.map((root, i) => [root, i]));
  const labels = new Int32Array(m).fill(-1);
  for (let i = 0; i < m; i++) labels[i] = labelOf.get(raw[i]!) ?? -1;
  const centroids = centroidsOf(
    points.filter((_, i) => labels[i]! >= 0),
    labels.filter((l) => l >= 0),
    bigRoots.length,
  );
  for (let i = 0; i < m; i++) if (labels[i]! < 0) labels[i] = nearest(points[i]!, centroids);
  return labels;
}

/** Cluster roots after the first `count` merges (union–find). */
function replay(merges: readonly Merge[], m: number, count: number): Int32Array {
  const parent = new Int32Array(m);
  for (let i = 0; i < m; i++) parent[i] = i;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  for (let i = 0; i < count; i++) {
    const { a, b } = merges[i]!;
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[rb] = ra;
  }
  const roots = new Int32Array(m);
  for (let i = 0; i < m; i++) roots[i] = find(i);
  return roots;
}

function centroidsOf(points: readonly Float64Array[], labels: ArrayLike<number>, k: number): Float64Array[] {
  const dims = points[0]?.length ?? 0;
  const sums = Array.from({ length: k }, () => new Float64Array(dims));
  for (let i = 0; i < points.length; i++) {
    const s = sums[labels[i]!]!;
    const p = points[i]!;
    for (let d = 0; d < dims; d++) s[d]! += p[d]!;
  }
  return sums.map(normalise);
}

function nearest(p: Float64Array, centroids: readonly Float64Array[]): number {
  let best = 0;
  let bestSim = -Infinity;
  centroids.forEach((c, i) => {
    const sim = dot(p, c);
    if (sim > bestSim) {
      bestSim = sim;
      best = i;
    }
  });
  return best;
}
