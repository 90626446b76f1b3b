/**
 * Live recording on the real path, measured:
 *
 *   fidelity   a virtual microphone plays a fixture script (pacat → null
 *              sink), the recorder captures its monitor (parec) into the
 *              meeting's WAV; the WAV is aligned with the script: offset in
 *              ms and normalised cross-correlation, over the whole script and
 *              per 5 s window (a glitch shows as a low window or an offset
 *              that moves);
 *   cpu        CPU share of the gateway process while recording (process
 *              .cpuUsage), minus a baseline with the device playing and
 *              nothing recording (the simulator's player runs in the same
 *              process), plus the capture and player processes from /proc;
 *   delay      from POST stop to idle (recording.stopped), to the transcript
 *              (transcript.updated) and to the summary (summary.completed).
 *
 *   node bench/recording.ts [--minutes 1] [--script two-person-call] [--baseline-seconds 15]
 *
 * Prints one JSON object; bench/run.ts runs it as "recording". Benchmarks measure; they
 * do not assert.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeps } from '../server/deps.ts';
import { openDatabase } from '../server/kernel/store/database.ts';
import { RESET_SETTINGS } from '../server/kernel/store/settings-repo.ts';
import { VirtualDeviceCatalog } from '../simulator/devices/catalog.ts';
import { alignCapture } from '../simulator/devices/fidelity.ts';
import { loadScriptAudio } from '../simulator/devices/script-audio.ts';
import { parseWav } from '../common/audio/wav.ts';
import { FlagError, machine, readFlags, round, runCli } from './lib.ts';

export interface RecordingBenchOptions {
  /** Length of the measured recording; default 1 (the 10-minute figure: --minutes 10). */
  minutes?: number;
  /** Fixture script the virtual microphone plays; default two-person-call. */
  script?: string;
  /** Seconds of the no-recording baseline; default 15. */
  baselineSeconds?: number;
  log?: (line: string) => void;
}

const CLK_TCK = 100; // Linux USER_HZ

/** utime + stime of a process in seconds, or null when it is gone. */
function procCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // fields 14 and 15 of stat(5)
  } catch {
    return null;
  }
}

