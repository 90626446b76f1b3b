/**
 * Meeting script → one WAV (16 kHz, mono, 16-bit) plus its ground truth.
 *
 * The conversation dynamics (simulator/dynamics/) turn the script's lines
 * into the lines to say and how each is timed; every line is synthesized on
 * its own with its speaker's voice (the voice registry,
 * simulator/synth/voices.ts), trimmed to where sound is, and placed where the
 * dynamics say on one continuous timeline: silence where nobody speaks,
 * overlapping lines summed. Times in the truth are taken from the samples actually placed, so a
 * line's start and end are exact; word times inside a line come from the
 * synthesizer's own timing (Flite, Festival) or are estimated (espeak-ng,
 * simulator/synth/word-times.ts).
 */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DynamicsProfileName, MeetingScript } from '../scripts/meeting-script.ts';
import { planDynamics } from '../dynamics/plan.ts';
import type { InsertedKind } from '../dynamics/plan.ts';
import { placeLines } from '../dynamics/place.ts';
import { dynamicsProfile } from '../dynamics/profiles.ts';
import { REPO_ROOT } from '../scripts/load-script.ts';
import { LINE_SAMPLE_RATE, VoiceCache, scriptVoices, voiceLabel } from './voices.ts';
import type { SpeakerVoice, SynthesizedLine, VoiceChoice, VoiceSet, WordTiming } from './voices.ts';
import { speechSpan } from './speech-activity.ts';
import { SceneError, applyScene, needsSpeakerTracks, resolveScene } from '../scenes/scene.ts';
import type { ResolvedScene, SceneSpec } from '../scenes/scene.ts';
import { encodeWav } from '../../common/audio/wav.ts';
import { castPeople } from '../people/cast-people.ts';
import type { PeopleCast } from '../people/cast-people.ts';

/** The sample rate of every rendered meeting: what the recorder writes and recognizers expect. */
const OUTPUT_SAMPLE_RATE = 16_000;
/** Silence before the first line and after the last, so no file starts or ends mid-word. */
const LEAD_IN_SECONDS = 0.5;
const TAIL_SECONDS = 0.5;
/**
 * Sound kept beyond the trimmed speech on each side. The fade of the last
 * phoneme sits below the speech threshold; cutting it would click.
 */
const EDGE_PAD_SECONDS = 0.02;
/** Phrase each speaker says once to prove that no two speakers sound the same. */
const VOICE_PROBE_TEXT = 'The quarterly budget review is on the roadmap.';

export const DEFAULT_CACHE_DIR = process.env.SIMULATOR_CACHE_DIR ?? path.join(REPO_ROOT, '.tmp', 'simulator-cache');

/**
 * What the natural dynamics put into the script (decision 108): a listener's
 * backchannel, someone who started at once with another and gave way, or a
 * hesitation ("um", "uh") inside a line. Words and lines of the script itself
 * have no `inserted` field.
 */
type InsertedWordKind = InsertedKind | 'hesitation';

interface TruthWord {
  text: string;
  start: number;
  end: number;
  speaker: string;
  inserted?: InsertedWordKind;
}

interface TruthTurn {
  speaker: string;
  start: number;
  end: number;
}

interface TruthLine {
  speaker: string;
  text: string;
  start: number;
  end: number;
  /**
   * Where the word times inside this line came from: "synthesizer" (Flite's
   * or Festival's own timing) or, for espeak-ng, the estimate's source (see
   * word-times.ts: "measured", "grouped", "characters").
   */
  word_lengths: WordTiming;
  /** False when the line's clause pauses could not be found and words share the whole line. */
  clause_anchored: boolean;
  /** Set on the lines the natural dynamics added; the script's own lines have none. */
  inserted?: InsertedKind;
}

export interface MeetingTruth {
  title: string;
  language: string;
  sample_rate: number;
  duration: number;
  /** The voice set the render was asked for (RenderOptions.voiceSet). */
  voice_set: VoiceSet;
  /** The casting seed that drew the speakers' voices (RenderOptions.castSeed); absent: the set's own order. */
  cast_seed?: number;
  /** Each speaker with the voice it was rendered with: engine, voice, pitch and pace, and whether they were varied to keep speakers apart. */
  speakers: ({ key: string; name: string; person?: string } & SpeakerVoice)[];
  /** Every spoken word, ordered by start time. */
  words: TruthWord[];
  /** One turn per line, ordered by start time; overlapping lines give overlapping turns. */
  turns: TruthTurn[];
  lines: TruthLine[];
  /** The scene the meeting was rendered in, resolved, with its seed: the words and times above never depend on the scene itself. */
  scene: ResolvedScene;
  /** The natural dynamics and the seed that drew them (the scene's); absent for tidy renders. */
  dynamics?: { profile: 'natural'; seed: number };
}

export interface RenderedMeeting {
  wav: string;
  truthPath: string;
  duration: number;
  truth: MeetingTruth;
}

