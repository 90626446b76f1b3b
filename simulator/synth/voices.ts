/**
 * The voice registry: every synthesizer the simulator speaks with, behind one
 * call (synthesizeLine), and the choice of a voice for every script speaker.
 *
 * Engines:
 * - flite    (Debian flite): kal16, rms, awb, slt, kal. Word times from
 *            Flite's segment end times (-psdur), see segment-times.ts.
 * - festival (Debian festival + festvox-us-slt-hts): cmu_us_slt_arctic_hts.
 *            Word times from the utterance's Token/Word/Segment relations.
 * - espeak   (Debian espeak-ng): any English espeak-ng voice. espeak-ng
 *            reports no word times, so they are estimated (word-times.ts).
 *
 * Voice sets: "natural" (the default) gives unnamed speakers Flite and
 * Festival voices, which a stock recognizer understands (83 % WER on
 * espeak-ng speech against 17 % on kal16, issue 11); "espeak" renders every
 * speaker with espeak-ng, for machines without Flite and Festival (the
 * conformance suite). docs/decisions/026-natural-voices.md.
 *
 * Every line comes back as 16 kHz mono 16-bit samples with one time span per
 * word, cached on disk under a hash of the engine, its version and every
 * parameter, so a render is the same bytes every time.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runTool } from '../run-tool.ts';
import { seededRandom, type SeededRandom } from '../seeded-random.ts';
import { DEFAULT_RATE_WPM } from '../scripts/meeting-script.ts';
import type { MeetingScript, ScriptSpeaker } from '../scripts/meeting-script.ts';
import { espeakVersion, synthesize as espeakSynthesize } from './espeak.ts';
import { festivalSynthesize, festivalVersion } from './festival.ts';
import { fliteFollowsPitchTarget, fliteSynthesize, fliteVersion } from './flite.ts';
import type { WordTime } from './segment-times.ts';
import { speechSpan } from './speech-activity.ts';
import { encodeWav, parseWav } from '../../common/audio/wav.ts';
import { MEASURE_WORD_GAP, characterWeight, layOutWords, tokenizeLine, wordLengths } from './word-times.ts';
import type { WordLengthSource } from './word-times.ts';

/** The sample rate every line is delivered at, the rate of the rendered meeting. */
export const LINE_SAMPLE_RATE = 16_000;

export type EngineName = 'flite' | 'festival' | 'espeak';

export const VOICE_SETS = ['natural', 'espeak'] as const;
export type VoiceSet = (typeof VOICE_SETS)[number];

/** One speaker's voice, fully resolved: what the truth file records per speaker. */
export interface VoiceChoice {
  engine: EngineName;
  /** The engine's own voice name: "kal16", "cmu_us_slt_arctic_hts", "en-us+f3". */
  voice: string;
  /**
   * Semitones added to the voice's own pitch (flite, festival). For espeak
   * the pitch is espeak-ng's own 0–99 scale in `espeak_pitch` instead.
   */
  pitch_shift: number;
  /** Words per minute, on espeak-ng's scale for every engine (NATIVE_PACE). */
  rate: number;
  /** espeak-ng -p (0–99), espeak voices only. */
  espeak_pitch?: number;
}

/** How a speaker came by its voice, written into the truth file. */
export interface SpeakerVoice extends VoiceChoice {
  /** "script": the script named the voice; "assigned": chosen by assignVoices. */
  source: 'script' | 'assigned';
  /** True when the pitch or rate was changed from the voice's own to tell this speaker apart from another with the same voice. */
  varied: boolean;
}

/** How a line's word times were found: from the synthesizer itself, or estimated (espeak-ng, word-times.ts). */
export type WordTiming = 'synthesizer' | WordLengthSource;

interface LineWord {
  text: string;
  /** Seconds from the start of the line's samples. */
  start: number;
  end: number;
}

export interface SynthesizedLine {
  /** 16 kHz mono. */
  samples: Int16Array;
  words: LineWord[];
  timing: WordTiming;
  /** False when the words could only be spread over the whole line (see word-times.ts). */
  clauseAnchored: boolean;
}

// ------------------------------------------------------------------ voice names

