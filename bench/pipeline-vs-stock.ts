/**
 * Where the pipeline loses words against the recognizer run alone: the
 * same recording decoded by stock whole-file pocketsphinx (bench/quality.ts's
 * `wer_stock`: `pocketsphinx_continuous -infile <wav>`, no option; beside
 * it the same with the recognizer's search bounds, POCKETSPHINX_SEARCH_ARGS)
 * and by the pipeline's path without bias (front end auto → voice activity with the vad
 * section's defaults → PocketSphinxRecognizer on the speech regions), both
 * aligned against the reference. A reference word the stock decoder gets
 * and the pipeline misses is a loss; each is placed against the regions the
 * recognizer decoded: outside every region (voice activity dropped it),
 * within 0.3 s of a region's start or end (its edge), or inside; and in a
 * short region (under 1.5 s) or not.
 *
 * Variants change only what the recognizer is given (the regions, or how
 * its file is laid out), so each candidate fix is measured on the same
 * audio: `regions-apart` (the speech regions laid end to end when they
 * cover under 90 % of the recording, as decisions 094 to 104 decoded them;
 * the pipeline now decodes the recording with its pauses, decision 120),
 * `one-region` (the whole recording as one region: the front end and the
 * recognizer's options alone),
 * `pad:<ms>` (every region widened for the recognizer only), `merge:<s>`
 * (regions closer than that decoded as one).
 *
 * Inputs: real recorded speech (pocketsphinx-testdata, as
 * bench/quality-real-speech.ts reads it): `librivox` (one reader), `cards`
 * (another), and `talkers`: the two sets' recordings interleaved, a reading
 * then a card name, each file with its own lead-in and tail, so real speech
 * has the many turns and short regions of a meeting; `talkers-paused`: the
 * same with 1.5 s of each reading's own room tone before it, so voice
 * activity leaves the pauses out and the regions cover under 90 % of the
 * recording (the readings alone are cut too tightly for that). A set
 * `script:<name>` is a quality-matrix meeting rendered as the quality bench
 * renders it (natural voices, the cell's seed): for reporting only, no
 * setting is chosen on it. Scenes are simulator/scenes presets laid over
 * the real speech (clean: as recorded).
 *
 * Pauses (recordings that are not nearly all speech, decision 120):
 * `--pause-seconds S` puts S seconds between the readings of a real set
 * (`--pause-kind tone`, the next reading's own room tone, or `silence`,
 * digital zeros as `sox … pad` or a concatenation with silence writes them)
 * and between the turns of a script set (every line after the first starts
 * S seconds after the one before ends; a scripted overlap becomes such a
 * pause). `--speaker-voices V,V` names a script set's voices
 * (bench/quality-cast.ts withSpeakerVoices), e.g. four Flite voices.
 * `--processes N` is the recognizer's process count (default one per core,
 * as in the gateway); `--wav-dir DIR` keeps the recordings there (to import
 * them through the gateway). `--dynamics natural` renders a script set with
 * the natural conversation dynamics (decision 108), as
 * `npm run bench -- --only quality --dynamics natural` does: the same bytes.
 *
 *   node bench/pipeline-vs-stock.ts [--sets librivox,cards,talkers,script:two-person-call]
 *       [--scenes clean,reverb-only] [--variants pipeline,regions-apart,one-region,pad:200,merge:1] [--out <file.json>]
 *       [--pause-seconds S] [--pause-kind tone|silence] [--speaker-voices V,V] [--processes N] [--wav-dir DIR]
 *       [--dynamics tidy|natural]
 *
 * One line per cell and variant; `--out` writes every cell, lost words
 * included, as JSON, with each decode's CPU seconds per audio second (from
 * /proc, the recognizer's processes included); the whole run's CPU seconds
 * are printed at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWav } from '../common/audio/wav.ts';
import { POCKETSPHINX_SEARCH_ARGS, PocketSphinxRecognizer } from '../server/adapters/asr/pocketsphinx.ts';
import { planDecodeGroups, type SpanLayout } from '../server/adapters/asr/spans.ts';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { enhanceSpeech } from '../server/pipeline/enhance/front-end.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled, type PcmAudio, type SpeechRegion } from '../server/pipeline/types.ts';
import { detectSpeech } from '../server/pipeline/vad.ts';
import { applyScene, resolveScene } from '../simulator/scenes/scene.ts';
import { normalizeWords } from '../simulator/score/normalize-words.ts';
import { alignWords, wordErrorRate } from '../simulator/score/word-error-rate.ts';
import { loadScript } from '../simulator/scripts/load-script.ts';
import { renderScript } from '../simulator/synth/render-script.ts';
import { withSpeakerVoices } from './quality-cast.ts';
import { QUALITY_SEED, stockWholeFileWords } from './quality.ts';
import { readPcm16Wav, REAL_SPEECH_SETS } from './quality-real-speech.ts';
import { cpuSecondsWithChildren, FlagError, readFlags, runCli } from './lib.ts';
import { DYNAMICS_PROFILES, type DynamicsProfileName, type MeetingScript } from '../simulator/scripts/meeting-script.ts';

/** A reference word with the stretch of the recording it lies in (its own times, or its reading's). */
interface ReferenceWord {
  text: string;
  start: number;
  end: number;
}

