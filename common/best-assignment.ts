/**
 * The one-to-one pairing of rows with columns that maximizes the summed
 * weight (the assignment problem), by the Hungarian algorithm in O(n³).
 * The scorers use it to map a system's anonymous clusters to the truth's
 * speakers in the way most favourable to the system; speaker identification
 * (server/pipeline/identify-speakers.ts) to give enrolled people's names to
 * a meeting's clusters, one name per cluster.
 */

/**
 * `weights[r][c]` is the gain of pairing row r with column c (rows may
 * differ in number from columns). Returns, for each row, its column or -1
 * when there are more rows than columns and the row is left out.
 */
export function bestAssignment(weights: readonly (readonly number[])[]): number[] {
  const rows = weights.length;
  const cols = rows === 0 ? 0 : Math.max(...weights.map((r) => r.length));
  if (rows === 0 || cols === 0) return new Array<number>(rows).fill(-1);
  const n = Math.max(rows, cols);
  let max = 0;
  for (const row of weights) for (const w of row) max = Math.max(max, w);
  // Square cost matrix, 1-based as in the classic formulation; padding costs
  // `max` (gain 0), so dummy pairs never beat real ones.
  const cost = (r: number, c: number): number => max - (weights[r - 1]?.[c - 1] ?? 0);

  const u = new Array<number>(n + 1).fill(0);
  const v = new Array<number>(n + 1).fill(0);
  const p = new Array<number>(n + 1).fill(0); // p[c]: row matched to column c
  const way = new Array<number>(n + 1).fill(0);
  for (let r = 1; r <= n; r++) {
    p[0] = r;
    let c0 = 0;
    const minv = new Array<number>(n + 1).fill(Infinity);
    const used = new Array<boolean>(n + 1).fill(false);
    do {
      used[c0] = true;
      const r0 = p[c0]!;
      let delta = Infinity;
      let c1 = 0;
      for (let c = 1; c <= n; c++) {
        if (used[c]) continue;
        const reduced = cost(r0, c) - u[r0]! - v[c]!;
        if (reduced < minv[c]!) {
          minv[c] = reduced;
          way[c] = c0;
        }
        if (minv[c]! < delta) {
          delta = minv[c]!;
          c1 = c;
        }
      }
      for (let c = 0; c <= n; c++) {
        if (used[c]) {
          u[p[c]!]! += delta;
          v[c]! -= delta;
        } else {
          minv[c]! -= delta;
        }
      }
      c0 = c1;
    } while (p[c0] !== 0);
    do {
      const c1 = way[c0]!;
      p[c0] = p[c1]!;
      c0 = c1;
    } while (c0 !== 0);
  }
  const result = new Array<number>(rows).fill(-1);
  for (let c = 1; c <= n; c++) {
    const r = p[c]!;
    if (r >= 1 && r <= rows && c <= cols) result[r - 1] = c - 1;
  }
  return result;
}
