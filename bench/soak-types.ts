/** The figures a soak reports (bench/soak.ts), as types: the benchmark, its report tables and charts share them. */

export interface SoakSample {
  /** Seconds since the work started. */
  t_s: number;
  phase: 'warmup' | 'main';
  rss_mb: number;
  heap_used_mb: number;
  external_mb: number;
  fds: number | null;
  eld_p50_ms: number;
  eld_p99_ms: number;
  eld_max_ms: number;
}

export interface Counts {
  reads: number;
  reads_unexpected: number;
  reads_by_status: Record<string, number>;
  /** Reads retried once after the keep-alive race (bench/traffic.ts); not errors. */
  reads_keepalive_retries: number;
  read_examples: string[];
  wait_rounds: number;
  waits: number;
  waits_right: number;
  timeout_waits: number;
  timeout_waits_right: number;
  wait_examples: string[];
  imports: number;
  imports_succeeded: number;
  imports_refused_budget: number;
  import_failures: string[];
  job_events_expected: number;
  activity_errors: string[];
}

export interface SoakFigures {
  minutes: number;
  duration_s: number;
  warmup_s: number;
  samples: SoakSample[];
  fds_quiet: { after_warmup: number | null; end: number | null };
  slopes_second_half: {
    rss_mb_per_min: number | null;
    heap_mb_per_min: number | null;
    rss_theil_sen_mb_per_min: number | null;
    heap_theil_sen_mb_per_min: number | null;
  };
  eld_ms: { p50_median: number | null; p99_max: number | null; max: number | null };
  counts: Counts;
  webhooks: { expected_events: number; received_events: number; deliveries: number; bad_signatures: number };
  logged_failures: number;
  logged_failure_examples: string[];
  unexpected_total: number;
}
