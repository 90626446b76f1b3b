/**
 * The speed of the conformance gate: the non-slow run against the reference
 * (conformance/run-reference.ts), sequential (--jobs 1) and with --jobs N,
 * back to back on the same machine with the same seed, and the ratio of the
 * two. A machine's load moves both figures; the ratio is what carries over.
 * With --before DIR (a checkout of an earlier commit, its node_modules
 * installed or linked) that checkout's run is measured first, back to back
 * with the others.
 *
 *   node bench/conformance-speed.ts [--jobs 4] [--seed 1] [--before DIR] [--out-dir reports]
 *
 * Writes reports/bench-conformance-speed.json and .md.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');

export interface SpeedRun {
  label: string;
  args: string[];
  /** Wall time of the whole run (gateway start and stop included), seconds. */
  seconds: number;
  /** The summary line of the run ("N PASS, …"). */
  summary: string;
  exitCode: number | null;
  loadBefore: number;
}

function timed(label: string, cwd: string, args: string[]): Promise<SpeedRun> {
  return new Promise((done) => {
    const loadBefore = loadavg()[0]!;
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(cwd, 'conformance', 'run-reference.ts'), ...args], { cwd, env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const summary = /^\d+ PASS, .*$/m.exec(out)?.[0] ?? out.slice(-300);
      done({ label, args, seconds, summary, exitCode: code, loadBefore });
    });
  });
}

export function markdown(runs: readonly SpeedRun[], jobs: number): string {
  const seq = runs.find((r) => r.label === 'sequential');
  const lines = [
    '# Conformance gate speed (non-slow run against the reference)',
    '',
    `Back to back on one machine (${process.platform}, Node ${process.version}); --jobs ${jobs} against --jobs 1.`,
    '',
    '| run | seconds | ratio to sequential | 1-min load before | outcome | exit |',
    '|---|---:|---:|---:|---|---:|',
    ...runs.map((r) => `| ${r.label} | ${r.seconds.toFixed(1)} | ${seq === undefined ? '' : (r.seconds / seq.seconds).toFixed(2)} | ${r.loadBefore.toFixed(1)} | ${r.summary} | ${r.exitCode} |`),
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { jobs: { type: 'string' }, seed: { type: 'string' }, before: { type: 'string' }, 'out-dir': { type: 'string' } } });
  const jobs = Number(values.jobs ?? '4');
  const seed = values.seed ?? '1';
  const runs: SpeedRun[] = [];
  if (values.before !== undefined) runs.push(await timed('before (earlier checkout, sequential)', resolve(values.before), ['--seed', seed]));
  runs.push(await timed('sequential', ROOT, ['--seed', seed, '--jobs', '1']));
  runs.push(await timed(`--jobs ${jobs}`, ROOT, ['--seed', seed, '--jobs', String(jobs)]));
  const out = resolve(values['out-dir'] ?? join(ROOT, 'reports'));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'bench-conformance-speed.json'), `${JSON.stringify({ jobs, seed, runs }, null, 2)}\n`);
  const md = markdown(runs, jobs);
  writeFileSync(join(out, 'bench-conformance-speed.md'), md);
  process.stdout.write(md);
  return runs.every((r) => r.exitCode === 0) ? 0 : 1;
}

if (import.meta.main) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`conformance-speed: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
