/**
 * Where the pipeline loses words against the recognizer run alone: the
 * same recording decoded by stock whole-file pocketsphinx (bench/quality.ts's
 * `wer_stock`: `pocketsphinx_continuous -infile <wav>`, no option) and by the
 * pipeline's path without bias (front end auto → voice activity with the vad
 * section's defaults → PocketSphinxRecognizer on the speech regions), both
 * aligned against the reference. A reference word the stock decoder gets
 * and the pipeline misses is a loss; each is placed against the regions the
 * recognizer decoded: outside every region (voice activity dropped it),
 * within 0.3 s of a region's start or end (its edge), or inside; and in a
 * short region (under 1.5 s) or not.
 *
 * Variants change only what the recognizer is given (the regions), so each
 * candidate fix is measured on the same audio: `one-region` (the whole
 * recording as one region: the front end and the recognizer's options alone),
 * `pad:<ms>` (every region widened for the recognizer only), `merge:<s>`
 * (regions closer than that decoded as one).
 *
 * Inputs: real recorded speech (pocketsphinx-testdata, as
 * bench/quality-real-speech.ts reads it): `librivox` (one reader), `cards`
 * (another), and `talkers`: the two sets' recordings interleaved, a reading
 * then a card name, each file with its own lead-in and tail, so real speech
 * has the many turns and short regions of a meeting; `talkers-paused`: the
 * same with 1.5 s of each reading's own room tone before it, so voice
 * activity leaves the pauses out and the recognizer decodes the regions
 * laid end to end (the readings alone are cut too tightly for that). A set
 * `script:<name>` is a quality-matrix meeting rendered as the quality bench
 * renders it (natural voices, the cell's seed): for reporting only, no
 * setting is chosen on it. Scenes are simulator/scenes presets laid over
 * the real speech (clean: as recorded).
 *
 *   node bench/pipeline-vs-stock.ts [--sets librivox,cards,talkers,script:two-person-call]
 *       [--scenes clean,reverb-only] [--variants pipeline,one-region,pad:200,merge:1] [--out <file.json>]
 *
 * One line per cell and variant; `--out` writes every cell, lost words
 * included, as JSON. CPU seconds (this process and its children) are printed
 * at the end: decoding dominates, about 0.65 CPU s per audio second per run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWav } from '../common/audio/wav.ts';
import { PocketSphinxRecognizer } from '../server/adapters/asr/pocketsphinx.ts';
import { planDecodeSpans } from '../server/adapters/asr/spans.ts';
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
import { QUALITY_SEED, stockWholeFileWords } from './quality.ts';
import { readPcm16Wav, REAL_SPEECH_SETS } from './quality-real-speech.ts';
import { readFlags, runCli } from './lib.ts';

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

/**
 * Real speech: the set's readings end to end, each word timed by its
 * reading. talkers: the two sets interleaved; talkers-paused: the same with
 * a pause of room tone before each reading, so voice activity finds several
 * regions and the recognizer decodes them laid end to end, as in a meeting.
 */
