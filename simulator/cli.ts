/**
 * The simulator's command line: render meeting scripts to any import format,
 * list the scripts, write the broken-fixture set, and plug, unplug or break
 * simulated devices of a running gateway (devices, through its Control API).
 *
 * Exit codes: 0 done, 1 the work failed (bad script, tool missing or failing),
 * 2 the command line itself is wrong.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateBrokenFixtures } from './broken/generate-broken-fixtures.ts';
import { DEVICES_USAGE, DevicesUsageError, devicesCommand } from './devices/cli.ts';
import { IMPORT_FORMATS, encodeFormat, isImportFormat } from './encode/encode-format.ts';
import { estimateScriptDuration } from './scripts/estimate-duration.ts';
import { listScriptNames, loadScript } from './scripts/load-script.ts';
import { DEFAULT_CACHE_DIR, renderScript, truthPathFor } from './synth/render-script.ts';
import { SceneError, describePresets, resolveScene } from './scenes/scene.ts';
import { SCENE_FLAGS_USAGE, SCENE_FLAG_OPTIONS, hasSceneFlags, sceneFromFlags, seedFlag } from './scenes/scene-flags.ts';
import { VOICE_SETS } from './synth/voices.ts';
import type { VoiceSet } from './synth/voices.ts';

const USAGE = `Usage:
  node simulator/cli.ts render <script-name|path.json> --out <file> [--format <ext>] [--truth <file.json>]
                              [--voices natural|espeak] [--sample-rate <hz>] [--channels <n>] [--cache <dir>]
      Synthesize a meeting script and write it in one import format.
      --voices   natural (default): speakers speak with the voice their script names
                 ("flite:kal16", "festival:cmu_us_slt_arctic_hts", "espeak:en-us+f3"),
                 others get Flite and Festival voices, pitch and pace varied where
                 speakers outnumber voices; espeak: every speaker speaks with espeak-ng.
                 The truth file lists each speaker's engine, voice, pitch and pace.
      --format   one of ${IMPORT_FORMATS.join(', ')}; default: the extension of --out
      --truth    where to write the ground truth; default: beside --out as <name>.truth.json
      --sample-rate, --channels   resample the encoded file (the render is 16 kHz mono)
      --cache    synthesizer cache; default ${path.relative(process.cwd(), DEFAULT_CACHE_DIR) || DEFAULT_CACHE_DIR} (or $SIMULATOR_CACHE_DIR)
    Acoustic scene (written into the truth file; the truth's words and times never change with it):
${SCENE_FLAGS_USAGE}
      Scene presets:
${describePresets()
  .map((line) => `        ${line}`)
  .join('\n')}
      Example: render two-person-call --out call.mp3 --scene office --seed 7
               render two-person-call --out call.wav --rt60 0.6 --noise babble:10,keyboard:25 --channel opus:12
  node simulator/cli.ts list
      The scripts in fixtures/meetings/ with speakers, lines and estimated duration.
  node simulator/cli.ts broken --out <dir> [--script <name>] [--seed <n>] [--cache <dir>]
      Write files an import must refuse, with manifest.json.
${DEVICES_USAGE}

Example:
  node simulator/cli.ts render two-person-call --out call.mp3                  # natural voices
  node simulator/cli.ts render two-person-call --out call.wav --voices espeak  # espeak-ng only

Exit codes: 0 done, 1 failed, 2 bad command line.`;

/** A mistake on the command line: printed with the usage, exit code 2. */
class UsageError extends Error {}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} expects a positive integer, got "${value}"`);
  return n;
}

function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

async function render(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      format: { type: 'string' },
      truth: { type: 'string' },
      'sample-rate': { type: 'string' },
      channels: { type: 'string' },
      cache: { type: 'string' },
      ...SCENE_FLAG_OPTIONS,
      voices: { type: 'string' },
    },
  });
  if (values.voices !== undefined && !(VOICE_SETS as readonly string[]).includes(values.voices)) {
    throw new UsageError(`--voices expects one of ${VOICE_SETS.join(', ')}, got "${values.voices}"`);
  }
  const voiceSet = values.voices as VoiceSet | undefined;
  if (positionals.length !== 1) throw new UsageError(`render expects one script name or path, got ${positionals.length}`);
  if (values.out === undefined) throw new UsageError('render needs --out <file>');
  const format = values.format ?? path.extname(values.out).slice(1).toLowerCase();
  if (!isImportFormat(format)) {
    throw new UsageError(
      values.format === undefined
        ? `cannot tell the format from "${values.out}"; give --format`
        : `unknown format "${format}"; expected one of ${IMPORT_FORMATS.join(', ')}`,
    );
  }
  const sampleRate = positiveInt(values['sample-rate'], '--sample-rate');
  const channels = positiveInt(values.channels, '--channels');

  let seed: number | undefined;
  try {
    seed = seedFlag(values);
    // Flags are checked before the (slow) synthesis, so a typo fails at once.
    if (hasSceneFlags(values)) resolveScene(sceneFromFlags(values), seed);
  } catch (error) {
    if (error instanceof SceneError) throw new UsageError(error.message);
    throw error;
  }

  const script = await loadScript(positionals[0]!); // checked above: exactly one positional
  const truthPath = values.truth ?? truthPathFor(values.out);
  const cache = {
    ...(values.cache !== undefined ? { cacheDir: values.cache } : {}),
    ...(voiceSet !== undefined ? { voiceSet } : {}),
    ...(hasSceneFlags(values) ? { scene: sceneFromFlags(values, script.scene) } : {}),
    ...(seed !== undefined ? { seed } : {}),
  };
  const started = performance.now();
  const directWav = format === 'wav' && sampleRate === undefined && channels === undefined;
  let result;
  if (directWav) {
    result = await renderScript(script, values.out, { ...cache, truthPath });
  } else {
    const work = await mkdtemp(path.join(tmpdir(), 'simulator-render-'));
    try {
      result = await renderScript(script, path.join(work, 'meeting.wav'), { ...cache, truthPath });
      await encodeFormat(result.wav, format, values.out, {
        title: script.title,
        ...(sampleRate !== undefined ? { sampleRate } : {}),
        ...(channels !== undefined ? { channels } : {}),
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const elapsed = (performance.now() - started) / 1000;
  console.log(
    `${values.out}: ${formatDuration(result.duration)} of audio (${result.truth.words.length} words, ${result.truth.turns.length} turns) in ${elapsed.toFixed(1)} s`,
  );
  console.log(
    `${truthPath}: ground truth (scene ${result.truth.scene.preset}${hasSceneFlags(values) ? ' with flags' : ''}, seed ${result.truth.scene.seed})`,
  );
}

async function list(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`list takes no arguments, got "${args.join(' ')}"`);
  const rows = [['script', 'speakers', 'lines', 'est. duration', 'title']];
  for (const name of await listScriptNames()) {
    const script = await loadScript(name);
    const estimate = estimateScriptDuration(script);
    rows.push([name, String(script.speakers.length), String(script.lines.length), formatDuration(estimate.total), script.title]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const row of rows) console.log(row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  '));
}

async function broken(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { out: { type: 'string' }, script: { type: 'string' }, seed: { type: 'string' }, cache: { type: 'string' } },
  });
  if (positionals.length > 0) throw new UsageError(`broken takes no positional arguments, got "${positionals.join(' ')}"`);
  if (values.out === undefined) throw new UsageError('broken needs --out <dir>');
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed)) throw new UsageError(`--seed expects an integer, got "${values.seed}"`);
  const fixtures = await generateBrokenFixtures(values.out, {
    ...(values.script !== undefined ? { script: values.script } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(values.cache !== undefined ? { cacheDir: values.cache } : {}),
  });
  for (const f of fixtures) console.log(`${path.join(values.out, f.file)}  ${f.kind}`);
  console.log(`${path.join(values.out, 'manifest.json')}: ${fixtures.length} fixtures`);
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'render':
        await render(rest);
        return 0;
      case 'list':
        await list(rest);
        return 0;
      case 'broken':
        await broken(rest);
        return 0;
      case 'devices':
        await devicesCommand(rest);
        return 0;
      case 'help':
      case '--help':
      case '-h':
        console.log(USAGE);
        return 0;
      case undefined:
        throw new UsageError('no command given');
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    // parseArgs reports unknown or malformed flags with codes starting ERR_PARSE_ARGS.
    const code = (error as NodeJS.ErrnoException).code;
    if (
      error instanceof UsageError ||
      error instanceof DevicesUsageError ||
      (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
    ) {
      console.error(`error: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    console.error(`error: ${(error as Error).message}`);
    return 1;
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
