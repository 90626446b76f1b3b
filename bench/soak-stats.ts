/** Slopes of the soak's samples: least squares and Theil–Sen, and the limits a run is held to. */
import { round } from './lib.ts';
import type { SoakConfig } from './soak-config.ts';

/** Least-squares slope of y over x; null for fewer than 3 points. */
export function slope(points: readonly (readonly [number, number])[]): number | null {
  if (points.length < 3) return null;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? null : num / den;
}

/** Theil–Sen slope (the median of pairwise slopes): one GC outlier cannot tilt it. */
export function theilSen(points: readonly (readonly [number, number])[]): number | null {
  if (points.length < 3) return null;
  const s: number[] = [];
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++) {
      const dx = points[j]![0] - points[i]![0];
      if (dx !== 0) s.push((points[j]![1] - points[i]![1]) / dx);
    }
  if (s.length === 0) return null;
  s.sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The slope limits (MiB/min) of a run: the trend threshold plus the one-step allowance spread over the second half. */
export function slopeLimits(cfg: SoakConfig): { rss: number; heap: number } {
  const halfMin = cfg.minutes / 2;
  return {
    rss: round(cfg.max_rss_slope_mb_per_min + cfg.rss_step_allowance_mb / halfMin, 2),
    heap: round(cfg.max_heap_slope_mb_per_min + cfg.heap_step_allowance_mb / halfMin, 2),
  };
}
