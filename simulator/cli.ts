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
import { SCORE_USAGE, ScoreInputError, scoreCommand, truthFormatsCommand } from './score/score-command.ts';
import { writeTruthFormats } from './truth-formats/truth-formats.ts';
import { DEVICES_USAGE, DevicesUsageError, devicesCommand } from './devices/cli.ts';
import { IMPORT_FORMATS, encodeFormat, isImportFormat } from './encode/encode-format.ts';
import type { ImportFormat } from './encode/encode-format.ts';
import { renderQmsum } from './qmsum/render-qmsum.ts';
import { QmsumSourceError, loadQmsumMeeting } from './qmsum/qmsum-source.ts';
import { QMSUM_DEFAULT_DESCRIPTION, defaultQmsumRepo } from './qmsum/qmsum-repo.ts';
import { estimateScriptDuration } from './scripts/estimate-duration.ts';
import { listScriptNames, loadScript } from './scripts/load-script.ts';
import { DYNAMICS_PROFILES } from './scripts/meeting-script.ts';
import type { DynamicsProfileName, MeetingScript } from './scripts/meeting-script.ts';
import { DEFAULT_CACHE_DIR, renderScript, truthPathFor } from './synth/render-script.ts';
import type { RenderOptions, RenderedMeeting } from './synth/render-script.ts';
import { SceneError, describePresets, resolveScene } from './scenes/scene.ts';
import { SCENE_FLAGS_USAGE, SCENE_FLAG_OPTIONS, hasSceneFlags, sceneFromFlags, seedFlag } from './scenes/scene-flags.ts';
import { MAX_CAST_SEED, VOICE_SETS, isCastSeed } from './synth/voices.ts';
import { PEOPLE, describeVoice } from './people/catalogue.ts';
import { PeopleCastError, parsePeopleCast } from './people/cast-people.ts';
import type { PeopleCast } from './people/cast-people.ts';
import type { VoiceSet } from './synth/voices.ts';