function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** How faithfully the recording holds the script: the whole-file alignment, and 5 s windows aligned one by one. */
function fidelityOf(scriptSamples: Int16Array, recorded: Int16Array): Record<string, unknown> {
  const fit = alignCapture(scriptSamples, recorded.subarray(0, Math.min(recorded.length, scriptSamples.length + 48_000)), 48_000);
  const window = 5 * 16_000;
  const windows: { offset_ms: number; correlation: number }[] = [];
  // Windows of the script that the recording holds entirely (a short recording stops mid-script).
  for (let w = 0; w + window <= scriptSamples.length && w + window + fit.offsetSamples <= recorded.length; w += window) {
    const part = scriptSamples.subarray(w, w + window);
    const local = alignCapture(part, recorded.subarray(w, Math.min(recorded.length, w + window + 48_000)), 48_000);
    // A silent window has nothing to align on.
    if (part.some((s) => Math.abs(s) > 300))
      windows.push({ offset_ms: round(local.offsetMs, 1), correlation: round(local.correlation, 4) });
  }
  const offsets = windows.map((w) => w.offset_ms);
  return {
    path: 'pacat → null sink → monitor → parec → WAV',
    offset_ms: round(fit.offsetMs, 1),
    correlation: round(fit.correlation, 5),
    windows_5s: windows.length,
    window_correlation_min: windows.length === 0 ? null : Math.min(...windows.map((w) => w.correlation)),
    window_offset_spread_ms: offsets.length === 0 ? null : round(Math.max(...offsets) - Math.min(...offsets), 1),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchRecording(opts: RecordingBenchOptions = {}): Promise<Record<string, unknown>> {
  const minutes = opts.minutes ?? 1;
  const scriptName = opts.script ?? 'two-person-call';
  const baselineSeconds = opts.baselineSeconds ?? 15;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-bench-recording-'));
  const db = openDatabase(':memory:');
  const devices = new VirtualDeviceCatalog({ backend: 'pulse', pulse: { mode: 'private' } });
  const deps = createDeps({
    db,
    dataDir,
    devices,
    logError: (err) => log(`[bench] unexpected: ${err instanceof Error ? err.message : String(err)}`),
  });
  deps.settings.update(RESET_SETTINGS);
  deps.start();
  try {
    const script = await loadScriptAudio(scriptName);
    devices.plug({ name: 'Bench Mic', device_type: 'input', script: scriptName });
    const plugStarted = performance.now();
    const vd = await devices.ready('Bench Mic');
    const plugMs = performance.now() - plugStarted;
    if (vd.transport !== 'pulse') throw new Error('PulseAudio is not available: the bench measures the real path only');

    // Baseline: the device plays (silence until cued), nothing records.
    log(`[bench] baseline ${baselineSeconds} s`);
    let c0 = ownCpuSeconds();
    let t0 = performance.now();
    await sleep(baselineSeconds * 1000);
    const baselineShare = (ownCpuSeconds() - c0) / ((performance.now() - t0) / 1000);

    // The recording.
    const events: Record<string, number> = {};
    deps.bus.subscribe((e) => {
      if (!(e.event in events)) events[e.event] = performance.now();
    });
    log(`[bench] recording ${minutes} min`);
    const startAt = performance.now();
    deps.recording.start({ mic_device_name: 'Bench Mic', meeting_name: 'bench' }, { remote: false });
    const stateNow = (): string => deps.recording.state;
    while (stateNow() !== 'recording') {
      if (stateNow() === 'idle') throw new Error(`the recording did not start: ${deps.recording.view().last_error}`);
      await sleep(10);
    }
    const startToRecordingMs = performance.now() - startAt;
    const pids = { capture: deps.recording.processIds(), devices: devices.processIds() };
    const procBefore = new Map([...pids.capture, ...pids.devices].map((p) => [p, procCpuSeconds(p)]));
    c0 = ownCpuSeconds();
    t0 = performance.now();
    await sleep(minutes * 60_000);
    const wall = (performance.now() - t0) / 1000;
    const gatewayShare = (ownCpuSeconds() - c0) / wall;
    const procShare = (list: number[]) =>
      list.reduce((sum, p) => {
        const before = procBefore.get(p);
        const after = procCpuSeconds(p);
        return before === null || before === undefined || after === null ? sum : sum + (after - before);
      }, 0) / wall;
    const captureShare = procShare(pids.capture);
    const deviceShare = procShare(pids.devices);

    const meetingId = deps.recording.view().active_meeting_id!;
    const captured = deps.recording.view().captured_seconds;
    const stopAt = performance.now();
    deps.recording.stop();
    while (stateNow() !== 'idle') await sleep(5);
    const stopToIdleMs = performance.now() - stopAt;
    log('[bench] transcribing');
    await deps.recording.processingIdle();
    const summaryDeadline = Date.now() + 120_000;
    while (!('summary.completed' in events) && Date.now() < summaryDeadline) await sleep(50);
    const processing = deps.recording.view().processing;

    // Fidelity: the meeting's WAV against the script.
    const wav = parseWav(readFileSync(deps.media.audio({ recording: deps.meetings.recording(meetingId)! })!.path));

    return {
      generated_at: new Date().toISOString(),
      machine: machine(),
      config: {
        minutes,
        script: scriptName,
        script_seconds: round(script.truth.duration, 2),
        baseline_seconds: baselineSeconds,
        transport: vd.transport,
      },
      device: { plug_to_ready_ms: round(plugMs, 0) },
      fidelity: fidelityOf(script.samples, wav.samples),
      cpu: {
        recording_seconds: round(wall, 1),
        captured_seconds: round(captured, 2),
        gateway_process_share: round(gatewayShare, 4),
        baseline_share_device_playing: round(baselineShare, 4),
        recorder_share: round(Math.max(0, gatewayShare - baselineShare), 4),
        capture_processes_share: round(captureShare, 4),
        device_processes_share: round(deviceShare, 4),
        note: 'shares of one core; the gateway process also runs the simulated device player (the baseline)',
      },
      delay: {
        start_to_recording_ms: round(startToRecordingMs, 0),
        stop_to_idle_ms: round(stopToIdleMs, 1),
        stop_to_transcript_s: 'transcript.updated' in events ? round((events['transcript.updated'] - stopAt) / 1000, 2) : null,
        stop_to_summary_s: 'summary.completed' in events ? round((events['summary.completed'] - stopAt) / 1000, 2) : null,
        meeting_created: 'at capture start (the meeting exists while recording; its transcript arrives after stop)',
        processing,
      },
    };
  } finally {
    deps.shutdown();
    devices.dispose();
    await devices.disposed();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await runCli(async () => {
    const values = readFlags(
      process.argv.slice(2),
      { minutes: { type: 'string' }, script: { type: 'string' }, 'baseline-seconds': { type: 'string' } },
      'node bench/recording.ts [--minutes M] [--script NAME] [--baseline-seconds S]',
    );
    const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
    if (minutes !== undefined && !(minutes > 0)) throw new FlagError('--minutes must be a positive number');
    const report = await benchRecording({
      ...(minutes !== undefined ? { minutes } : {}),
      ...(values.script !== undefined ? { script: values.script } : {}),
      ...(values['baseline-seconds'] !== undefined ? { baselineSeconds: Number(values['baseline-seconds']) } : {}),
    });
    console.log(JSON.stringify(report, null, 2));
  });
}
