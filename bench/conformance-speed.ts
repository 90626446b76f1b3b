/**
 * The speed of the conformance gate: the non-slow run against the reference
 * (conformance/run-reference.ts), back to back on the same machine with the
 * same seed:
 *
 * - "earlier schedule": --jobs 4 --recorder-alone, the schedule the reference
 *   run used before the recorder checks could run beside the others
 *   (docs/decisions/057-conformance-speed.md); the figure to compare with,
 *   measured in the same run so that the machine's load moves both;
 * - "reference run": run-reference.ts with its own settings (what CI runs);
 * - with --sequential, --jobs 1 as well.
 *
 * Reported: seconds, the ratio of each run to the earlier schedule's run and
 * to BASELINE_SECONDS (that schedule's figure on an idle 2-core machine),
 * and the slowest checks of each run (per-check durations from its JSON
 * report) so that where the time goes is visible.
 *
 *   node bench/conformance-speed.ts [--seed 1] [--sequential] [--before DIR] [--out-dir reports]
 *
 * With --before DIR (a checkout of an earlier commit, its node_modules
 * installed or linked) that checkout's reference run is measured first.
 * Writes reports/bench-conformance-speed.json and .md, and each run's JSON
 * report under reports/bench-conformance-speed/<run>/.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { readFlags, runCli } from './lib.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** The non-slow reference run with --jobs 4 before the recorder checks joined the pool, on an idle 2-core machine (seconds). */
const BASELINE_SECONDS = 85;

export interface CheckTime {
  id: string;
  ms: number;
}

export interface SpeedRun {
  label: string;
  args: string[];
  /** Wall time of the whole run (gateway start and stop included), seconds. */
  seconds: number;
  /** The summary line of the run ("N PASS, …"). */
  summary: string;
  exitCode: number | null;
  loadBefore: number;
  /** The slowest checks of the run, from its JSON report. */
  slowest: CheckTime[];
}

function slowestOf(reportDir: string, n = 12): CheckTime[] {
  try {
    const index = JSON.parse(readFileSync(join(reportDir, 'index.json'), 'utf8')) as { checks?: Array<{ id: string; durationMs: number }> };
    return (index.checks ?? [])
      .map((c) => ({ id: c.id, ms: c.durationMs }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, n);
  } catch {
    return [];
  }
}

function timed(label: string, cwd: string, args: string[], reportDir: string): Promise<SpeedRun> {
  rmSync(reportDir, { recursive: true, force: true });
  // A later --json wins over run-reference's own: each run keeps its report.
  const all = [...args, `--json=${reportDir}`];
  return new Promise((done) => {
    const loadBefore = loadavg()[0]!;
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(cwd, 'conformance', 'run-reference.ts'), ...all], {
      cwd,
      env: { ...process.env, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const summary = /^\d+ PASS, .*$/m.exec(out)?.[0] ?? out.slice(-300);
      done({ label, args, seconds, summary, exitCode: code, loadBefore, slowest: slowestOf(reportDir) });
    });
  });
}

const EARLIER = 'earlier schedule (--jobs 4 --recorder-alone)';

export function markdown(runs: readonly SpeedRun[]): string {
  const earlier = runs.find((r) => r.label === EARLIER);
  const lines = [
    '# Conformance gate speed (non-slow run against the reference)',
    '',
    `Back to back on one machine (${process.platform}, Node ${process.version}). Baseline: ${BASELINE_SECONDS} s, the earlier schedule on an idle 2-core machine; the ratio to the earlier schedule's run of this same measurement is the figure that carries over a loaded machine.`,
    '',
    `| run | seconds | ratio to the earlier schedule (same run) | ratio to ${BASELINE_SECONDS} s | 1-min load before | outcome | exit |`,
    '|---|---:|---:|---:|---:|---|---:|',
    ...runs.map(
      (r) =>
        `| ${r.label} | ${r.seconds.toFixed(1)} | ${earlier === undefined ? '' : (r.seconds / earlier.seconds).toFixed(2)} | ${(r.seconds / BASELINE_SECONDS).toFixed(2)} | ${r.loadBefore.toFixed(1)} | ${r.summary} | ${r.exitCode} |`,
    ),
    '',
    '## Slowest checks per run (ms)',
    '',
    ...runs.flatMap((r) => [`### ${r.label}`, '', ...r.slowest.map((c) => `- ${c.id}: ${c.ms}`), '']),
  ];
  return lines.join('\n');
}

function slug(label: string): string {
  return label
    .replace(/\(.*\)/, '')
    .trim()
    .replace(/[^a-z0-9]+/gi, '-')
    .toLowerCase();
}

async function main(): Promise<number> {
  const values = readFlags(
    process.argv.slice(2),
    { seed: { type: 'string' }, sequential: { type: 'boolean' }, before: { type: 'string' }, 'out-dir': { type: 'string' } },
    'node bench/conformance-speed.ts [--seed N] [--sequential] [--before DIR] [--out-dir DIR]',
  );
  const seed = values.seed ?? '1';
  const out = resolve(values['out-dir'] ?? join(ROOT, 'reports'));
  const reports = join(out, 'bench-conformance-speed');
  mkdirSync(reports, { recursive: true });
  const runs: SpeedRun[] = [];
  const measure = async (label: string, cwd: string, args: string[]): Promise<void> => {
    runs.push(await timed(label, cwd, args, join(reports, slug(label))));
  };
  if (values.before !== undefined)
    await measure('before (earlier checkout, its reference run)', resolve(values.before), [`--seed=${seed}`]);
  await measure(EARLIER, ROOT, [`--seed=${seed}`, '--jobs', '4', '--recorder-alone']);
  await measure('reference run (run-reference.ts settings)', ROOT, [`--seed=${seed}`]);
  if (values.sequential === true) await measure('sequential (--jobs 1)', ROOT, [`--seed=${seed}`, '--jobs', '1']);
  writeFileSync(
    join(out, 'bench-conformance-speed.json'),
    `${JSON.stringify({ seed, baselineSeconds: BASELINE_SECONDS, runs }, null, 2)}\n`,
  );
  const md = markdown(runs);
  writeFileSync(join(out, 'bench-conformance-speed.md'), md);
  process.stdout.write(md);
  return runs.every((r) => r.exitCode === 0) ? 0 : 1;
}

if (import.meta.main) {
  await runCli(main);
}
