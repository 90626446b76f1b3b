/**
 * The two resamplers the gateway can use, side by side (decision 086): the
 * project's own windowed-sinc Resampler (common/audio/resample.ts, what the
 * in-process decoder runs) and ffmpeg's swr (`-ar 16000`, what the ffmpeg
 * engine runs), from 44.1 kHz and 48 kHz to the pipeline's 16 kHz.
 *
 * Quality against an ideal band-limited reference, computed in closed form:
 *   - in band: a linear sine sweep from 50 Hz to 6 kHz (the speech band),
 *     whose ideal 16 kHz version is the same sweep evaluated at the output
 *     instants; SNR of the output against it, the first and last 50 ms left
 *     out (both resamplers start and end on zeros);
 *   - aliasing: a sweep from 8.5 kHz to 20 kHz, all of it above the output's
 *     Nyquist frequency, whose ideal output is silence; how far below the
 *     input's power the output stays.
 * Speed: wall time per minute of audio, best of `--runs`;
 * ffmpeg's includes starting the process and piping the samples through it,
 * as the decoder pays them.
 *
 *   node bench/resample.ts [--minutes 1] [--runs 3] [--out-dir reports]
 *
 * Writes <out-dir>/bench-resample.json and bench-resample.md and prints the
 * table. Needs ffmpeg.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resample } from '../common/audio/resample.ts';
import { fmt, formatRows, machine, readFlags, round, runCli } from './lib.ts';

const OUT_RATE = 16_000;
const INPUT_RATES = [44_100, 48_000] as const;
/** Left out of the SNR at each end, in seconds. */
const EDGE_SECONDS = 0.05;
const AMPLITUDE = 0.5;

/** A linear sweep from f0 to f1 Hz over `seconds`, sampled at `rate` (phase in closed form, so any rate is exact). */
function sweep(f0: number, f1: number, seconds: number, rate: number): Float32Array {
  const n = Math.round(seconds * rate);
  const out = new Float32Array(n);
  const k = (f1 - f0) / seconds;
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    out[i] = AMPLITUDE * Math.sin(2 * Math.PI * (f0 * t + (k * t * t) / 2));
  }
  return out;
}

function power(x: Float32Array, from = 0, to = x.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += x[i]! * x[i]!;
  return sum / Math.max(1, to - from);
}

/** SNR in dB of `out` against `ideal`, edges left out. */
function snrDb(out: Float32Array, ideal: Float32Array): number {
  const edge = Math.round(EDGE_SECONDS * OUT_RATE);
  const to = Math.min(out.length, ideal.length) - edge;
  let signal = 0;
  let noise = 0;
  for (let i = edge; i < to; i++) {
    signal += ideal[i]! * ideal[i]!;
    const e = out[i]! - ideal[i]!;
    noise += e * e;
  }
  return 10 * Math.log10(signal / noise);
}

/** ffmpeg's swr on mono float32, through a pipe, as the decoder runs it. */
function ffmpegResample(x: Float32Array, inRate: number): Promise<Float32Array> {
  return new Promise((resolvePromise, reject) => {
    const args = ['-nostdin', '-v', 'error', '-f', 'f32le', '-ar', String(inRate), '-ac', '1', '-i', '-'];
    const child = spawn('ffmpeg', [...args, '-ar', String(OUT_RATE), '-f', 'f32le', '-'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) {
        reject(new Error(`ffmpeg exited with code ${code}`));
        return;
      }
      const bytes = Buffer.concat(chunks);
      const out = new Float32Array(bytes.length / 4);
      new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 4));
      resolvePromise(out);
    });
    child.stdin.end(Buffer.from(x.buffer, x.byteOffset, x.byteLength));
  });
}

type Engine = 'ours' | 'ffmpeg';

/** One conversion and its wall time: ffmpeg's CPU is a child's, and the wall time is what a job waits anyway. */
async function run(engine: Engine, x: Float32Array, inRate: number): Promise<{ out: Float32Array; wallSeconds: number }> {
  const t0 = performance.now();
  const out = engine === 'ours' ? resample(x, inRate, OUT_RATE) : await ffmpegResample(x, inRate);
  return { out, wallSeconds: (performance.now() - t0) / 1000 };
}

interface ResampleRow {
  engine: Engine;
  inRate: number;
  inBandSnrDb: number;
  aliasRejectionDb: number;
  wallSecondsPerMinute: number;
}

async function measureResamplers(minutes: number, runs: number): Promise<ResampleRow[]> {
  const seconds = minutes * 60;
  const ideal = sweep(50, 6000, seconds, OUT_RATE);
  const rows: ResampleRow[] = [];
  for (const inRate of INPUT_RATES) {
    const inBand = sweep(50, 6000, seconds, inRate);
    const above = sweep(8500, 20_000, 10, inRate);
    for (const engine of ['ours', 'ffmpeg'] as const) {
      const quality = await run(engine, inBand, inRate);
      const alias = await run(engine, above, inRate);
      const walls = [quality.wallSeconds];
      for (let r = 1; r < runs; r++) walls.push((await run(engine, inBand, inRate)).wallSeconds);
      const edge = Math.round(EDGE_SECONDS * OUT_RATE);
      rows.push({
        engine,
        inRate,
        inBandSnrDb: round(snrDb(quality.out, ideal), 1),
        aliasRejectionDb: round(10 * Math.log10(power(above) / power(alias.out, edge, alias.out.length - edge)), 1),
        wallSecondsPerMinute: round(Math.min(...walls) / minutes, 3),
      });
    }
  }
  return rows;
}

function markdown(rows: readonly ResampleRow[]): string {
  const lines = [
    '| resampler | from | in-band SNR (50 Hz–6 kHz sweep) | aliasing rejection (8.5–20 kHz sweep) | wall time per minute of audio |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.engine === 'ours' ? 'ours (common/audio/resample.ts)' : "ffmpeg's swr (-ar)"} | ${r.inRate / 1000} kHz | ${fmt(r.inBandSnrDb, 1)} dB | ${fmt(r.aliasRejectionDb, 1)} dB | ${fmt(r.wallSecondsPerMinute, 3)} s |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runCli(async () => {
    const values = readFlags(
      process.argv.slice(2),
      { minutes: { type: 'string' }, runs: { type: 'string' }, 'out-dir': { type: 'string' } },
      'node bench/resample.ts [--minutes 1] [--runs 3] [--out-dir reports]',
    );
    const minutes = Number(values.minutes ?? 1);
    const runs = Number(values.runs ?? 3);
    const rows = await measureResamplers(minutes, runs);
    const outDir = resolve(values['out-dir'] ?? join(fileURLToPath(new URL('..', import.meta.url)), 'reports'));
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'bench-resample.json'), `${JSON.stringify({ machine: machine(), minutes, runs, rows }, null, 2)}\n`);
    writeFileSync(join(outDir, 'bench-resample.md'), `# Resamplers to 16 kHz\n\n${markdown(rows)}`);
    console.log(
      formatRows([
        ['resampler', 'from Hz', 'in-band SNR dB', 'alias rejection dB', 's per minute'],
        ...rows.map((r) => [r.engine, String(r.inRate), fmt(r.inBandSnrDb, 1), fmt(r.aliasRejectionDb, 1), fmt(r.wallSecondsPerMinute, 3)]),
      ]),
    );
  });
}
