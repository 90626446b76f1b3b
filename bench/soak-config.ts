/** The soak's sizes, rates and thresholds of "flat" (bench/soak.ts). */

export interface SoakConfig {
  minutes: number;
  /** The warm-up: this share of the run, at least warmup_min_s. */
  warmup_fraction: number;
  warmup_min_s: number;
  sample_every_s: number;
  meetings: number;
  segments_per_meeting: number;
  read_connections: number;
  read_rate_per_s: number;
  waits_every_s: number;
  waits: number;
  wait_jobs: number;
  timeout_waits: number;
  import_every_s: number;
  /**
   * Thresholds of "flat": the slope limit over the second half is
   * max_*_slope_mb_per_min + *_step_allowance_mb / (minutes in the second
   * half). A trend (a leak) grows with time and fails a long soak; a single
   * step (the allocator taking another arena, a cache filling once) is
   * allowed for, which matters in a 2-minute run where one 4 MiB step alone
   * reads as 4 MiB/min.
   */
  max_rss_slope_mb_per_min: number;
  rss_step_allowance_mb: number;
  max_heap_slope_mb_per_min: number;
  heap_step_allowance_mb: number;
  /** Descriptors at the end (quiet) over those after the warm-up (quiet). */
  fd_slack: number;
  gateway_args: string[];
}

export function soakConfig(minutes: number): SoakConfig {
  return {
    minutes,
    warmup_fraction: 0.2,
    warmup_min_s: Math.min(30, minutes * 60 * 0.25),
    sample_every_s: minutes >= 10 ? 5 : minutes >= 1 ? 2 : 1,
    meetings: 200,
    segments_per_meeting: 30,
    read_connections: 8,
    read_rate_per_s: 150,
    waits_every_s: 5,
    waits: 200,
    wait_jobs: 4,
    timeout_waits: 10,
    import_every_s: minutes >= 1 ? 20 : 5,
    max_rss_slope_mb_per_min: 2,
    rss_step_allowance_mb: 8,
    max_heap_slope_mb_per_min: 0.5,
    heap_step_allowance_mb: 2,
    fd_slack: 5,
    gateway_args: [],
  };
}

export const FULL = soakConfig(2.5);
export const TINY = soakConfig(0.4);
