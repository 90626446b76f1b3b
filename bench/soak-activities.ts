/**
 * The soak's work (bench/soak.ts): the reads, the rounds of waits, the
 * imports and the sampling it runs side by side in each phase, counting
 * what they see into one SoakRun. The soak itself sets the gateway up,
 * runs the phases and turns the counts into figures.
 */
import { httpCall, type GatewayChild } from './gateway-child.ts';
import type { SoakConfig } from './soak-config.ts';
import type { ProbeSample } from './probe.ts';
import { round } from './lib.ts';
import { waitRound, wrongness } from './sse-waits.ts';
import type { Counts, SoakSample } from './soak-types.ts';
import { drive, mixOp, openWait, type DriveResult, type Store } from './traffic.ts';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** What one soak run shares between its activities. */
export interface SoakRun {
  g: GatewayChild;
  cfg: SoakConfig;
  store: Store;
  mediaBytes: Uint8Array;
  counts: Counts;
  samples: SoakSample[];
  /** When the work started (Date.now()); samples are timed from it. */
  started: number;
  log: (line: string) => void;
}

export function emptyCounts(): Counts {
  return {
    reads: 0,
    reads_unexpected: 0,
    reads_by_status: {},
    reads_keepalive_retries: 0,
    read_examples: [],
    wait_rounds: 0,
    waits: 0,
    waits_right: 0,
    timeout_waits: 0,
    timeout_waits_right: 0,
    wait_examples: [],
    imports: 0,
    imports_succeeded: 0,
    imports_refused_budget: 0,
    import_failures: [],
    job_events_expected: 0,
    activity_errors: [],
  };
}

function failed(run: SoakRun, what: string, err: unknown): void {
  const line = `${what}: ${err instanceof Error ? err.message : String(err)}`;
  const errors = run.counts.activity_errors;
  if (errors.length < 20) errors.push(line);
  else errors[19] = `… and more (last: ${line})`;
  run.log(`soak: ${line}`);
}

async function reads(run: SoakRun, ms: number): Promise<void> {
  const { counts } = run;
  const r: DriveResult = await drive({
    port: run.g.apiPort,
    token: run.store.token,
    connections: run.cfg.read_connections,
    warmupMs: 0,
    durationMs: ms,
    next: (rand) => mixOp(run.store, rand),
    ratePerS: run.cfg.read_rate_per_s,
    requestTimeoutMs: 60_000,
    seed: Math.floor(ms),
  });
  counts.reads += r.requests;
  counts.reads_unexpected += r.unexpected;
  counts.reads_keepalive_retries += r.keepalive_retries;
  for (const [k, v] of Object.entries(r.by_status)) counts.reads_by_status[k] = (counts.reads_by_status[k] ?? 0) + v;
  for (const e of r.unexpected_examples) if (counts.read_examples.length < 10) counts.read_examples.push(`${e.op} → ${e.status} ${e.body}`);
}

/** Runs `action` every `periodS` seconds until `until`; a failure is counted and the next round runs. */
async function every(run: SoakRun, periodS: number, until: number, what: string, action: () => Promise<void>): Promise<void> {
  while (Date.now() < until) {
    const t = Date.now();
    try {
      await action();
    } catch (err) {
      failed(run, what, err);
    }
    await sleep(Math.min(until - Date.now(), periodS * 1000 - (Date.now() - t)));
  }
}

async function waitsOnce(run: SoakRun): Promise<void> {
  const { g, cfg, counts } = run;
  const token = run.store.token;
  // Waits that time out first, on a held job of their own (opened before the round so they overlap it).
  const { id: slow } = await g.control<{ id: string }>('POST', '/control/jobs', { kind: 'diarization', state: 'running', hold: true });
  const timeouts = Array.from({ length: cfg.timeout_waits }, () => openWait(g.apiPort, `/v1/jobs/${slow}/wait?timeout=1`, token));
  const r = await waitRound(g, token, { waits: cfg.waits, jobs: cfg.wait_jobs, open_concurrency: 50, phase_timeout_ms: 60_000 });
  counts.job_events_expected += cfg.wait_jobs;
  counts.wait_rounds += 1;
  for (const o of r.outcomes) {
    counts.waits += 1;
    const why = wrongness(o);
    if (why === null) counts.waits_right += 1;
    else if (counts.wait_examples.length < 10) counts.wait_examples.push(why);
  }
  for (const t of await Promise.all(timeouts.map((w) => w.done))) {
    counts.timeout_waits += 1;
    if (t.status === 200 && t.event === 'timeout') counts.timeout_waits_right += 1;
    else if (counts.wait_examples.length < 10)
      counts.wait_examples.push(
        `timeout wait: status ${t.status}, event ${t.event ?? 'none'}${t.error !== undefined ? `, ${t.error}` : ''}`,
      );
  }
  await g.control('POST', `/control/jobs/${slow}/finish`, { outcome: 'succeeded' });
  counts.job_events_expected += 1;
}

async function importOnce(run: SoakRun): Promise<void> {
  const { g, counts } = run;
  counts.imports += 1;
  const res = await httpCall({
    port: g.apiPort,
    method: 'POST',
    path: `/v1/jobs/import?filename=soak.m4a&title=${encodeURIComponent(`Soak ${counts.imports}`)}`,
    token: run.store.token,
    bytes: run.mediaBytes,
    timeoutMs: 60_000,
  });
  if (res.status === 429) {
    counts.imports_refused_budget += 1;
    return;
  }
  if (res.status !== 202) {
    counts.import_failures.push(`POST /v1/jobs/import → ${res.status || res.error} ${res.text.slice(0, 200)}`);
    return;
  }
  const jobId = (JSON.parse(res.text) as { job_id: string }).job_id;
  const w = await openWait(g.apiPort, `/v1/jobs/${jobId}/wait?timeout=300`, run.store.token).done;
  counts.job_events_expected += 1;
  if (w.status === 200 && w.event === 'job.completed') counts.imports_succeeded += 1;
  else counts.import_failures.push(`import ${jobId}: wait → ${w.status}, ${w.event ?? 'no event'} ${JSON.stringify(w.data).slice(0, 300)}`);
}

async function sampler(run: SoakRun, until: number, phase: SoakSample['phase']): Promise<void> {
  await every(run, run.cfg.sample_every_s, until, 'sample', async () => {
    const s: ProbeSample = await run.g.sample(true);
    run.samples.push({
      t_s: round((s.at_ms - run.started) / 1000, 2),
      phase,
      rss_mb: round(s.rss / 2 ** 20, 2),
      heap_used_mb: round(s.heap_used / 2 ** 20, 2),
      external_mb: round(s.external / 2 ** 20, 2),
      fds: s.fds,
      eld_p50_ms: s.eld_ms.p50,
      eld_p99_ms: s.eld_ms.p99,
      eld_max_ms: s.eld_ms.max,
    });
  });
}

/** One phase of the soak: every activity side by side for `ms`. */
export async function soakPhase(run: SoakRun, name: SoakSample['phase'], ms: number): Promise<void> {
  const until = Date.now() + ms;
  await Promise.all([
    reads(run, ms),
    every(run, run.cfg.waits_every_s, until, 'waits', () => waitsOnce(run)),
    every(run, run.cfg.import_every_s, until, 'import', () => importOnce(run)),
    sampler(run, until, name),
  ]);
}
