/**
 * How long a user waits for a transcript (issue 24): the time from the end of
 * an upload to the job's job.completed event, over the meeting's length
 * (RTF), for meetings of 5, 30 and 60 minutes in the clean scene and the
 * quality matrix's office scene, with one recognizer process (the path
 * before decision 094) and with one per core, back to back in the same run.
 *
 * The meetings: the long planning session (fixtures/meetings/
 * long-planning-session.json: four people, natural voices, nine agenda
 * topics), its lines spoken in order and again from the top until the
 * meeting is as long as asked, cut at a line's end. The renderer's clip
 * cache makes the repeat cheap; a rendered meeting is kept under
 * .tmp/rtf-meetings/ and reused (the render is deterministic).
 *
 * Each cell is a real import through a real gateway (server/main.ts in a
 * child process, bench/gateway-child.ts), one gateway per recognizer-process
 * count (MAS_RECOGNIZER_PROCESSES), both started before the first cell:
 *   upload    POST /v1/jobs/import with the WAV; the 202 marks the end of
 *             the upload (the gateway holds the whole file and the job);
 *   wait      GET /v1/jobs/{id}/wait (SSE), opened at once, reopened on its
 *             timeout event; the end is when its one event arrives
 *             (job.completed: the transcript, the meeting and its summary
 *             are stored);
 *   stages    GET /v1/jobs/{id} polled every 250 ms beside the wait, for
 *             when each stage was first seen (an indication; the wait
 *             gives the end);
 *   CPU       the gateway's user+system seconds, its finished children
 *             (ffmpeg, pocketsphinx) included, from /proc/<pid>/stat over
 *             the same interval: the cost, which a loaded machine does not
 *             change the way it changes wall time;
 *   load      the machine's load average (1, 5, 15 min) before and after.
 * The meeting is deleted after each cell. The configuration is the
 * gateway's default (front end auto, no custom words, no prompt).
 *
 *   node bench/rtf.ts [--lengths 5,30,60] [--scenes clean,office] [--processes 1,2] [--out-dir reports]
 *   npm run bench -- --only rtf --lengths 5 --scenes clean,office
 *
 * Writes reports/bench-rtf.json and reports/bench-rtf.md (run.ts writes
 * both too). Issue 24's targets are marked on the cells with one process per
 * core: RTF <= 0.15 clean, <= 0.5 office, a 60-minute clean meeting in
 * <= 10 minutes; they mean something only on an otherwise idle machine.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LONG_SCRIPT, QUALITY_SEED } from './quality.ts';
import { gatewayApi as api, startGatewayChild, startImport, type GatewayChild } from './gateway-child.ts';
import {
  FlagError,
  fmt,
  formatRows,
  machine,
  processCpuSeconds,
  readFlags,
  round,
  runCli,
  target,
  type BenchReport,
  type BenchRunOptions,
  type Target,
} from './lib.ts';
import { openWait } from './traffic.ts';
import { estimateScriptDuration } from '../simulator/scripts/estimate-duration.ts';
import { loadScript, REPO_ROOT } from '../simulator/scripts/load-script.ts';
import type { MeetingScript } from '../simulator/scripts/meeting-script.ts';
import { wordErrorRate } from '../simulator/score/word-error-rate.ts';
import { SCENE_PRESETS } from '../simulator/scenes/scene.ts';
import { renderScript, type MeetingTruth } from '../simulator/synth/render-script.ts';

export interface RtfConfig {
  /** Meeting lengths in minutes. */
  lengths: number[];
  scenes: string[];
  /** Recognizer-process counts, each its own gateway; the first is the baseline. */
  processes: number[];
}

export interface RtfCell {
  minutes: number;
  scene: string;
  processes: number;
  audio_seconds: number;
  /** Upload end (the 202) → job.completed, wall seconds. */
  seconds: number;
  rtf: number;
  /** The gateway's CPU seconds (user+system, finished children included) over the same interval. */
  cpu_seconds: number;
  cpu_per_audio_second: number;
  /** CPU seconds over wall seconds: how many cores the job kept busy on average. */
  cores_busy: number;
  load_before: number[];
  load_after: number[];
  /** Seconds after the upload's end each stage was first seen (polled). */
  stages: Record<string, number>;
  wer: number;
  error: string | null;
}