/** espeak-ng voices as older scripts name them, without an engine prefix: "en-us", "en+f3". */
const BARE_ESPEAK_VOICE = /^en(-[a-z0-9]+)*(\+[A-Za-z0-9]+)?$/;
const ENGINE_VOICE = /^(flite|festival):[a-z0-9_]{1,64}$/;

/** True for a voice name a script may give: "flite:kal16", "festival:cmu_us_slt_arctic_hts", "espeak:en-us+f3", or a bare espeak-ng name. */
export function isVoiceName(name: string): boolean {
  if (ENGINE_VOICE.test(name)) return true;
  const bare = name.startsWith('espeak:') ? name.slice('espeak:'.length) : name;
  return BARE_ESPEAK_VOICE.test(bare);
}

/** "flite:kal16" → flite/kal16; a bare espeak-ng name → espeak. Throws for a name isVoiceName refuses. */
export function parseVoiceName(name: string): { engine: EngineName; voice: string } {
  if (!isVoiceName(name))
    throw new Error(
      `"${name}" is not a voice name; expected engine:voice such as flite:kal16, festival:cmu_us_slt_arctic_hts or espeak:en-us`,
    );
  const colon = name.indexOf(':');
  if (colon < 0) return { engine: 'espeak', voice: name };
  return { engine: name.slice(0, colon) as EngineName, voice: name.slice(colon + 1) };
}

export function voiceLabel(v: Pick<VoiceChoice, 'engine' | 'voice'>): string {
  return `${v.engine}:${v.voice}`;
}

// ------------------------------------------------------------------ assignment

/**
 * Natural voices in the order unnamed speakers get them: the two a stock
 * recognizer understands best first (a male and a female voice, so a
 * two-person call is easy to tell apart), then the rest by recognition.
 */
export const NATURAL_VOICES: readonly Pick<VoiceChoice, 'engine' | 'voice'>[] = [
  { engine: 'flite', voice: 'kal16' },
  { engine: 'festival', voice: 'cmu_us_slt_arctic_hts' },
  { engine: 'flite', voice: 'rms' },
  { engine: 'flite', voice: 'awb' },
  { engine: 'flite', voice: 'slt' },
];

/** espeak-ng voices for the espeak set: different variants and pitches that espeak-ng does not merge. */
export const ESPEAK_VOICES: readonly { voice: string; pitch: number }[] = [
  { voice: 'en-us', pitch: 45 },
  { voice: 'en-us+f3', pitch: 62 },
  { voice: 'en+m3', pitch: 32 },
  { voice: 'en+f2', pitch: 70 },
  { voice: 'en-gb-x-rp', pitch: 40 },
  { voice: 'en-us+f4', pitch: 55 },
];

/**
 * The pace of a natural voice speaker who gives no rate: conversational
 * English runs at about 150–160 words per minute, slower than espeak-ng's
 * default of 175 (which stays the espeak voices' default, so old scripts
 * sound as before).
 */
export const NATURAL_RATE_WPM = 160;

/**
 * Each natural voice's own pace relative to espeak-ng at the same nominal
 * rate, measured on the 16 lines of two-person-call (words per second of
 * speech at the engine's own pace: espeak-ng en-us at 175 gives 203, kal16
 * 216, rms 182, awb 207, slt 202, Festival slt HTS 201). Dividing by it makes
 * `rate` mean the same words per minute for every engine.
 */
const NATIVE_PACE: Readonly<Record<string, number>> = {
  'flite:kal16': 1.066,
  'flite:kal': 1.066,
  'flite:rms': 0.896,
  'flite:awb': 1.018,
  'flite:slt': 0.994,
  'festival:cmu_us_slt_arctic_hts': 0.989,
};

/**
 * How a voice is changed when more speakers need it than one: round 0 is the
 * voice itself, later rounds move pitch and pace apart (a lower voice a little
 * slower, a higher one a little faster, as people tend to differ). Rates are
 * added to the voice set's default pace.
 */
const VARIATIONS: readonly { pitch_shift: number; rate_delta: number }[] = [
  { pitch_shift: 0, rate_delta: 0 },
  { pitch_shift: -3, rate_delta: -12 },
  { pitch_shift: 3, rate_delta: 12 },
  { pitch_shift: -5, rate_delta: -20 },
];