export interface RenderOptions {
  /** Where synthesized clips are cached; default .tmp/simulator-cache (or $SIMULATOR_CACHE_DIR). */
  cacheDir?: string;
  /** Where to write the truth JSON; default beside the WAV (meeting.wav → meeting.truth.json). */
  truthPath?: string;
  /** Parallel synthesizer processes; default the number of CPUs. */
  concurrency?: number;
  /** The acoustic scene (simulator/scenes/scene.ts); default the script's "scene", else clean. */
  scene?: string | SceneSpec;
  /** The scene's seed; default the scene's own, else 1. */
  seed?: number;
  /**
   * "natural" (default): speakers without a named voice get Flite and
   * Festival voices. "espeak": every speaker is rendered with espeak-ng
   * (voices.ts, assignVoices).
   */
  voiceSet?: VoiceSet;
  /**
   * Draws which speaker gets which of the voice set's voices, and the pitch
   * and pace variations of repeated voices (voices.ts, assignVoices;
   * decision 135). Absent: the set's voices in order, as before casting seeds.
   */
  castSeed?: number;
  /**
   * How turns are placed in time (simulator/dynamics/, decision 108); default
   * the script's "dynamics", else "tidy" (every line 0.4 s after the last, as
   * tests and benchmarks measured). The natural dynamics draw with the
   * scene's seed.
   */
  dynamics?: DynamicsProfileName;
  /**
   * Recurring people (simulator/people/, decision 151) cast into the script's
   * speakers in order: their voice and name, their id in the truth
   * (`speakers[].person`). Absent: the script's own speakers, as before.
   */
  people?: PeopleCast;
  /** With `people`: replace a cast speaker's first name in the lines (default true; false where names are roles, as in QMSum). */
  renameMentions?: boolean;
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** Seconds rounded to the millisecond, the precision the truth is written with. */
function ms(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

async function renderLine(
  cache: VoiceCache,
  voice: VoiceChoice,
  text: string,
): Promise<SynthesizedLine & { speechStart: number; speechEnd: number }> {
  const line = await cache.line(voice, text);
  const span = speechSpan(line.samples, LINE_SAMPLE_RATE);
  if (span === undefined) throw new Error(`${voice.engine} produced silence for "${text}" (voice ${voice.voice})`);
  return { ...line, speechStart: span.start, speechEnd: span.end };
}

/** Refuses a script whose speakers would be indistinguishable: the same voice, pitch and rate give identical audio. */
async function checkVoicesDiffer(cache: VoiceCache, script: MeetingScript, voices: readonly SpeakerVoice[]): Promise<void> {
  const seen = new Map<string, string>();
  for (const [i, speaker] of script.speakers.entries()) {
    const voice = voices[i]!;
    const pcm = await cache.line(voice, VOICE_PROBE_TEXT);
    const digest = createHash('sha256')
      .update(new Uint8Array(pcm.samples.buffer, pcm.samples.byteOffset, pcm.samples.byteLength))
      .digest('hex');
    const other = seen.get(digest);
    if (other !== undefined) {
      // espeak-ng ignores some combinations silently, e.g. a +variant on "en-gb".
      throw new Error(
        `speakers ${other} and ${speaker.key} sound identical (${voiceLabel(voice)}); change a voice, pitch or rate (espeak-ng ignores a +variant on some voices, such as en-gb)`,
      );
    }
    seen.set(digest, speaker.key);
  }
}

/** Mixed float samples (16 kHz) → 16-bit WAV; written here rather than by a tool so the bytes depend on nothing else. */
async function writeWav16k(mix: Float32Array, file: string): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const samples = new Int16Array(mix.length);
  for (let i = 0; i < mix.length; i++) samples[i] = Math.max(-32768, Math.min(32767, Math.round(mix[i]! * 32768)));
  await writeFile(file, encodeWav({ sampleRate: OUTPUT_SAMPLE_RATE, channels: 1, samples }));
}

export async function renderScript(scriptAsWritten: MeetingScript, wavPath: string, opts: RenderOptions = {}): Promise<RenderedMeeting> {
  const cast = opts.people === undefined ? undefined : castPeople(scriptAsWritten, opts.people, opts.renameMentions ?? true);
  const script = cast?.script ?? scriptAsWritten;
  const scene = resolveScene(opts.scene ?? script.scene, opts.seed);
  for (const key of Object.keys(scene.speakers)) {
    if (!script.speakers.some((s) => s.key === key))
      throw new SceneError(`scene: no speaker "${key}" in the script (speakers: ${script.speakers.map((s) => s.key).join(', ')})`);
  }
  const cache = new VoiceCache(opts.cacheDir ?? DEFAULT_CACHE_DIR);
  const voiceSet = opts.voiceSet ?? 'natural';
  const voices = scriptVoices(script, voiceSet, opts.castSeed);
  await checkVoicesDiffer(cache, script, voices);
  const voiceOf = new Map(script.speakers.map((s, i) => [s.key, voices[i]!]));
  const dynamicsName = opts.dynamics ?? script.dynamics ?? 'tidy';
  const profile = dynamicsProfile(dynamicsName);
  const plan = planDynamics(script, profile, scene.seed);
  const rendered = await mapLimit(plan, opts.concurrency ?? availableParallelism(), (line) =>
    // parseScript guarantees every line names a known speaker; inserted lines are spoken by one of them.
    renderLine(cache, voiceOf.get(line.speaker)!, line.text),
  );

  const sampleRate = LINE_SAMPLE_RATE;
  const pad = Math.round(EDGE_PAD_SECONDS * sampleRate);
  // Where every line's speech begins and ends on the timeline (simulator/dynamics/place.ts).
  const placed = placeLines(
    plan,
    rendered.map((r) => r.speechEnd - r.speechStart),
    sampleRate,
    LEAD_IN_SECONDS,
    profile,
  );
  const lastEnd = placed.reduce((latest, p) => Math.max(latest, p.end), 0);

  const total = lastEnd + Math.round(TAIL_SECONDS * sampleRate);
  // One track per speaker when the scene places speakers in a room; else one shared track.
  const tracks = new Map<string, Float32Array>();
  const perSpeaker = needsSpeakerTracks(scene);
  rendered.forEach((r, i) => {
    const key = perSpeaker ? plan[i]!.speaker : '*';
    let track = tracks.get(key);
    if (track === undefined) tracks.set(key, (track = new Float32Array(total)));
    const at = placed[i]!.start;
    const from = Math.max(0, r.speechStart - pad);
    const to = Math.min(r.samples.length, r.speechEnd + pad);
    for (let s = from; s < to; s++) {
      const t = at + (s - r.speechStart);
      if (t >= 0 && t < total) track[t]! += r.samples[s]! / 32768;
    }
  });
  // Only overlapping speech (or a loud scene) can exceed full scale; then the
  // whole meeting is turned down evenly rather than clipped.
  const mix = await applyScene(
    [...tracks].map(([speaker, samples]) => ({ speaker, samples })),
    sampleRate,
    scene,
  );
  await writeWav16k(mix, wavPath);

  const seconds = (samples: number): number => ms(samples / sampleRate);
  const words: TruthWord[] = [];
  const lines: TruthLine[] = [];
  plan.forEach((line, i) => {
    const r = rendered[i]!;
    const at = placed[i]!;
    const offset = at.start - r.speechStart; // clip sample → timeline sample
    const hesitations = new Set(line.hesitationWords);
    r.words.forEach((w, k) => {
      // Word times are seconds within the clip; the clip's sample 0 lands at `offset`.
      const start = Math.max(at.start, Math.round(w.start * sampleRate) + offset);
      const end = Math.min(at.end, Math.max(start + 1, Math.round(w.end * sampleRate) + offset));
      const inserted = line.inserted ?? (hesitations.has(k) ? 'hesitation' : undefined);
      words.push({
        text: w.text,
        start: seconds(start),
        end: seconds(end),
        speaker: line.speaker,
        ...(inserted !== undefined ? { inserted } : {}),
      });
    });
    lines.push({
      speaker: line.speaker,
      text: line.text,
      start: seconds(at.start),
      end: seconds(at.end),
      word_lengths: r.timing,
      clause_anchored: r.clauseAnchored,
      ...(line.inserted !== undefined ? { inserted: line.inserted } : {}),
    });
  });
  // Stable sorts: overlapping lines interleave their words by start time; a
  // tidy script's lines are in start order already, a natural backchannel
  // may start after the next line does.
  words.sort((a, b) => a.start - b.start);
  lines.sort((a, b) => a.start - b.start);
  const truth: MeetingTruth = {
    title: script.title,
    language: script.language,
    sample_rate: OUTPUT_SAMPLE_RATE,
    duration: seconds(total),
    voice_set: voiceSet,
    // Absent without a casting seed: a render of the set's own cast keeps its truth byte for byte.
    ...(opts.castSeed !== undefined ? { cast_seed: opts.castSeed } : {}),
    speakers: script.speakers.map((s, i) => {
      const person = cast?.personOf.get(s.key);
      return { key: s.key, name: s.name, ...(person !== undefined ? { person: person.id } : {}), ...voices[i]! };
    }),
    words,
    turns: lines.map((l) => ({ speaker: l.speaker, start: l.start, end: l.end })),
    lines,
    scene,
    // A tidy render's truth stays as it was, byte for byte.
    ...(profile.name === 'natural' ? { dynamics: { profile: profile.name, seed: scene.seed } } : {}),
  };
  const truthPath = opts.truthPath ?? truthPathFor(wavPath);
  await mkdir(path.dirname(path.resolve(truthPath)), { recursive: true });
  await writeFile(truthPath, `${JSON.stringify(truth, null, 2)}\n`);
  return { wav: wavPath, truthPath, duration: truth.duration, truth };
}

/** The truth file that goes with a WAV by default: meeting.wav → meeting.truth.json. */
export function truthPathFor(wavPath: string): string {
  return wavPath.replace(/\.[^./]*$/, '') + '.truth.json';
}