const DEFAULT_LENGTHS = [5, 30, 60];
const DEFAULT_SCENES = ['clean', 'office'];
/** Where rendered meetings are kept between runs. */
const MEETINGS_CACHE = join(REPO_ROOT, '.tmp', 'rtf-meetings');
/** Stage polling interval. */
const POLL_MS = 250;

export function rtfConfig(opts: Pick<BenchRunOptions, 'tiny' | 'options'>): RtfConfig {
  const o = opts.options ?? {};
  const list = (v: string | undefined): string[] | undefined =>
    v
      ?.split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  const cores = availableParallelism();
  const config: RtfConfig = {
    lengths: (list(o['lengths']) ?? (opts.tiny ? ['0.25'] : DEFAULT_LENGTHS.map(String))).map(Number),
    scenes: list(o['scenes']) ?? (opts.tiny ? ['clean'] : DEFAULT_SCENES),
    processes: (list(o['processes']) ?? (cores > 1 ? ['1', String(cores)] : ['1'])).map(Number),
  };
  for (const m of config.lengths) if (!(m > 0 && m <= 240)) throw new FlagError(`--lengths: minutes from above 0 to 240, got ${m}`);
  for (const p of config.processes)
    if (!Number.isInteger(p) || p < 1 || p > 256) throw new FlagError(`--processes: whole numbers from 1 to 256, got ${p}`);
  for (const scene of config.scenes)
    if (!(scene in SCENE_PRESETS))
      throw new FlagError(`--scenes: no scene preset "${scene}"; known: ${Object.keys(SCENE_PRESETS).join(', ')}`);
  return config;
}

/**
 * The script's lines in order, from the top again when they run out, until
 * the estimated meeting reaches `minutes` (simulator/scripts/estimate-duration.ts;
 * the natural voices run a few per cent longer than estimated).
 */
export function meetingOfLength(script: MeetingScript, minutes: number): MeetingScript {
  const wanted = minutes * 60;
  // A line of speech lasts over a second: this many always reach the length.
  const lines = Array.from({ length: Math.ceil(wanted) + script.lines.length }, (_, n) => {
    const i = n % script.lines.length;
    const line = script.lines[i]!;
    // A repeat starts after a plain pause, not overlapping the line before.
    return i === 0 && n > 0 ? { speaker: line.speaker, text: line.text, pause_before: 2 } : line;
  });
  const meeting = (count: number): MeetingScript => ({
    ...script,
    title: `${script.title} (${minutes} minutes)`,
    lines: lines.slice(0, count),
  });
  // The fewest lines whose estimate reaches the length (the estimate grows with every line).
  let [low, high] = [1, lines.length];
  while (low < high) {
    const mid = (low + high) >> 1;
    if (estimateScriptDuration(meeting(mid)).total >= wanted) high = mid;
    else low = mid + 1;
  }
  return meeting(low);
}

/** Renders the meeting of `minutes` in `scene`, or reuses the render of an earlier run. */
export async function meetingWav(
  minutes: number,
  scene: string,
  log: (line: string) => void,
): Promise<{ wav: string; truth: MeetingTruth }> {
  mkdirSync(MEETINGS_CACHE, { recursive: true });
  const wav = join(MEETINGS_CACHE, `${LONG_SCRIPT}-${minutes}min-${scene}.wav`);
  const truthPath = wav.replace(/\.wav$/, '.truth.json');
  if (existsSync(wav) && existsSync(truthPath)) return { wav, truth: JSON.parse(readFileSync(truthPath, 'utf8')) as MeetingTruth };
  const started = performance.now();
  const script = meetingOfLength(await loadScript(LONG_SCRIPT), minutes);
  const rendered = await renderScript(script, wav, { scene, seed: QUALITY_SEED, truthPath });
  log(
    `rtf: rendered ${minutes} min / ${scene} (${fmt(rendered.duration / 60, 1)} min of audio) in ${fmt((performance.now() - started) / 1000, 0)} s`,
  );
  return { wav, truth: rendered.truth };
}