interface Input {
  set: string;
  scene: string;
  /** The file stock decoding reads: what the gateway would be given. */
  wav: string;
  reference: ReferenceWord[];
}

/** Seconds of room tone between turns in the `talkers-paused` set: enough that voice activity leaves pauses out. */
const TURN_PAUSE_SECONDS = 1.5;
/** The stretch at the head of every reading that holds its room's background (the readings are cut tightly: 0.1-0.2 s). */
const ROOM_TONE_SECONDS = 0.1;

/** What goes between readings or turns (--pause-seconds, --pause-kind); null: the set's own arrangement. */
interface Pauses {
  seconds: number;
  kind: 'tone' | 'silence';
}

/**
 * Real speech: the set's readings end to end, each word timed by its
 * reading. talkers: the two sets interleaved; talkers-paused: the same with
 * a pause of room tone before each reading, so voice activity finds several
 * regions with pauses between them, as in a meeting.
 * With `pauses`, every set gets that pause before each reading but the first.
 */
function realSpeech(set: string, pauses: Pauses | null): { samples: Float32Array; reference: ReferenceWord[] } {
  const readings =
    set === 'talkers' || set === 'talkers-paused'
      ? interleave(REAL_SPEECH_SETS['librivox']!(), REAL_SPEECH_SETS['cards']!())
      : (REAL_SPEECH_SETS[set]?.() ?? fail(`no real-speech set "${set}"`));
  const pause = pauses ?? (set === 'talkers-paused' ? { seconds: TURN_PAUSE_SECONDS, kind: 'tone' as const } : null);
  const parts = readings.flatMap((u, i) => {
    const samples = readPcm16Wav(u.file);
    const reading = { samples, words: u.words };
    if (pause === null || i === 0) return [reading];
    const gap =
      pause.kind === 'tone' ? roomTone(samples, pause.seconds) : new Float32Array(Math.round(pause.seconds * PIPELINE_SAMPLE_RATE));
    return [{ samples: gap, words: [] }, reading];
  });
  const samples = new Float32Array(parts.reduce((n, p) => n + p.samples.length, 0));
  const reference: ReferenceWord[] = [];
  let at = 0;
  for (const p of parts) {
    samples.set(p.samples, at);
    const start = at / PIPELINE_SAMPLE_RATE;
    const end = (at + p.samples.length) / PIPELINE_SAMPLE_RATE;
    for (const w of p.words) reference.push({ text: w, start, end });
    at += p.samples.length;
  }
  return { samples, reference };
}

/** A script with every turn after the first `seconds` after the previous one ends (its overlaps too). */
function withPauses(script: MeetingScript, seconds: number | null): MeetingScript {
  if (seconds === null) return script;
  return {
    ...script,
    lines: script.lines.map((line, i) => {
      const { overlap: _overlap, pause_before: _pause, ...rest } = line;
      return i === 0 ? line : { ...rest, pause_before: seconds };
    }),
  };
}

/**
 * A pause of the reading's own room: its lead-in background, tiled
 * forwards and backwards in turn so the joins are continuous. Digital
 * silence would be a noise floor no microphone has.
 */
function roomTone(reading: Float32Array, seconds: number): Float32Array {
  const tone = reading.subarray(0, Math.round(ROOM_TONE_SECONDS * PIPELINE_SAMPLE_RATE));
  const out = new Float32Array(Math.round(seconds * PIPELINE_SAMPLE_RATE));
  const n = tone.length;
  for (let i = 0; i < out.length; i++) {
    const k = i % (2 * n);
    out[i] = tone[k < n ? k : 2 * n - 1 - k]!;
  }
  return out;
}

function interleave<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]!);
    if (i < b.length) out.push(b[i]!);
  }
  return out;
}