function realSpeech(set: string): { samples: Float32Array; reference: ReferenceWord[] } {
  const readings =
    set === 'talkers' || set === 'talkers-paused'
      ? interleave(REAL_SPEECH_SETS['librivox']!(), REAL_SPEECH_SETS['cards']!())
      : (REAL_SPEECH_SETS[set]?.() ?? fail(`no real-speech set "${set}"`));
  const paused = set === 'talkers-paused';
  const parts = readings.flatMap((u, i) => {
    const samples = readPcm16Wav(u.file);
    const reading = { samples, words: u.words };
    return paused && i > 0 ? [{ samples: roomTone(samples, TURN_PAUSE_SECONDS), words: [] }, reading] : [reading];
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

async function prepare(set: string, scene: string, work: string): Promise<Input> {
  const wav = join(work, `${set.replace(/[^a-z0-9-]/gi, '_')}.${scene}.wav`);
  if (set.startsWith('script:')) {
    const rendered = await renderScript(await loadScript(set.slice('script:'.length)), wav, {
      voiceSet: 'natural',
      scene,
      seed: QUALITY_SEED,
    });
    return { set, scene, wav, reference: rendered.truth.words.map((w) => ({ text: w.text, start: w.start, end: w.end })) };
  }
  const real = realSpeech(set);
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

function variant(name: string): Variant {
  if (name === 'pipeline') return (regions) => [...regions];
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
  return fail(`--variants: no variant "${name}" (pipeline, one-region, pad:<ms>, merge:<s>)`);
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
  lost: number;
  gained: number;
  lost_where: Placement;
  lost_words: string[];
}

async function main(): Promise<void> {
  const values = readFlags(
    process.argv.slice(2),
    { sets: { type: 'string' }, scenes: { type: 'string' }, variants: { type: 'string' }, out: { type: 'string' } },
    'node bench/pipeline-vs-stock.ts [--sets S,S] [--scenes S,S] [--variants V,V] [--out FILE]',
  );
  const list = (v: string | undefined, d: string[]) =>
    v
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? d;
  const sets = list(values.sets, ['librivox', 'cards', 'talkers', 'talkers-paused']);
  const scenes = list(values.scenes, ['clean', 'reverb-only']);
  const variants = list(values.variants, ['pipeline', 'one-region']);
  const vad = CONFIG_SECTIONS.vad.defaults;
  const recognizer = new PocketSphinxRecognizer({ vocabularyBias: 'off' });
  const work = mkdtempSync(join(tmpdir(), 'mas-pipeline-vs-stock-'));
  const cells: unknown[] = [];
  try {
    for (const set of sets) {
      for (const scene of scenes) {
        const input = await prepare(set, scene, work);
        const tokens = referenceTokens(input.reference);
        const reference = input.reference.map((w) => w.text);
        const stock = await stockWholeFileWords(input.wav);
        const stockOk = matched(tokens, stock.split(/\s+/));
        const stockWer = wordErrorRate(reference, stock).wer;
        const audio: PcmAudio = await new AudioDecoder().decode(input.wav, 'wav', uncontrolled());
        const enhanced = await enhanceSpeech(
          audio,
          { enhancement: 'auto', denoise: vad.denoise, dereverberation: vad.dereverberation },
          uncontrolled(),
        );
        const found = detectSpeech(enhanced.audio, { ...vad });
        const results: VariantResult[] = [];
        // Variants that lay out the same file decode to the same words: decoded once.
        const decoded = new Map<string, string[]>();
        for (const name of variants) {
          const regions = variant(name)(found, enhanced.audio.durationSeconds);
          // The recognizer's own layout: what it merged and decoded (the whole file when the regions cover nearly all of it).
          const plan = planDecodeSpans(regions, enhanced.audio.durationSeconds);
          const spans = plan.spans.map((s) => ({ start: s.sourceStart, end: s.sourceEnd }));
          const key = JSON.stringify(plan);
          const hyp =
            decoded.get(key) ??
            (
              await recognizer.transcribe(enhanced.audio, regions, { language: 'en', customWords: [], initialPrompt: '' }, uncontrolled())
            ).map((w) => w.text);
          decoded.set(key, hyp);
          const ok = matched(tokens, hyp);
          const lost = tokens.filter((_, i) => stockOk[i] === true && ok[i] === false);
          const gained = tokens.filter((_, i) => stockOk[i] === false && ok[i] === true).length;
          const r: VariantResult = {
            variant: name,
            wer: round(wordErrorRate(reference, hyp).wer),
            regions: regions.length,
            spans: spans.length,
            lost: lost.length,
            gained,
            lost_where: place(lost, spans),
            lost_words: lost.map((w) => `${w.text}@${w.start.toFixed(2)}`),
          };
          results.push(r);
          console.log(
            `${set} ${scene} ${name}: WER ${pct(r.wer)} against stock ${pct(stockWer)}; ${r.regions} regions → ${r.spans} spans; ` +
              `lost ${r.lost}, gained ${r.gained}; lost: outside ${r.lost_where.outside}, start edge ${r.lost_where.edge_start}, ` +
              `end edge ${r.lost_where.edge_end}, inside ${r.lost_where.inside} (in short regions ${r.lost_where.in_short_region})`,
          );
        }
        cells.push({
          set,
          scene,
          words: reference.length,
          seconds: round(audio.durationSeconds),
          front_end: { denoised: enhanced.denoised, dereverberated: enhanced.dereverberated },
          wer_stock: round(stockWer),
          regions: found,
          variants: results,
        });
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const usage = process.resourceUsage();
  const children = cpuOfChildren();
  console.log(
    `CPU: this process ${((usage.userCPUTime + usage.systemCPUTime) / 1e6).toFixed(1)} s, its children ${children.toFixed(1)} s (user+sys)`,
  );
  if (values.out !== undefined) writeFileSync(values.out, `${JSON.stringify(cells, null, 1)}\n`);
}

/** User+sys seconds of the waited-for children (pocketsphinx, ffmpeg, the synthesizers): /proc/self/stat fields cutime and cstime. */
function cpuOfChildren(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

if (import.meta.url === `file://${process.argv[1]}`) await runCli(main);
