/**
 * The speech-enhancement front end in place against on the gateway's worker
 * threads, back to back (decision 102): how long a noisy, reverberant
 * meeting spends in the front end before recognition can start.
 *
 *   in place   server/pipeline/enhance/front-end.ts with its passes one
 *              after another on this thread: the front end as it ran before
 *              decision 102 (on one worker, one pass at a time);
 *   workers    the gateway's front end (off-thread.ts): a runner with one
 *              worker per core, WPE cut into one part per worker, the first
 *              denoising beside the dereverberation.
 * The two alternate, each `rounds` times, on the same audio; the ratio is
 * in place over workers (wall seconds), so above 1 is faster. CPU is this
 * process's user + system seconds (its worker threads included). The two
 * outputs are compared sample by sample (the workers' should be the same to
 * rounding).
 *
 * The audio is bench/rtf.ts's 5-minute meeting in the office scene (rendered
 * once and kept under .tmp/rtf-meetings/); --tiny uses its 15-second cut.
 *
 *   node bench/run.ts --only front-end [--lengths 5] [--scenes office]
 */
import { availableParallelism } from 'node:os';
import { fmt, formatRows, machine, median, round, target, type BenchReport, type BenchRunOptions } from './lib.ts';
import { readPcm16Wav } from './quality-real-speech.ts';
import { meetingWav } from './rtf.ts';
import { enhanceSpeech } from '../server/pipeline/enhance/front-end.ts';
import { OffThreadRunner, offThreadEnhancer } from '../server/pipeline/off-thread.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled, type PcmAudio } from '../server/pipeline/types.ts';

interface Round {
  way: 'in place' | 'workers';
  seconds: number;
  cpu_seconds: number;
}

const SETTINGS = { enhancement: 'auto', denoise: true, dereverberation: true } as const;

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export async function run(opts: BenchRunOptions): Promise<BenchReport> {
  const o = opts.options ?? {};
  const minutes = Number(o['lengths'] ?? (opts.tiny ? 0.25 : 5));
  const scene = o['scenes'] ?? 'office';
  const rounds = opts.tiny ? 1 : 2;
  const { wav } = await meetingWav(minutes, scene, opts.log);
  const samples = readPcm16Wav(wav);
  const audio: PcmAudio = { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: samples.length / PIPELINE_SAMPLE_RATE };
  const runner = new OffThreadRunner();
  const results: Round[] = [];
  let inPlace: PcmAudio | null = null;
  let onWorkers: PcmAudio | null = null;
  let passes = '';
  try {
    for (let r = 0; r < rounds; r++) {
      for (const way of ['in place', 'workers'] as const) {
        const cpu0 = cpuSeconds();
        const t0 = performance.now();
        if (way === 'in place') {
          const out = await enhanceSpeech(audio, SETTINGS, uncontrolled());
          inPlace = out.audio;
          passes = [out.dereverberated ? 'WPE' : '', out.denoised ? 'RNNoise' : ''].filter(Boolean).join(' + ') || 'none';
        } else {
          onWorkers = await offThreadEnhancer(runner)(audio, SETTINGS, uncontrolled());
        }
        const round_: Round = { way, seconds: (performance.now() - t0) / 1000, cpu_seconds: cpuSeconds() - cpu0 };
        results.push(round_);
        opts.log(`front-end ${way}: ${fmt(round_.seconds, 2)} s, CPU ${fmt(round_.cpu_seconds, 2)} s (${passes})`);
      }
    }
  } finally {
    await runner.close();
  }
  let worst = 0;
  let error = 0;
  let signal = 0;
  for (let i = 0; i < samples.length; i++) {
    const a = inPlace!.samples[i]!;
    const d = a - onWorkers!.samples[i]!;
    worst = Math.max(worst, Math.abs(d));
    error += d * d;
    signal += a * a;
  }
  const wall = (way: Round['way']) => median(results.filter((r) => r.way === way).map((r) => r.seconds))!;
  const cpu = (way: Round['way']) => median(results.filter((r) => r.way === way).map((r) => r.cpu_seconds))!;
  const speedup = round(wall('in place') / wall('workers'), 3);
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: { tiny: opts.tiny, minutes, scene, rounds, workers: availableParallelism(), settings: SETTINGS, passes },
    benchmarks: {
      audio_seconds: round(audio.durationSeconds, 1),
      rounds: results.map((r) => ({ ...r, seconds: round(r.seconds, 2), cpu_seconds: round(r.cpu_seconds, 2) })),
      in_place_seconds: round(wall('in place'), 2),
      workers_seconds: round(wall('workers'), 2),
      in_place_cpu_seconds: round(cpu('in place'), 2),
      workers_cpu_seconds: round(cpu('workers'), 2),
      largest_difference: worst,
      difference_snr_db: error === 0 ? null : round(10 * Math.log10(signal / error), 1),
    },
    ratios: { front_end_workers_vs_in_place: speedup },
    baselines: { front_end_workers_vs_in_place: 'the front end in place, one pass after another (before decision 102)' },
    // The outputs must agree to rounding: a difference a listener or the recognizer could notice would be a bug.
    targets: { 'largest sample difference, workers against in place': target(worst, { max: 1e-3 }) },
  };
}

export function table(report: BenchReport): string {
  const b = report.benchmarks as { audio_seconds: number; rounds: Round[]; difference_snr_db: number | null };
  const rows = [['way', 'wall s', 'CPU s', 'wall / audio s']];
  for (const r of b.rounds) rows.push([r.way, fmt(r.seconds, 2), fmt(r.cpu_seconds, 2), fmt(r.seconds / b.audio_seconds, 3)]);
  return `${formatRows(rows)}\nworkers vs in place: ${fmt(report.ratios['front_end_workers_vs_in_place'], 2)}×; outputs differ at ${fmt(b.difference_snr_db, 1)} dB below the signal`;
}
