/**
 * Decode speed per import format: the pipeline's AudioDecoder (as the
 * gateway runs it), its in-process engine alone, and plain ffmpeg
 * (`ffmpeg -i <file> -vn -ac 1 -ar 16000 -f f32le -`, output counted and
 * dropped) on the same file in the same run. Speeds are seconds of audio per
 * second of wall time (×real time); each is the best of a few interleaved
 * rounds after a warm-up, so codec start-up (WASM compile) is not counted
 * but a process start is, as it is in the gateway.
 *
 *   node bench/pipeline-decode.ts [--seconds 300] [--out-dir DIR] [--runs 3]
 *
 * prints the report as JSON. The figures chose the engine per format in
 * docs/decisions/010-decode-vad-diarization.md.
 *
 * Needs espeak-ng and ffmpeg (to make the test media).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { uncontrolled, type ImportExtension } from '../server/pipeline/types.ts';
import { FlagError, machine, ratio, readFlags, round, runCli } from './lib.ts';

interface MediaCase {
  /** Report key. */
  name: string;
  ext: ImportExtension;
  /** ffmpeg arguments that make it from the stereo source (input 0) and, with video, a test picture (input 1). */
  encode: string[];
  video?: boolean;
}

const CASES: MediaCase[] = [
  { name: 'wav', ext: 'wav', encode: ['-c:a', 'pcm_s16le'] },
  { name: 'wav-16k-mono', ext: 'wav', encode: ['-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le'] },
  { name: 'mp3', ext: 'mp3', encode: ['-c:a', 'libmp3lame', '-b:a', '128k'] },
  { name: 'flac', ext: 'flac', encode: ['-c:a', 'flac'] },
  { name: 'ogg-vorbis', ext: 'ogg', encode: ['-c:a', 'libvorbis'] },
  { name: 'ogg-opus', ext: 'ogg', encode: ['-c:a', 'libopus'] },
  { name: 'm4a', ext: 'm4a', encode: ['-c:a', 'aac'] },
  { name: 'aac', ext: 'aac', encode: ['-c:a', 'aac', '-f', 'adts'] },
  { name: 'wma', ext: 'wma', encode: ['-c:a', 'wmav2'] },
  { name: 'mp4', ext: 'mp4', encode: ['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac'], video: true },
  { name: 'mkv', ext: 'mkv', encode: ['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'libvorbis'], video: true },
  { name: 'webm', ext: 'webm', encode: ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-c:a', 'libopus'], video: true },
];

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.error) throw new Error(`${cmd} could not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.slice(-500)}`);
}

/** A stereo 44.1 kHz WAV of `seconds`: one synthetic voice on each channel, so the channels really differ. */
function makeSource(dir: string, seconds: number): string {
  const left = join(dir, 'voice-left.wav');
  const right = join(dir, 'voice-right.wav');
  run('espeak-ng', [
    '-v',
    'en-us',
    '-p',
    '30',
    '-w',
    left,
    'Good morning. We review the quarterly numbers first, then the roadmap, and we close with questions from the team.',
  ]);
  run('espeak-ng', [
    '-v',
    'en-gb+f2',
    '-p',
    '70',
    '-w',
    right,
    'Thank you. Before we start, can we move the launch by two weeks and keep the budget where it is?',
  ]);
  const source = join(dir, 'source.wav');
  run('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-stream_loop',
    '-1',
    '-i',
    left,
    '-stream_loop',
    '-1',
    '-i',
    right,
    '-filter_complex',
    '[0:a][1:a]amerge=inputs=2[a]',
    '-map',
    '[a]',
    '-t',
    String(seconds),
    '-ar',
    '44100',
    '-ac',
    '2',
    source,
  ]);
  return source;
}

function makeCase(dir: string, source: string, seconds: number, c: MediaCase): string {
  const out = join(dir, `bench-${c.name}.${c.ext}`);
  const inputs = c.video
    ? ['-i', source, '-f', 'lavfi', '-i', `testsrc=size=320x240:rate=15:duration=${seconds}`, '-map', '1:v', '-map', '0:a', '-shortest']
    : ['-i', source];
  run('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...inputs, ...c.encode, out]);
  return out;
}

/** Plain ffmpeg to 16 kHz mono float32, the output read and dropped. Returns seconds of audio. */
function plainFfmpeg(file: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('ffmpeg', ['-nostdin', '-v', 'error', '-i', file, '-vn', '-ac', '1', '-ar', '16000', '-f', 'f32le', '-'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let bytes = 0;
    child.stdout.on('data', (b: Buffer) => (bytes += b.length));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolvePromise(bytes / 4 / 16_000) : reject(new Error(`ffmpeg exited with ${code}`))));
  });
}