/** espeak-ng pitch points per semitone of pitch_shift (espeak-ng's 0–99 scale spans roughly two octaves). */
const ESPEAK_POINTS_PER_SEMITONE = 4;

function fromScript(speaker: ScriptSpeaker, engine: EngineName, voice: string): SpeakerVoice {
  if (engine === 'espeak') {
    const pitch = speaker.pitch ?? 50;
    return { engine, voice, pitch_shift: 0, rate: speaker.rate ?? DEFAULT_RATE_WPM, espeak_pitch: pitch, source: 'script', varied: false };
  }
  return { engine, voice, pitch_shift: speaker.pitch_shift ?? 0, rate: speaker.rate ?? NATURAL_RATE_WPM, source: 'script', varied: false };
}

/**
 * One voice per speaker, deterministic for a script, voice set and casting seed:
 * - a speaker who names a voice gets it (with the natural set; with the
 *   espeak set only espeak voices are kept, others are assigned);
 * - the others take the set's voices, skipping voices named by someone
 *   else, so no two speakers share a voice while the set lasts;
 * - when it runs out, the voices are used again with pitch and pace moved
 *   apart (VARIATIONS), marked `varied`.
 * Without a casting seed the voices go in the set's order and the n-th use
 * of a voice takes VARIATIONS[n] (the cast every render had before casting
 * seeds, kept byte for byte). With one, the seed draws the cast (castSlots):
 * which voices are used, which variations the repeated ones get, and which
 * speaker gets which, so a benchmark can measure many casts of one script
 * instead of the one the order happens to give (decision 135).
 * A speaker's own pitch_shift or rate, when given, wins over the variation.
 */
export function assignVoices(speakers: readonly ScriptSpeaker[], voiceSet: VoiceSet = 'natural', castSeed?: number): SpeakerVoice[] {
  const named = speakers.map((s) => {
    if (s.voice === undefined) return undefined;
    const parsed = parseVoiceName(s.voice);
    return voiceSet === 'espeak' && parsed.engine !== 'espeak' ? undefined : parsed;
  });
  const taken = new Set(named.filter((n) => n !== undefined).map(voiceLabel));
  const pool: PoolVoice[] =
    voiceSet === 'natural'
      ? [...NATURAL_VOICES]
      : ESPEAK_VOICES.map((v) => ({ engine: 'espeak' as const, voice: v.voice, espeakPitch: v.pitch }));
  const slots = castSlots(pool, taken, named.filter((n) => n === undefined).length, castSeed);
  let next = 0;
  return speakers.map((speaker, i) => {
    const own = named[i];
    if (own !== undefined) return fromScript(speaker, own.engine, own.voice);
    const { base, variation } = slots[next++]!;
    const pitchShift = speaker.pitch_shift ?? variation.pitch_shift;
    const rate = speaker.rate ?? (base.engine === 'espeak' ? DEFAULT_RATE_WPM : NATURAL_RATE_WPM) + variation.rate_delta;
    const varied = variation !== VARIATIONS[0];
    if (base.engine === 'espeak') {
      const espeakPitch = speaker.pitch ?? Math.max(0, Math.min(99, (base.espeakPitch ?? 50) + pitchShift * ESPEAK_POINTS_PER_SEMITONE));
      return { engine: 'espeak', voice: base.voice, pitch_shift: 0, rate, espeak_pitch: espeakPitch, source: 'assigned', varied };
    }
    return { engine: base.engine, voice: base.voice, pitch_shift: pitchShift, rate, source: 'assigned', varied };
  });
}

interface PoolVoice {
  engine: EngineName;
  voice: string;
  espeakPitch?: number;
}

/** One assigned speaker's voice before the speaker's own pitch or rate is applied. */
interface CastSlot {
  base: PoolVoice;
  variation: (typeof VARIATIONS)[number];
}

/** The largest casting seed: the seed is a 32-bit generator state. */
export const MAX_CAST_SEED = 0xffff_ffff;

/** True for a casting seed assignVoices accepts: an integer 0 … MAX_CAST_SEED. */
export function isCastSeed(seed: number): boolean {
  return Number.isInteger(seed) && seed >= 0 && seed <= MAX_CAST_SEED;
}

