/**
 * The meeting detector on a real PulseAudio daemon, measured:
 *
 *   latency   a simulated meeting app opens its capture stream on a simulated
 *             microphone (simulator/devices/meeting-app.ts); from that moment
 *             to the detector's "meeting detected" (min_meeting_seconds 0, so
 *             the figure is the detector's own: pactl's event, the two reads,
 *             the match) and to recording.started (the recorder opening the
 *             device, auto-record armed). Several calls, one after another.
 *   idle CPU  the detector following the daemon while nothing happens (no
 *             device, no stream) for --idle-minutes: CPU seconds of this
 *             process and of the pactl subscribe process over wall seconds,
 *             as a share of one core (target: at most 1 %), and how many
 *             stream reads ran (0 when nothing changes: no polling).
 *
 *   node bench/detection.ts [--idle-minutes 10] [--calls 5]
 *   npm run bench -- --only detection  (opt-in: not in a plain `npm run bench`; ten idle minutes)
 *
 * Prints one JSON object. Benchmarks measure; they do not assert.
 * Decision: docs/decisions/141.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeps } from '../server/deps.ts';
import { openDatabase } from '../server/kernel/store/database.ts';
import { RESET_SETTINGS } from '../server/kernel/store/settings-repo.ts';
import { VirtualDeviceCatalog } from '../simulator/devices/catalog.ts';
import { MeetingApp } from '../simulator/devices/meeting-app.ts';
import { PulseServer } from '../simulator/devices/pulse-server.ts';
import {
  formatRows,
  machine,
  median,
  processCpuSeconds,
  readFlags,
  round,
  runCli,
  target,
  type BenchReport,
  type BenchRunOptions,
} from './lib.ts';

interface DetectionBenchOptions {
  idleMinutes: number;
  calls: number;
  log: (line: string) => void;
}

const SCOPES = { scopes: ['read', 'write', 'record'] as const };

function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

function until<T>(what: string, ms: number, check: () => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    const tick = () => {
      const v = check();
      if (v !== undefined) resolve(v);
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 5);
    };
    tick();
  });
}

export async function benchDetection(o: DetectionBenchOptions): Promise<Record<string, unknown>> {
  const pulse = await PulseServer.start({ mode: 'private' });
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-bench-detection-'));
  const db = openDatabase(':memory:');
  const devices = new VirtualDeviceCatalog({ backend: 'pulse', pulse: { mode: 'auto', env: pulse.clientEnv } });
  let detectedAt: number | null = null;
  const deps = createDeps({
    db,
    dataDir,
    devices,
    pocketsphinxRoots: [],
    detection: {
      env: pulse.clientEnv,
      graceMs: 1000,
      log: (line) => {
        if (/meeting detected/.test(line)) detectedAt = performance.now();
      },
    },
    logError: (err) => o.log(`[detection bench] ${String(err)}`),
  });
  let startedAt: number | null = null;
  deps.bus.subscribe((e) => {
    if (e.event === 'recording.started') startedAt = performance.now();
  });
  deps.settings.update({ ...RESET_SETTINGS, remote_recording_prearmed: true });
  deps.start();
  try {
    // ── Idle: the detector follows the daemon; nothing happens. ──
    deps.config.replace('meeting-detection', { enabled: true, auto_record: true, min_meeting_seconds: 0, apps: ['zoom'] }, SCOPES, true);
    await until('the detector to follow the daemon', 20_000, () => (deps.detection.view().state === 'watching' ? true : undefined));
    const viewReads = () => deps.detection.view().log.length;
    const logBefore = viewReads();
    const subscribePid = deps.detection.processIds()[0] ?? null;
    o.log(`[detection bench] idle for ${o.idleMinutes} min (pactl subscribe pid ${subscribePid ?? 'none'})`);
    const wall0 = performance.now();
    const own0 = ownCpuSeconds();
    const sub0 = subscribePid === null ? null : processCpuSeconds(subscribePid);
    await new Promise((r) => setTimeout(r, o.idleMinutes * 60_000));
    const wall = (performance.now() - wall0) / 1000;
    const own = ownCpuSeconds() - own0;
    const sub1 = subscribePid === null ? null : processCpuSeconds(subscribePid);
    const subCpu = sub0 === null || sub1 === null ? null : sub1 - sub0;
    const linesWhileIdle = viewReads() - logBefore;
    const idle = {
      wall_seconds: round(wall, 1),
      gateway_process_cpu_seconds: round(own, 3),
      pactl_subscribe_cpu_seconds: subCpu === null ? null : round(subCpu, 3),
      cpu_percent_of_one_core: round(((own + (subCpu ?? 0)) / wall) * 100, 3),
      detector_notices_while_idle: linesWhileIdle,
    };

    // ── Latency: one call after another on a simulated microphone. ──
    devices.plug({ name: 'Bench Mic', device_type: 'input', script: 'tiny' });
    await devices.ready('Bench Mic');
    const detectMs: number[] = [];
    const recordMs: number[] = [];
    for (let i = 0; i < o.calls; i++) {
      detectedAt = null;
      startedAt = null;
      const handle = devices.virtual('Bench Mic')!;
      const t0 = performance.now();
      const app = new MeetingApp(`bench_${i}`, { device: 'Bench Mic', app_name: 'Zoom Meeting', binary: 'zoom', seconds: 600 }, handle);
      const detected = await until('the meeting to be detected', 30_000, () => detectedAt ?? undefined);
      const started = await until('the recording to start', 30_000, () => startedAt ?? undefined);
      detectMs.push(detected - t0);
      recordMs.push(started - t0);
      app.stop();
      await until('the recording to stop', 60_000, () => (deps.recording.view().state === 'idle' ? true : undefined));
      o.log(`[detection bench] call ${i + 1}: detected ${round(detected - t0, 0)} ms, recording ${round(started - t0, 0)} ms`);
    }
    return {
      generated_at: new Date().toISOString(),
      machine: machine(),
      config: { idle_minutes: o.idleMinutes, calls: o.calls, pactl: pulse.tools.pactl },
      idle,
      latency: {
        app_to_detected_ms_median: round(median(detectMs) ?? NaN, 0),
        app_to_detected_ms_max: round(Math.max(...detectMs), 0),
        app_to_recording_started_ms_median: round(median(recordMs) ?? NaN, 0),
        app_to_recording_started_ms_max: round(Math.max(...recordMs), 0),
      },
    };
  } finally {
    deps.shutdown();
    devices.dispose();
    await devices.disposed();
    pulse.stop();
    await pulse.stopped();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** bench/run.ts's entry: ten idle minutes and five calls (tiny: 3 s and one call). */