interface Timing {
  seconds: number;
  audio: number;
}

/**
 * Best wall time of each way over `runs` rounds, after a warm-up round. The
 * ways take turns within a round, so a burst of load from elsewhere on the
 * machine hits them alike instead of one of them.
 */
async function bestOf(runs: number, ways: (() => Promise<number>)[]): Promise<Timing[]> {
  for (const way of ways) await way(); // warm-up: codec modules load and compile once per process
  const best = ways.map(() => ({ seconds: Infinity, audio: 0 }));
  for (let round = 0; round < runs; round++) {
    for (let i = 0; i < ways.length; i++) {
      const t = performance.now();
      const audio = await ways[i]!();
      const seconds = (performance.now() - t) / 1000;
      if (seconds < best[i]!.seconds) best[i] = { seconds, audio };
    }
  }
  return best;
}

export async function benchDecode(opts: {
  seconds: number;
  outDir: string;
  runs?: number;
  log?: (line: string) => void;
}): Promise<Record<string, unknown>> {
  const runs = opts.runs ?? 3;
  const log = opts.log ?? (() => undefined);
  mkdirSync(opts.outDir, { recursive: true });
  const source = makeSource(opts.outDir, opts.seconds);
  const auto = new AudioDecoder();
  const inProcess = new AudioDecoder({ engine: 'in-process' });
  const control = uncontrolled();
  const formats: Record<string, unknown> = {};
  const ratios: Record<string, number | null> = {};

  for (const c of CASES) {
    const file = makeCase(opts.outDir, source, opts.seconds, c);
    // Only WAV and MP3 have an in-process decoder (decision 053); the other formats are ffmpeg's alone.
    const inProcessReads = await inProcess.decode(file, c.ext, control).then(
      () => true,
      () => false,
    );
    const ways = [async () => (await auto.decode(file, c.ext, control)).durationSeconds, () => plainFfmpeg(file)];
    if (inProcessReads) ways.push(async () => (await inProcess.decode(file, c.ext, control)).durationSeconds);
    const [viaDecoder, viaFfmpeg, viaInProcess] = (await bestOf(runs, ways)) as [Timing, Timing, Timing | undefined];
    const speed = (r: Timing | undefined) => (r === undefined ? null : round(r.audio / r.seconds, 0));
    const row = {
      file_bytes: statSync(file).size,
      audio_seconds: round(viaDecoder.audio, 3),
      engine: await auto.firstEngine(file),
      decoder_x: speed(viaDecoder),
      in_process_x: speed(viaInProcess),
      ffmpeg_x: speed(viaFfmpeg),
      decoder_vs_ffmpeg: ratio(speed(viaDecoder), speed(viaFfmpeg)),
      in_process_vs_ffmpeg: ratio(speed(viaInProcess), speed(viaFfmpeg)),
    };
    formats[c.name] = row;
    ratios[c.name] = row.decoder_vs_ffmpeg;
    log(
      `${c.name.padEnd(13)} ${row.engine.padEnd(10)} decoder ${String(row.decoder_x).padStart(5)}x  in-process ${String(row.in_process_x).padStart(5)}x  ffmpeg ${String(row.ffmpeg_x).padStart(5)}x`,
    );
  }
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: { seconds: opts.seconds, runs, source: '44.1 kHz stereo, a different espeak-ng voice per channel' },
    formats,
    ratios,
  };
}

function parseCli(argv: readonly string[]): { seconds: number; outDir: string; runs: number } {
  const flags = readFlags(
    argv,
    { seconds: { type: 'string' }, 'out-dir': { type: 'string' }, runs: { type: 'string' } },
    '--seconds N, --out-dir DIR, --runs N',
  );
  const opts = {
    seconds: flags.seconds === undefined ? 300 : Number(flags.seconds),
    outDir: flags['out-dir'] === undefined ? join(tmpdir(), 'mas-bench-decode') : resolve(flags['out-dir']),
    runs: flags.runs === undefined ? 3 : Number(flags.runs),
  };
  if (!(opts.seconds > 0) || !(opts.runs >= 1)) throw new FlagError('--seconds and --runs must be positive');
  return opts;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runCli(async () => {
    const opts = parseCli(process.argv.slice(2));
    const report = await benchDecode({ ...opts, log: (line) => process.stderr.write(`${line}\n`) });
    console.log(JSON.stringify(report, null, 2));
  });
}