/**
 * The person a voice was recorded from, where two voices share one: flite's
 * slt and Festival's slt HTS voice are both CMU ARCTIC "slt", flite's kal16
 * and kal both the "kal" diphone speaker (decision 068). A voice not listed
 * is a person of its own.
 */
const VOICE_PERSON: Readonly<Record<string, string>> = {
  'flite:slt': 'slt',
  'festival:cmu_us_slt_arctic_hts': 'slt',
  'flite:kal16': 'kal',
  'flite:kal': 'kal',
};

export function personOf(v: Pick<VoiceChoice, 'engine' | 'voice'>): string {
  return VOICE_PERSON[voiceLabel(v)] ?? voiceLabel(v);
}

/**
 * True when a variation of the voice moves its vocal tract with its pitch:
 * Flite's clustergen voices are shifted by playback rate, formants and all,
 * as a different person would sound (synthesizeFresh). kal16 (a pitch
 * target), Festival's HTS voice (-fm) and espeak-ng move only the pitch,
 * which leaves one person's voice (decision 068).
 */
export function variationMovesVocalTract(v: PoolVoice): boolean {
  return v.engine === 'flite' && !fliteFollowsPitchTarget(v.voice);
}

/**
 * The voices of `count` speakers without a named voice, in speaker order.
 *
 * Without a seed (the cast of every render before casting seeds, kept):
 * every fresh voice once, in the set's order, then the whole set again and
 * again, the r-th round with VARIATIONS[r].
 *
 * With a seed, a cast of different people as far as the set allows
 * (decision 135): first one voice of every person nobody else speaks as
 * (personOf: the seed picks which of a person's voices), in a drawn order;
 * then repeats, each a voice with a variation it has not had, first of the
 * voices whose variation moves the vocal tract (a different person to the
 * ear, variationMovesVocalTract), round by round, then of the others; the
 * drawn slots go to the speakers in a drawn order. Every cast this rule
 * allows is some seed's draw (the unit test enumerates them on small casts).
 */
function castSlots(pool: readonly PoolVoice[], taken: ReadonlySet<string>, count: number, seed: number | undefined): CastSlot[] {
  const slots: CastSlot[] = [];
  const fresh = pool.filter((v) => !taken.has(voiceLabel(v)));
  if (seed === undefined) {
    for (let k = 0; k < count; k++) {
      const round = k < fresh.length ? 0 : 1 + Math.floor((k - fresh.length) / pool.length);
      const base = k < fresh.length ? fresh[k]! : pool[(k - fresh.length) % pool.length]!;
      slots.push({ base, variation: VARIATIONS[Math.min(round, VARIATIONS.length - 1)]! });
    }
    return slots;
  }
  if (!isCastSeed(seed)) throw new Error(`a casting seed is an integer from 0 to ${MAX_CAST_SEED}, got ${seed}`);
  // Mixed so that casting seed n and scene seed n draw unrelated sequences.
  const random = seededRandom((Math.imul(seed, 0x85ebca6b) ^ 0x63617374) >>> 0);
  // A person is fresh when the script named none of their voices.
  const named = new Set([...taken].map((label) => personOf(parseVoiceName(label))));
  const people = new Map<string, PoolVoice[]>();
  for (const v of fresh) if (!named.has(personOf(v))) people.set(personOf(v), [...(people.get(personOf(v)) ?? []), v]);
  for (const voices of shuffle([...people.values()], random))
    if (slots.length < count) slots.push({ base: voices[random.int(0, voices.length - 1)]!, variation: VARIATIONS[0]! });
  const variationsOf = new Map(pool.map((v) => [voiceLabel(v), shuffle(VARIATIONS.slice(1), random)]));
  const repeatable = [pool.filter(variationMovesVocalTract), pool.filter((v) => !variationMovesVocalTract(v))];
  for (const group of repeatable)
    for (let round = 0; round < VARIATIONS.length - 1 && slots.length < count; round++)
      for (const v of shuffle(group, random))
        if (slots.length < count) slots.push({ base: v, variation: variationsOf.get(voiceLabel(v))![round]! });
  // More speakers than voices and variations (not within a script's sixteen): the last variation again.
  for (let k = 0; slots.length < count; k++) slots.push({ base: pool[k % pool.length]!, variation: VARIATIONS[VARIATIONS.length - 1]! });
  return shuffle(slots, random);
}