/** The gateway's CPU seconds with its finished children (the recognizer processes). */
function cpuSecondsOf(pid: number): number {
  const cpu = processCpuSeconds(pid, { withChildren: true });
  if (cpu === null) throw new Error(`cannot read the CPU time of process ${pid} (/proc/${pid}/stat)`);
  return cpu;
}

function load(): number[] {
  return loadavg().map((l) => round(l, 2));
}

interface Segment {
  words?: { text: string }[];
}

async function measureImport(
  gw: GatewayChild,
  bytes: Buffer,
  name: string,
  audioSeconds: number,
): Promise<Omit<RtfCell, 'minutes' | 'scene' | 'processes' | 'wer'> & { words: string[] }> {
  const loadBefore = load();
  const jobId = await startImport(gw, bytes, name, 600_000);
  const uploaded = performance.now();
  const cpuBefore = cpuSecondsOf(gw.pid);

  const stages: Record<string, number> = {};
  const polling = { on: true };
  const poll = (async () => {
    while (polling.on) {
      const job = await api<{ stage: string }>(gw, 'GET', `/v1/jobs/${jobId}`).catch(() => null);
      if (job !== null && !(job.stage in stages)) stages[job.stage] = round((performance.now() - uploaded) / 1000, 2);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  })();
  let ended: { event: string | null; data: unknown; closed_at: number };
  try {
    for (;;) {
      const wait = openWait(gw.apiPort, `/v1/jobs/${jobId}/wait?timeout=3600`, gw.startupToken);
      ended = await wait.done;
      if (ended.event !== 'timeout') break;
    }
  } finally {
    polling.on = false;
    await poll;
  }
  const cpu = cpuSecondsOf(gw.pid) - cpuBefore;
  const seconds = (ended.closed_at - uploaded) / 1000;
  const job = await api<{ state: string; meeting_id: string | null; error: string | null }>(gw, 'GET', `/v1/jobs/${jobId}`);
  if (ended.event !== 'job.completed' || job.meeting_id === null)
    throw new Error(`the import ended with ${ended.event ?? 'no event'} (${job.state}): ${job.error ?? 'no error given'}`);
  const transcript = await api<{ segments: Segment[] }>(gw, 'GET', `/v1/meetings/${job.meeting_id}/transcript`);
  await api(gw, 'DELETE', `/v1/meetings/${job.meeting_id}?delete_files=true`);
  return {
    audio_seconds: round(audioSeconds, 1),
    seconds: round(seconds, 2),
    rtf: round(seconds / audioSeconds, 3),
    cpu_seconds: round(cpu, 1),
    cpu_per_audio_second: round(cpu / audioSeconds, 3),
    cores_busy: round(cpu / seconds, 2),
    load_before: loadBefore,
    load_after: load(),
    stages,
    error: null,
    words: transcript.segments.flatMap((s) => (s.words ?? []).map((w) => w.text)),
  };
}

export async function run(opts: BenchRunOptions): Promise<BenchReport> {
  const config = rtfConfig(opts);
  const log = opts.log;
  const gateways = new Map<number, GatewayChild>();
  const cells: RtfCell[] = [];
  try {
    for (const p of config.processes)
      gateways.set(p, await startGatewayChild({ env: { MAS_RECOGNIZER_PROCESSES: String(p) }, startTimeoutMs: 120_000 }));
    for (const minutes of config.lengths)
      for (const scene of config.scenes) {
        const { wav, truth } = await meetingWav(minutes, scene, log);
        const bytes = readFileSync(wav);
        const reference = truth.words.map((w) => w.text);
        // Back to back: the same meeting with each process count, one after the other.
        for (const processes of config.processes) {
          const base = { minutes, scene, processes };
          try {
            const { words, ...measured } = await measureImport(
              gateways.get(processes)!,
              bytes,
              `rtf-${minutes}-${scene}-${processes}`,
              truth.duration,
            );
            const cell: RtfCell = { ...base, ...measured, wer: round(wordErrorRate(reference, words).wer, 4) };
            cells.push(cell);
            log(
              `rtf ${minutes} min / ${scene} / ${processes} process${processes === 1 ? '' : 'es'}: ${fmt(cell.seconds, 1)} s for ${fmt(cell.audio_seconds / 60, 1)} min, ` +
                `RTF ${fmt(cell.rtf, 3)}, CPU ${fmt(cell.cpu_seconds, 1)} s (${fmt(cell.cpu_per_audio_second, 3)} per audio s, ${fmt(cell.cores_busy, 2)} cores busy), ` +
                `WER ${fmt(cell.wer * 100, 1)} %, load ${cell.load_before.join('/')} → ${cell.load_after.join('/')}`,
            );
          } catch (err) {
            const message = err instanceof Error ? err.message : String(err);
            log(`rtf ${minutes} min / ${scene} / ${processes}: not run: ${message}`);
            cells.push({
              ...base,
              audio_seconds: round(truth.duration, 1),
              seconds: NaN,
              rtf: NaN,
              cpu_seconds: NaN,
              cpu_per_audio_second: NaN,
              cores_busy: NaN,
              load_before: [],
              load_after: load(),
              stages: {},
              wer: NaN,
              error: message,
            });
          }
        }
      }
  } finally {
    for (const gw of gateways.values()) await gw.stop();
  }

  const baseline = config.processes[0]!;
  const ratios: Record<string, number | null> = {};
  const baselines: Record<string, string> = {};
  const targets: Record<string, Target> = {};
  for (const c of cells) {
    if (c.processes === baseline || c.error !== null) continue;
    const before = cells.find((b) => b.minutes === c.minutes && b.scene === c.scene && b.processes === baseline && b.error === null);
    const name = `rtf_${c.processes}_processes_${c.minutes}min_${c.scene}`;
    ratios[name] = before === undefined ? null : round(c.rtf / before.rtf, 3);
    baselines[name] = `the same meeting with ${baseline} recognizer process${baseline === 1 ? '' : 'es'}, same run`;
  }
  const most = Math.max(...config.processes);
  for (const c of cells) {
    if (c.processes !== most || c.error !== null) continue;
    if (c.scene === 'clean') targets[`rtf ${c.minutes} min clean`] = target(c.rtf, { max: 0.15 });
    if (c.scene === 'office') targets[`rtf ${c.minutes} min office`] = target(c.rtf, { max: 0.5 });
    if (c.scene === 'clean' && c.minutes === 60) targets['60 min clean, seconds'] = target(c.seconds, { max: 600 });
  }
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: { ...config, tiny: opts.tiny, meeting: LONG_SCRIPT, seed: QUALITY_SEED, poll_ms: POLL_MS },
    benchmarks: { cells: cells.map((c) => ({ ...c, seconds: nullIfNaN(c.seconds), rtf: nullIfNaN(c.rtf), wer: nullIfNaN(c.wer) })) },
    ratios,
    baselines,
    targets,
  };
}