const USAGE = `Usage:
  node simulator/cli.ts render <script-name|path.json> --out <file> [--format <ext>] [--truth <file.json>]
                              [--dynamics natural|tidy] [--voices natural|espeak] [--cast-seed <n>] [--people=<id,...>]
                              [--sample-rate <hz>] [--channels <n>] [--cache <dir>]
      Synthesize a meeting script and write it in one import format.
      --dynamics how turns fall in time (decision 108). natural (default, unless the script's
                 "dynamics" says otherwise): pauses and overlaps drawn from AMI's statistics,
                 backchannels ("yeah", "uh-huh") from listeners, false starts, "um" and "uh";
                 drawn with --seed, and the truth marks what was added ("inserted").
                 tidy: every line 0.4 s after the last unless the script says otherwise.
      --voices   natural (default): speakers speak with the voice their script names
                 ("flite:kal16", "festival:cmu_us_slt_arctic_hts", "espeak:en-us+f3"),
                 others get Flite and Festival voices, pitch and pace varied where
                 speakers outnumber voices; espeak: every speaker speaks with espeak-ng.
                 The truth file lists each speaker's engine, voice, pitch and pace.
      --cast-seed draws which speaker gets which voice (and the pitch and pace of
                 repeated voices) from a seed, 0 to ${MAX_CAST_SEED}; the truth records it.
                 Default: the voice set's own order (decision 135).
      --people   recurring people cast into the speakers in order, e.g. --people=raj,,dana (an empty
                 entry keeps that speaker): each speaks with their fixed voice under their name, and
                 the truth names them (speakers[].person; the RTTM's and STM's speaker is the id).
                 People: ${PEOPLE.map((p) => p.id).join(', ')} (simulator/people/catalogue.ts, decision 151).
      --format   one of ${IMPORT_FORMATS.join(', ')}; default: the extension of --out
      --truth    where to write the ground truth; default: beside --out as <name>.truth.json;
                 its RTTM, STM, CTM and SegLST go beside it (<name>.rttm, .stm, .ctm, .seglst.json)
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
  node simulator/cli.ts render-qmsum <meeting.json|val/<id>|train/<id>> --out <file> [--minutes <n>] [--turns <n>]
                              [--qmsum-repo <dir>] [the render flags above, scene flags included]
      Render a real meeting transcript from QMSum (decision 080): one natural voice per
      participant, their turns in order (natural dynamics unless --dynamics tidy; its own
      "um"s and "yeah"s count towards the profile's shares), disfluencies kept, markup ({vocalsound}, {disfmarker},
      {gap}, ...) dropped. The truth file adds "qmsum": source, turns spoken and the human
      summary of the whole meeting. val/<id> and train/<id> read a git copy of QMSum;
      the test split is never read.
      --qmsum-repo  default ${QMSUM_DEFAULT_DESCRIPTION}
      --minutes  about the first n minutes: whole turns, up to the first whose middle would fall
                 past n minutes (estimated from the text at 160 wpm)
      --turns    only the first n turns of the transcript
      Example: render-qmsum fixtures/qmsum/val/ES2006a-excerpt.json --out es.wav --turns 12
               render-qmsum val/ES2006a --out es.wav --minutes 5 --scene office
  node simulator/cli.ts list
      The scripts in fixtures/meetings/ with speakers, lines and estimated duration.
  node simulator/cli.ts people
      The recurring people render --people casts: id, name and voice (decision 151).
  node simulator/cli.ts broken --out <dir> [--script <name>] [--seed <n>] [--cache <dir>]
      Write files an import must refuse, with manifest.json.
${SCORE_USAGE}
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

/**
 * Renders with `renderWav` and writes the result in `format`: straight to
 * --out for a 16 kHz mono WAV, else through a temporary WAV and ffmpeg.
 */
async function renderToFile<R extends RenderedMeeting>(
  out: string,
  format: ImportFormat,
  title: string,
  sampleRate: number | undefined,
  channels: number | undefined,
  renderWav: (wav: string) => Promise<R>,
): Promise<R> {
  if (format === 'wav' && sampleRate === undefined && channels === undefined) return renderWav(out);
  const work = await mkdtemp(path.join(tmpdir(), 'simulator-render-'));
  try {
    const result = await renderWav(path.join(work, 'meeting.wav'));
    await encodeFormat(result.wav, format, out, {
      title,
      ...(sampleRate !== undefined ? { sampleRate } : {}),
      ...(channels !== undefined ? { channels } : {}),
    });
    return result;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The flags render and render-qmsum share: output, format, truth, voices, cache and the acoustic scene. */
const RENDER_FLAG_OPTIONS = {
  out: { type: 'string' },
  format: { type: 'string' },
  truth: { type: 'string' },
  'sample-rate': { type: 'string' },
  channels: { type: 'string' },
  cache: { type: 'string' },
  ...SCENE_FLAG_OPTIONS,
  voices: { type: 'string' },
  'cast-seed': { type: 'string' },
  people: { type: 'string' },
  dynamics: { type: 'string' },
} as const;

type RenderFlagValues = ReturnType<typeof parseArgs<{ options: typeof RENDER_FLAG_OPTIONS }>>['values'];

interface RenderFlags {
  out: string;
  format: ImportFormat;
  truthPath: string;
  sampleRate: number | undefined;
  channels: number | undefined;
  voiceSet: VoiceSet | undefined;
  dynamics: DynamicsProfileName | undefined;
  seed: number | undefined;
  castSeed: number | undefined;
  people: PeopleCast | undefined;
}

/** Checks the shared render flags before the (slow) synthesis, so a typo fails at once. */
function renderFlags(command: string, values: RenderFlagValues): RenderFlags {
  if (values.voices !== undefined && !(VOICE_SETS as readonly string[]).includes(values.voices)) {
    throw new UsageError(`--voices expects one of ${VOICE_SETS.join(', ')}, got "${values.voices}"`);
  }
  if (values.dynamics !== undefined && !(DYNAMICS_PROFILES as readonly string[]).includes(values.dynamics)) {
    throw new UsageError(`--dynamics expects one of ${DYNAMICS_PROFILES.join(', ')}, got "${values.dynamics}"`);
  }
  const castSeed = values['cast-seed'] === undefined ? undefined : Number(values['cast-seed']);
  if (castSeed !== undefined && (values['cast-seed']!.trim() === '' || !isCastSeed(castSeed)))
    throw new UsageError(`--cast-seed expects an integer from 0 to ${MAX_CAST_SEED}, got "${values['cast-seed']}"`);
  let people: PeopleCast | undefined;
  try {
    people = values.people === undefined ? undefined : parsePeopleCast(values.people);
  } catch (error) {
    if (error instanceof PeopleCastError) throw new UsageError(`--people: ${error.message}`);
    throw error;
  }
  if (values.out === undefined) throw new UsageError(`${command} needs --out <file>`);
  const format = values.format ?? path.extname(values.out).slice(1).toLowerCase();
  if (!isImportFormat(format)) {
    throw new UsageError(
      values.format === undefined
        ? `cannot tell the format from "${values.out}"; give --format`
        : `unknown format "${format}"; expected one of ${IMPORT_FORMATS.join(', ')}`,
    );
  }
  let seed: number | undefined;
  try {
    seed = seedFlag(values);
    if (hasSceneFlags(values)) resolveScene(sceneFromFlags(values), seed);
  } catch (error) {
    if (error instanceof SceneError) throw new UsageError(error.message);
    throw error;
  }
  return {
    out: values.out,
    format,
    truthPath: values.truth ?? truthPathFor(values.out),
    sampleRate: positiveInt(values['sample-rate'], '--sample-rate'),
    channels: positiveInt(values.channels, '--channels'),
    voiceSet: values.voices as VoiceSet | undefined,
    dynamics: values.dynamics as DynamicsProfileName | undefined,
    seed,
    castSeed,
    people,
  };
}

/**
 * renderScript's options from the shared flags; `script` gives its own scene,
 * which scene flags override field by field, and its own dynamics, which
 * --dynamics overrides. The command line renders natural dynamics when
 * neither says (decision 108); renderScript itself keeps tidy for its callers.
 */
function renderOptionsFrom(values: RenderFlagValues, flags: RenderFlags, script: Pick<MeetingScript, 'scene' | 'dynamics'>): RenderOptions {
  const scriptScene = script.scene;
  return {
    truthPath: flags.truthPath,
    dynamics: flags.dynamics ?? script.dynamics ?? 'natural',
    ...(values.cache !== undefined ? { cacheDir: values.cache } : {}),
    ...(flags.voiceSet !== undefined ? { voiceSet: flags.voiceSet } : {}),
    ...(hasSceneFlags(values) ? { scene: sceneFromFlags(values, scriptScene) } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
    ...(flags.castSeed !== undefined ? { castSeed: flags.castSeed } : {}),
    ...(flags.people !== undefined ? { people: flags.people } : {}),
  };
}

/** Prints what a render wrote, after writing the truth's standard formats beside it (truth-formats.ts). */
async function reportRender(values: RenderFlagValues, flags: RenderFlags, result: RenderedMeeting, elapsed: number): Promise<void> {
  const formats = await writeTruthFormats(result.truth, flags.truthPath);
  console.log(
    `${flags.out}: ${formatDuration(result.duration)} of audio (${result.truth.words.length} words, ${result.truth.turns.length} turns) in ${elapsed.toFixed(1)} s`,
  );
  console.log(
    `${flags.truthPath}: ground truth (scene ${result.truth.scene.preset}${hasSceneFlags(values) ? ' with flags' : ''}, dynamics ${result.truth.dynamics?.profile ?? 'tidy'}, seed ${result.truth.scene.seed})`,
  );
  console.log(`${Object.values(formats).join(', ')}: the truth as RTTM, STM, CTM and SegLST`);
}

async function render(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: RENDER_FLAG_OPTIONS });
  if (positionals.length !== 1) throw new UsageError(`render expects one script name or path, got ${positionals.length}`);
  const flags = renderFlags('render', values);
  const script = await loadScript(positionals[0]!); // checked above: exactly one positional
  if (flags.people !== undefined && flags.people.length > script.speakers.length)
    throw new UsageError(`--people names ${flags.people.length} people; the script has ${script.speakers.length} speakers`);
  const options = renderOptionsFrom(values, flags, script);
  const started = performance.now();
  const result = await renderToFile(flags.out, flags.format, script.title, flags.sampleRate, flags.channels, (wav) =>
    renderScript(script, wav, options),
  );
  await reportRender(values, flags, result, (performance.now() - started) / 1000);
}

function positiveNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} expects a positive number, got "${value}"`);
  return n;
}