/** A Fisher–Yates shuffle of a copy, drawn from `random`. */
function shuffle<T>(items: readonly T[], random: SeededRandom): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The voices a script renders with; see assignVoices. */
export function scriptVoices(script: MeetingScript, voiceSet: VoiceSet = 'natural', castSeed?: number): SpeakerVoice[] {
  return assignVoices(script.speakers, voiceSet, castSeed);
}

// ------------------------------------------------------------------ synthesis

/** Bumped when what this module does to an engine's output changes, so cached lines are made again. */
const LINE_FORMAT = 2;

function engineVersion(engine: EngineName): Promise<string> {
  switch (engine) {
    case 'flite':
      return fliteVersion();
    case 'festival':
      return festivalVersion();
    case 'espeak':
      return espeakVersion();
  }
}

/** Samples at any rate → 16 kHz, with ffmpeg's resampler (bit-exact, so the same input gives the same bytes). */
async function toLineRate(samples: Int16Array, sampleRate: number, playbackRate = sampleRate): Promise<Int16Array> {
  if (sampleRate === LINE_SAMPLE_RATE && playbackRate === sampleRate) return samples;
  const filters = playbackRate === sampleRate ? [] : [`asetrate=${playbackRate}`];
  filters.push(`aresample=${LINE_SAMPLE_RATE}`);
  const { stdout } = await runTool(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-f',
      's16le',
      '-ar',
      String(sampleRate),
      '-ac',
      '1',
      '-i',
      'pipe:0',
      '-af',
      filters.join(','),
      '-fflags',
      '+bitexact',
      '-flags:a',
      '+bitexact',
      '-f',
      's16le',
      '-ac',
      '1',
      'pipe:1',
    ],
    { input: Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength) },
  );
  const out = new Int16Array(Math.floor(stdout.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = stdout.readInt16LE(i * 2);
  return out;
}

/** Words spread over the line by characters: the fallback when an engine's timing cannot be matched to the words. */
function wordsByCharacters(texts: readonly string[], samples: Int16Array, rate: number): { words: LineWord[]; clauseAnchored: boolean } {
  const tokens = texts.map((text) => ({ text, endsClause: false }));
  const laid = layOutWords(tokens, texts.map(characterWeight), samples, LINE_SAMPLE_RATE, rate);
  return {
    words: laid.words.map((w) => ({ text: w.text, start: w.start / LINE_SAMPLE_RATE, end: w.end / LINE_SAMPLE_RATE })),
    clauseAnchored: false,
  };
}

/**
 * Synthesized word spans (seconds) → the line's words, kept inside the
 * line's sound: a synthesizer's first segment may start in the silence
 * before speech, and the renderer places only the sound.
 */
function clampWords(texts: readonly string[], spans: readonly WordTime[], samples: Int16Array): LineWord[] {
  const span = speechSpan(samples, LINE_SAMPLE_RATE);
  const lo = span === undefined ? 0 : span.start / LINE_SAMPLE_RATE;
  const hi = span === undefined ? samples.length / LINE_SAMPLE_RATE : span.end / LINE_SAMPLE_RATE;
  const minimum = 0.01; // a word keeps at least 10 ms so start < end
  let cursor = lo;
  return texts.map((text, i) => {
    const s = spans[i]!;
    const start = Math.min(Math.max(s.start, cursor), hi - minimum * (texts.length - i));
    const end = Math.max(start + minimum, Math.min(s.end, hi - minimum * (texts.length - i - 1)));
    cursor = end;
    return { text, start, end };
  });
}

async function synthesizeFresh(choice: VoiceChoice, text: string): Promise<SynthesizedLine> {
  const tokens = tokenizeLine(text);
  const texts = tokens.map((t) => t.text);
  if (choice.engine === 'espeak') {
    const request = { voice: choice.voice, pitch: choice.espeak_pitch ?? 50, rate: choice.rate, text };
    const [clip, measuring] = await Promise.all([espeakSynthesize(request), espeakSynthesize({ ...request, wordGap: MEASURE_WORD_GAP })]);
    if (speechSpan(clip.samples, clip.sampleRate) === undefined)
      throw new Error(`espeak-ng produced silence for "${text}" (voice ${choice.voice})`);
    const { lengths, source } = wordLengths(tokens, measuring.samples, measuring.sampleRate, choice.rate);
    const laid = layOutWords(tokens, lengths, clip.samples, clip.sampleRate, choice.rate);
    const samples = await toLineRate(clip.samples, clip.sampleRate);
    const words = laid.words.map((w) => ({ text: w.text, start: w.start / clip.sampleRate, end: w.end / clip.sampleRate }));
    return { samples, words, timing: source, clauseAnchored: laid.clauseAnchored };
  }

  let pcm;
  let spans: WordTime[] | undefined;
  // Pitch the engine cannot set itself is shifted by playing the samples
  // faster or slower (which also moves the formants, like a different
  // speaker); the engine then speaks that much slower or faster first, so
  // the pace stays what was asked, and every time is divided by the factor.
  let factor = 1;
  const pace = NATIVE_PACE[voiceLabel(choice)] ?? 1;
  if (choice.engine === 'flite') {
    const native = fliteFollowsPitchTarget(choice.voice);
    factor = native ? 1 : 2 ** (choice.pitch_shift / 12);
    const line = await fliteSynthesize({
      voice: choice.voice,
      text,
      words: texts,
      durationStretch: ((pace * DEFAULT_RATE_WPM) / choice.rate) * factor,
      pitchShift: native ? choice.pitch_shift : 0,
    });
    pcm = line.pcm;
    spans = line.words;
  } else {
    const line = await festivalSynthesize({
      voice: choice.voice,
      text,
      wordCount: texts.length,
      speed: choice.rate / (pace * DEFAULT_RATE_WPM),
      pitchShift: choice.pitch_shift,
    });
    pcm = line.pcm;
    spans = line.words;
  }
  const samples = await toLineRate(pcm.samples, pcm.sampleRate, Math.round(pcm.sampleRate * factor));
  if (speechSpan(samples, LINE_SAMPLE_RATE) === undefined)
    throw new Error(`${choice.engine} produced silence for "${text}" (voice ${choice.voice})`);
  if (spans === undefined || texts.length === 0)
    return { samples, ...wordsByCharacters(texts, samples, choice.rate), timing: 'characters' };
  const scaled = spans.map((s) => ({ start: s.start / factor, end: s.end / factor }));
  return { samples, words: clampWords(texts, scaled, samples), timing: 'synthesizer', clauseAnchored: true };
}

/** Synthesized lines stored as a WAV plus a JSON of word times, named by a hash of everything that shapes them. */
export class VoiceCache {
  readonly dir: string;
  hits = 0;
  misses = 0;

  constructor(dir: string) {
    this.dir = dir;
  }

  async key(choice: VoiceChoice, text: string): Promise<string> {
    const material = JSON.stringify([
      LINE_FORMAT,
      choice.engine,
      await engineVersion(choice.engine),
      choice.voice,
      choice.pitch_shift,
      choice.rate,
      choice.espeak_pitch ?? null,
      text,
    ]);
    return createHash('sha256').update(material).digest('hex');
  }

  async line(choice: VoiceChoice, text: string): Promise<SynthesizedLine> {
    const base = path.join(this.dir, await this.key(choice, text));
    try {
      const [wav, json] = await Promise.all([readFile(`${base}.wav`), readFile(`${base}.json`, 'utf8')]);
      const meta = JSON.parse(json) as Omit<SynthesizedLine, 'samples'>;
      const pcm = parseWav(wav);
      this.hits++;
      return { samples: pcm.samples, ...meta };
    } catch {
      // Missing or unreadable (a crash mid-write of an older version): synthesize anew.
    }
    this.misses++;
    const line = await synthesizeFresh(choice, text);
    await mkdir(this.dir, { recursive: true });
    // Write then rename, the JSON last, so a reader that finds the JSON finds the whole WAV.
    const tmp = `${base}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, encodeWav({ sampleRate: LINE_SAMPLE_RATE, channels: 1, samples: line.samples }));
    await rename(tmp, `${base}.wav`);
    const meta: Omit<SynthesizedLine, 'samples'> = { words: line.words, timing: line.timing, clauseAnchored: line.clauseAnchored };
    await writeFile(tmp, JSON.stringify(meta));
    await rename(tmp, `${base}.json`);
    return line;
  }
}