function nullIfNaN(x: number): number | null {
  return Number.isNaN(x) ? null : x;
}

/** The cells as run() stored them (figures of a cell that did not run are null in the JSON), with NaN for null. */
function cellsOf(report: BenchReport): RtfCell[] {
  type Stored = Omit<RtfCell, 'seconds' | 'rtf' | 'wer'> & { seconds: number | null; rtf: number | null; wer: number | null };
  return ((report.benchmarks['cells'] ?? []) as Stored[]).map((c) => ({
    ...c,
    seconds: c.seconds ?? NaN,
    rtf: c.rtf ?? NaN,
    wer: c.wer ?? NaN,
  }));
}

const STAGE_ORDER = ['decoding', 'enhancing', 'detecting_speech', 'transcribing', 'diarizing', 'saving', 'summarizing'];

function stageLine(c: RtfCell): string {
  return Object.entries(c.stages)
    .sort(([a], [b]) => STAGE_ORDER.indexOf(a) - STAGE_ORDER.indexOf(b))
    .map(([s, t]) => `${s} ${fmt(t, 1)}`)
    .join(', ');
}

export function table(report: BenchReport): string {
  const rows = [
    [
      'minutes',
      'scene',
      'processes',
      'audio s',
      'wait s',
      'RTF',
      'CPU s',
      'CPU/audio s',
      'cores busy',
      'WER %',
      'load 1/5/15 before',
      'note',
    ],
  ];
  for (const c of cellsOf(report))
    rows.push([
      String(c.minutes),
      c.scene,
      String(c.processes),
      fmt(c.audio_seconds, 1),
      fmt(c.seconds, 1),
      fmt(c.rtf, 3),
      fmt(c.cpu_seconds, 1),
      fmt(c.cpu_per_audio_second, 3),
      fmt(c.cores_busy, 2),
      fmt(c.wer * 100, 1),
      c.load_before.join('/'),
      c.error ?? '',
    ]);
  return formatRows(rows);
}