function fail(message: string): never {
  throw new Error(message);
}

interface Arrangement {
  pauses: Pauses | null;
  speakerVoices: readonly string[] | null;
  /** How a script's turns fall in time (--dynamics, decision 108), as the quality bench renders them. */
  dynamics: DynamicsProfileName;
}

async function prepare(set: string, scene: string, work: string, arrangement: Arrangement): Promise<Input> {
  const wav = join(work, `${set.replace(/[^a-z0-9-]/gi, '_')}.${scene}.wav`);
  if (set.startsWith('script:')) {
    const script = withPauses(
      withSpeakerVoices(await loadScript(set.slice('script:'.length)), arrangement.speakerVoices),
      arrangement.pauses?.seconds ?? null,
    );
    const rendered = await renderScript(script, wav, { voiceSet: 'natural', scene, seed: QUALITY_SEED, dynamics: arrangement.dynamics });
    return { set, scene, wav, reference: rendered.truth.words.map((w) => ({ text: w.text, start: w.start, end: w.end })) };
  }
  const real = realSpeech(set, arrangement.pauses);
  const samples =
    scene === 'clean'
      ? real.samples
      : await applyScene([{ speaker: 'reader', samples: real.samples }], PIPELINE_SAMPLE_RATE, resolveScene(scene, 1));
  const pcm = Int16Array.from(samples, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));
  writeFileSync(wav, encodeWav({ sampleRate: PIPELINE_SAMPLE_RATE, channels: 1, samples: pcm }));
  return { set, scene, wav, reference: real.reference };
}

// ── Variants: what the recognizer is given ─────────────────────────────────

type Variant = (regions: readonly SpeechRegion[], duration: number) => SpeechRegion[];

/** How the recognizer lays out its file for a variant: regions-apart is the layout before decision 120. */
function layoutOf(name: string): SpanLayout {
  return name === 'regions-apart' ? 'regions' : 'recording';
}

function variant(name: string): Variant {
  if (name === 'pipeline' || name === 'regions-apart') return (regions) => [...regions];
  if (name === 'one-region') return (_regions, duration) => [{ start: 0, end: duration }];
  const [kind, value] = name.split(':');
  const v = Number(value);
  if (kind === 'pad' && Number.isFinite(v))
    return (regions, duration) =>
      mergeOverlaps(regions.map((r) => ({ start: Math.max(0, r.start - v / 1000), end: Math.min(duration, r.end + v / 1000) })));
  if (kind === 'merge' && Number.isFinite(v))
    return (regions) => {
      const out: SpeechRegion[] = [];
      for (const r of regions) {
        const last = out.at(-1);
        if (last !== undefined && r.start - last.end < v) last.end = Math.max(last.end, r.end);
        else out.push({ ...r });
      }
      return out;
    };
  return fail(`--variants: no variant "${name}" (pipeline, regions-apart, one-region, pad:<ms>, merge:<s>)`);
}