async function renderQmsumCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...RENDER_FLAG_OPTIONS, minutes: { type: 'string' }, turns: { type: 'string' }, 'qmsum-repo': { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError(`render-qmsum expects one meeting (file.json or val/<id>), got ${positionals.length}`);
  const flags = renderFlags('render-qmsum', values);
  const minutes = positiveNumber(values.minutes, '--minutes');
  const turns = positiveInt(values.turns, '--turns');
  let loaded;
  try {
    loaded = await loadQmsumMeeting(positionals[0]!, values['qmsum-repo'] ?? defaultQmsumRepo());
  } catch (error) {
    // Asking for the test split is a mistake on the command line, not a failure.
    if (error instanceof QmsumSourceError && /test split/.test(error.message)) throw new UsageError(error.message);
    throw error;
  }
  // QMSum's speakers are roles ("Project Manager"), not first names to replace in the talk.
  const options = { ...renderOptionsFrom(values, flags, {}), renameMentions: false };
  const started = performance.now();
  const result = await renderToFile(flags.out, flags.format, `QMSum ${loaded.meeting}`, flags.sampleRate, flags.channels, (wav) =>
    renderQmsum(loaded, wav, { ...options, ...(minutes !== undefined ? { minutes } : {}), ...(turns !== undefined ? { turns } : {}) }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await reportRender(values, flags, result, elapsed);
  const q = result.truth.qmsum;
  console.log(
    `QMSum ${q.meeting} (${q.split ?? 'split unknown'}, ${q.domain}): turns ${q.turns_considered} of ${q.turns_total} (${q.turns_dropped_markup_only} markup only), ${result.truth.speakers.length} speakers; ${(elapsed / (result.duration / 60)).toFixed(1)} s of rendering per minute of audio`,
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
      case 'render-qmsum':
        await renderQmsumCommand(rest);
        return 0;
      case 'list':
        await list(rest);
        return 0;
      case 'people':
        if (rest.length > 0) throw new UsageError(`people takes no arguments, got "${rest.join(' ')}"`);
        for (const p of PEOPLE) console.log(`${p.id.padEnd(6)}  ${p.name.padEnd(15)}  ${describeVoice(p)}`);
        return 0;
      case 'broken':
        await broken(rest);
        return 0;
      case 'score':
        return await scoreCommand(rest);
      case 'truth-formats':
        return await truthFormatsCommand(rest);
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
    // A bad truth or hypothesis file: the one line that names it, no usage.
    if (error instanceof ScoreInputError) {
      console.error(`error: ${error.message}`);
      return 2;
    }
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
