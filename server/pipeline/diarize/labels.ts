/** Cluster labels of diarization's blocks and windows (clustering.ts, resegment.ts): counted and renumbered. */

export function countLabels(labels: Int32Array): number {
  return new Set(labels).size;
}

/** Renumbers labels 0..k−1 with no gaps (a cluster can empty during refinement); with keepUnlabelled, −1 stays −1. */
export function compactLabels(labels: Int32Array, keepUnlabelled = false): Int32Array {
  const map = new Map<number, number>();
  return labels.map((l) => {
    if (keepUnlabelled && l < 0) return l;
    let v = map.get(l);
    if (v === undefined) {
      v = map.size;
      map.set(l, v);
    }
    return v;
  });
}