export async function run(opts: BenchRunOptions): Promise<BenchReport> {
  const idleMinutes = opts.tiny ? 0.05 : 10;
  const calls = opts.tiny ? 1 : 5;
  const raw = await benchDetection({ idleMinutes, calls, log: opts.log });
  const idle = raw['idle'] as { cpu_percent_of_one_core: number };
  return {
    generated_at: raw['generated_at'] as string,
    machine: machine(),
    config: { ...(raw['config'] as Record<string, unknown>), tiny: opts.tiny },
    benchmarks: { idle: raw['idle'], latency: raw['latency'] },
    ratios: {},
    targets: { idle_cpu_percent_of_one_core: target(idle.cpu_percent_of_one_core, { max: 1 }) },
  };
}

export function table(report: BenchReport): string {
  const rows = Object.entries(report.benchmarks).flatMap(([group, v]) =>
    Object.entries(v as Record<string, unknown>).map(([k, x]) => [`${group}.${k}`, String(x)]),
  );
  return formatRows([['figure', 'value'], ...rows]);
}

if (import.meta.main) {
  await runCli(async () => {
    const flags = readFlags(
      process.argv.slice(2),
      { 'idle-minutes': { type: 'string' }, calls: { type: 'string' } },
      '[--idle-minutes 10] [--calls 5]',
    );
    const result = await benchDetection({
      idleMinutes: Number(flags['idle-minutes'] ?? 10),
      calls: Number(flags.calls ?? 5),
      log: (l) => process.stderr.write(`${l}\n`),
    });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  });
}