export function markdown(report: BenchReport): string {
  const out = [
    `Upload end (the import's 202) → job.completed (SSE wait), on meetings made of the long planning session's lines; one gateway per recognizer-process count, cells back to back. ` +
      `CPU: the gateway's user+system seconds with its finished children. Stages: seconds after the upload's end each was first seen (polled every ${POLL_MS} ms).`,
    '',
    '| minutes | scene | processes | audio | wait | RTF | CPU s | CPU per audio s | cores busy | WER | load before → after | stages first seen (s) | note |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|',
  ];
  for (const c of cellsOf(report))
    out.push(
      `| ${c.minutes} | ${c.scene} | ${c.processes} | ${fmt(c.audio_seconds / 60, 1)} min | ${fmt(c.seconds, 1)} s | ${fmt(c.rtf, 3)} | ${fmt(c.cpu_seconds, 1)} | ${fmt(c.cpu_per_audio_second, 3)} | ${fmt(c.cores_busy, 2)} | ${fmt(c.wer * 100, 1)} % | ${c.load_before.join('/')} → ${c.load_after.join('/')} | ${stageLine(c)} | ${(c.error ?? '').replace(/\|/g, '\\|')} |`,
    );
  return out.join('\n');
}

/** reports/bench-rtf.md: the figures with how they were made. */
export function reportMarkdown(report: BenchReport): string {
  const m = report.machine;
  const c = report.config as unknown as RtfConfig;
  const targets = Object.entries(report.targets).map(
    ([name, t]) => `| ${name} | ${t.target} | ${fmt(t.value, 3)} | ${t.met ? 'yes' : '**no**'} |`,
  );
  return [
    '# Transcript wait: RTF from upload end to job.completed',
    '',
    `Generated ${report.generated_at} on ${m.cpus} cores (${m.cpu_model}), Node ${m.node}. ` +
      `Reproduce: \`node bench/rtf.ts --lengths ${c.lengths.join(',')} --scenes ${c.scenes.join(',')} --processes ${c.processes.join(',')}\`.`,
    'Wall times mean what they say only on an otherwise idle machine: the load average is beside every figure; the CPU seconds do not depend on it the same way.',
    '',
    markdown(report),
    '',
    ...(targets.length > 0 ? ['| target (issue 24) | rule | value | met |', '|---|---|---:|---|', ...targets, ''] : []),
  ].join('\n');
}

const USAGE = 'node bench/rtf.ts [--lengths 5,30,60] [--scenes clean,office] [--processes 1,2] [--out-dir DIR] [--tiny]';

async function main(): Promise<number> {
  const values = readFlags(
    process.argv.slice(2),
    {
      lengths: { type: 'string' },
      scenes: { type: 'string' },
      processes: { type: 'string' },
      'out-dir': { type: 'string' },
      tiny: { type: 'boolean', default: false },
    },
    USAGE,
  );
  const options: Record<string, string> = {};
  for (const k of ['lengths', 'scenes', 'processes'] as const) if (values[k] !== undefined) options[k] = values[k];
  const report = await run({ tiny: values.tiny, options, log: (l) => process.stderr.write(`${l}\n`) });
  const outDir = resolve(values['out-dir'] ?? join(REPO_ROOT, 'reports'));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'bench-rtf.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'bench-rtf.md'), reportMarkdown(report));
  process.stdout.write(`${table(report)}\n`);
  return cellsOf(report).some((cell) => cell.error !== null) ? 1 : 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runCli(main);
}