function mergeOverlaps(regions: readonly SpeechRegion[]): SpeechRegion[] {
  const out: SpeechRegion[] = [];
  for (const r of regions) {
    const last = out.at(-1);
    if (last !== undefined && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

// ── Where the lost words lie ───────────────────────────────────────────────

const EDGE_SECONDS = 0.3;
const SHORT_REGION_SECONDS = 1.5;

/** The reference as the WER scorer counts it: normalized tokens (a word may give several), each keeping its word's times. */
function referenceTokens(words: readonly ReferenceWord[]): ReferenceWord[] {
  return words.flatMap((w) => normalizeWords(w.text).map((text) => ({ text, start: w.start, end: w.end })));
}

/** Per reference token: did this hypothesis get it (a match in the scorer's minimum-edit alignment)? */
function matched(reference: readonly ReferenceWord[], hypothesis: readonly string[]): boolean[] {
  const ok = new Array<boolean>(reference.length).fill(false);
  const steps = alignWords(
    reference.map((w) => w.text),
    hypothesis.flatMap((w) => normalizeWords(w)),
  );
  for (const step of steps) if (step.op === 'match') ok[step.ref] = true;
  return ok;
}

interface Placement {
  outside: number;
  edge_start: number;
  edge_end: number;
  inside: number;
  in_short_region: number;
}

function place(words: readonly ReferenceWord[], spans: readonly SpeechRegion[]): Placement {
  const p: Placement = { outside: 0, edge_start: 0, edge_end: 0, inside: 0, in_short_region: 0 };
  for (const w of words) {
    const mid = (w.start + w.end) / 2;
    const span = spans.find((s) => s.start <= mid && mid <= s.end) ?? spans.find((s) => s.start < w.end && w.start < s.end);
    if (span === undefined) {
      p.outside++;
      continue;
    }
    if (span.end - span.start < SHORT_REGION_SECONDS) p.in_short_region++;
    if (w.start - span.start < EDGE_SECONDS) p.edge_start++;
    else if (span.end - w.end < EDGE_SECONDS) p.edge_end++;
    else p.inside++;
  }
  return p;
}

interface VariantResult {
  variant: string;
  wer: number;
  regions: number;
  spans: number;
  groups: number;
  /** CPU seconds of the decode (user+sys, the recognizer's processes included) per second of the recording. */
  cpu_per_audio_second: number;
  lost: number;
  gained: number;
  lost_where: Placement;
  lost_words: string[];
}

interface CellOptions {
  variants: readonly string[];
  recognizer: (layout: SpanLayout) => PocketSphinxRecognizer;
  processes: number;
}

/** One recording: stock whole-file decoding, then the pipeline's path with each variant's regions. */
async function measureCell(input: Input, opts: CellOptions): Promise<unknown> {
  const { set, scene } = input;
  const vad = CONFIG_SECTIONS.vad.defaults;
  const tokens = referenceTokens(input.reference);
  const reference = input.reference.map((w) => w.text);
  const stock = await stockWholeFileWords(input.wav);
  const stockOk = matched(tokens, stock.split(/\s+/));
  const stockWer = wordErrorRate(reference, stock).wer;
  // The same decoder with the recognizer's search bounds: what the pipeline adds beyond its options.
  const stockSameOptionsWer = wordErrorRate(reference, await stockWholeFileWords(input.wav, POCKETSPHINX_SEARCH_ARGS)).wer;
  const audio: PcmAudio = await new AudioDecoder().decode(input.wav, 'wav', uncontrolled());
  const enhanced = await enhanceSpeech(
    audio,
    { enhancement: 'auto', denoise: vad.denoise, dereverberation: vad.dereverberation },
    uncontrolled(),
  );
  const found = detectSpeech(enhanced.audio, { ...vad });
  const covered = found.reduce((sum, r) => sum + r.end - r.start, 0) / Math.max(1e-9, audio.durationSeconds);
  const results: VariantResult[] = [];
  // Variants that lay out the same file decode to the same words: decoded once.
  const decoded = new Map<string, string[]>();
  for (const name of opts.variants) {
    const regions = variant(name)(found, enhanced.audio.durationSeconds);
    // The recognizer's own layout: what it merged and decoded, and how its processes share it.
    const layout = layoutOf(name);
    const grouped = planDecodeGroups(regions, enhanced.audio.durationSeconds, opts.processes, undefined, undefined, layout);
    const spans = grouped.plan.spans.map((s) => ({ start: s.sourceStart, end: s.sourceEnd }));
    const key = JSON.stringify(grouped);
    // CPU of this decode (the recognizer's processes are waited for, so their time is counted): 0 when decoded before.
    const cpuBefore = cpuSecondsWithChildren();
    const hyp =
      decoded.get(key) ??
      (
        await opts
          .recognizer(layout)
          .transcribe(enhanced.audio, regions, { language: 'en', customWords: [], initialPrompt: '' }, uncontrolled())
      ).map((w) => w.text);
    decoded.set(key, hyp);
    const cpu = cpuSecondsWithChildren() - cpuBefore;
    const ok = matched(tokens, hyp);
    const lost = tokens.filter((_, i) => stockOk[i] === true && ok[i] === false);
    const gained = tokens.filter((_, i) => stockOk[i] === false && ok[i] === true).length;
    const r: VariantResult = {
      variant: name,
      wer: round(wordErrorRate(reference, hyp).wer),
      regions: regions.length,
      spans: spans.length,
      groups: grouped.groups.length,
      cpu_per_audio_second: round(cpu / audio.durationSeconds),
      lost: lost.length,
      gained,
      lost_where: place(lost, spans),
      lost_words: lost.map((w) => `${w.text}@${w.start.toFixed(2)}`),
    };
    results.push(r);
    console.log(
      `${set} ${scene} ${name}: WER ${pct(r.wer)} against stock ${pct(stockWer)} (its options ${pct(stockSameOptionsWer)}); ${r.regions} regions (${pct(covered)} of ` +
        `${audio.durationSeconds.toFixed(1)} s) → ${r.spans} spans, ${r.groups} groups, CPU ${r.cpu_per_audio_second.toFixed(2)} s per audio s; lost ${r.lost}, gained ${r.gained}; lost: outside ` +
        `${r.lost_where.outside}, start edge ${r.lost_where.edge_start}, end edge ${r.lost_where.edge_end}, inside ` +
        `${r.lost_where.inside} (in short regions ${r.lost_where.in_short_region})`,
    );
  }
  return {
    set,
    scene,
    words: reference.length,
    seconds: round(audio.durationSeconds),
    speech_share: round(covered),
    front_end: { denoised: enhanced.denoised, dereverberated: enhanced.dereverberated },
    wer_stock: round(stockWer),
    wer_stock_same_options: round(stockSameOptionsWer),
    regions: found,
    variants: results,
  };
}

function readArrangement(values: {
  'pause-seconds'?: string;
  'pause-kind'?: string;
  'speaker-voices'?: string;
  dynamics?: string;
}): Arrangement {
  const seconds = values['pause-seconds'] === undefined ? null : Number(values['pause-seconds']);
  if (seconds !== null && !(Number.isFinite(seconds) && seconds >= 0))
    throw new FlagError('--pause-seconds: a number of seconds, 0 or more');
  const kind = values['pause-kind'] ?? 'tone';
  if (kind !== 'tone' && kind !== 'silence') throw new FlagError('--pause-kind: tone or silence');
  const dynamics = values.dynamics ?? 'tidy';
  if (!(DYNAMICS_PROFILES as readonly string[]).includes(dynamics))
    throw new FlagError(`--dynamics: no profile "${dynamics}"; known: ${DYNAMICS_PROFILES.join(', ')}`);
  return {
    dynamics: dynamics as DynamicsProfileName,
    pauses: seconds === null ? null : { seconds, kind },
    speakerVoices: values['speaker-voices']?.split(',').filter(Boolean) ?? null,
  };
}

async function main(): Promise<void> {
  const values = readFlags(
    process.argv.slice(2),
    {
      sets: { type: 'string' },
      scenes: { type: 'string' },
      variants: { type: 'string' },
      out: { type: 'string' },
      'pause-seconds': { type: 'string' },
      'pause-kind': { type: 'string' },
      'speaker-voices': { type: 'string' },
      processes: { type: 'string' },
      'wav-dir': { type: 'string' },
      dynamics: { type: 'string' },
    },
    'node bench/pipeline-vs-stock.ts [--sets S,S] [--scenes S,S] [--variants V,V] [--out FILE] [--pause-seconds S] [--pause-kind tone|silence] [--speaker-voices V,V] [--processes N] [--wav-dir DIR] [--dynamics tidy|natural]',
  );
  const list = (v: string | undefined, d: string[]) =>
    v
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? d;
  const sets = list(values.sets, ['librivox', 'cards', 'talkers', 'talkers-paused']);
  const scenes = list(values.scenes, ['clean', 'reverb-only']);
  const arrangement = readArrangement(values);
  const processes = values.processes === undefined ? undefined : Number(values.processes);
  if (processes !== undefined && !(Number.isInteger(processes) && processes >= 1))
    throw new FlagError('--processes: a whole number, 1 or more');
  const opts: CellOptions = {
    variants: list(values.variants, ['pipeline', 'regions-apart', 'one-region']),
    recognizer: (spanLayout) =>
      new PocketSphinxRecognizer({ vocabularyBias: 'off', spanLayout, processes: processes ?? availableParallelism() }),
    processes: processes ?? availableParallelism(),
  };
  // --wav-dir keeps the recordings (to import them through the gateway); otherwise a scratch folder, removed.
  const work = values['wav-dir'] ?? mkdtempSync(join(tmpdir(), 'mas-pipeline-vs-stock-'));
  const cells: unknown[] = [];
  const cpuBefore = cpuSecondsWithChildren();
  try {
    for (const set of sets) for (const scene of scenes) cells.push(await measureCell(await prepare(set, scene, work, arrangement), opts));
  } finally {
    if (values['wav-dir'] === undefined) rmSync(work, { recursive: true, force: true });
  }
  console.log(`CPU: ${(cpuSecondsWithChildren() - cpuBefore).toFixed(1)} s, this process and its children (user+sys)`);
  if (values.out !== undefined) writeFileSync(values.out, `${JSON.stringify(cells, null, 1)}\n`);
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

if (import.meta.url === `file://${process.argv[1]}`) await runCli(main);
