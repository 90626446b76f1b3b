/**
 * A script's lines → the lines a meeting will say and how each is timed,
 * before anything is synthesized (decision 108).
 *
 * "tidy" keeps the script as written: one planned line per script line, each
 * after the last by its pause_before or 0.4 s, or over the previous line by
 * its overlap. "natural" draws, with a seeded generator and in a fixed order
 * (so the same script, profile and seed always give the same plan):
 * - the offset of every change of speaker the script leaves open (AMI's
 *   floor-transfer offsets; negative ones overlap) and the pause between two
 *   lines of one speaker;
 * - backchannels ("yeah", "uh-huh") by a listener, under the speaker's speech
 *   or just after it, until they make up the profile's share of dialogue acts;
 * - now and then a false start: a second person starting at the same moment
 *   as the next speaker, and giving way;
 * - hesitations ("um", "uh") inside lines, until they make up the profile's
 *   share of words.
 * Backchannels and hesitations the script already has count towards their
 * shares, so a real transcript (QMSum) gets few or none added.
 *
 * The times themselves need the synthesized lengths: place.ts.
 */
import { DEFAULT_PAUSE_SECONDS, lineWords } from '../scripts/meeting-script.ts';
import type { MeetingScript } from '../scripts/meeting-script.ts';
import { seededRandom } from '../seeded-random.ts';
import type { SeededRandom } from '../seeded-random.ts';
import { quantileAt } from './profiles.ts';
import type { DynamicsProfile, NaturalProfile } from './profiles.ts';

/** What the dynamics added to a script: a listener's backchannel, or the words of someone who started at once with another and gave way. */
export type InsertedKind = 'backchannel' | 'false_start';

/**
 * How a planned line is placed (place.ts). Seconds throughout; the start is
 * where the line's speech begins.
 * - first: the first line, after the lead-in and `pause`;
 * - after: `pause` after the latest speech so far, whoever spoke it;
 * - overlap: `seconds` before the end of planned line `of` (a scripted overlap);
 * - offset: `seconds` after the latest speech so far, negative for an
 *   overlap, which place.ts bounds so that neither line is swallowed;
 * - under: a backchannel at share `at` of planned line `anchor`'s speech, or
 *   `fallbackGap` after the latest speech when it does not fit under it;
 * - with: a false start, `delay` after planned line `anchor` starts.
 */
type LineTiming =
  | { kind: 'first'; pause: number }
  | { kind: 'after'; pause: number }
  | { kind: 'overlap'; seconds: number; of: number }
  | { kind: 'offset'; seconds: number }
  | { kind: 'under'; anchor: number; at: number; fallbackGap: number }
  | { kind: 'with'; anchor: number; delay: number };

export interface PlannedLine {
  speaker: string;
  /** What is synthesized: the script's text, with any hesitation put in. */
  text: string;
  /** The script line this is, or, for an inserted line, the script line it accompanies. */
  scriptLine: number;
  inserted?: InsertedKind;
  /** Positions (in lineWords(text)) of the hesitations the dynamics put in. */
  hesitationWords: number[];
  timing: LineTiming;
}

/** Words a backchannel or a hesitation is made of, as the truth spells them (lowercase). */
const BACKCHANNEL_WORDS = new Set(['mm-hmm', 'mhm', 'mm', 'hmm', 'uh-huh', 'yeah', 'yep', 'yes', 'right', 'okay', 'sure']);
const HESITATION_WORDS = new Set(['um', 'uh', 'er', 'erm']);

/** True for a line that is nothing but a short acknowledgement ("Yeah.", "Mm-hmm, right."). */
export function isBackchannelText(text: string): boolean {
  const words = lineWords(text.toLowerCase());
  return words.length > 0 && words.length <= 2 && words.every((w) => BACKCHANNEL_WORDS.has(w));
}

/** Dialogue acts of a line, as sentences: at least one. */
export function sentenceCount(text: string): number {
  return Math.max(1, (text.trim().match(/[.?!]+(\s|$)/g) ?? []).length);
}

/** A generator for the dynamics alone, so the same seed does not give the scene's noise the same numbers. */
function dynamicsRandom(seed: number): SeededRandom {
  return seededRandom((Math.imul(seed >>> 0, 0x9e3779b1) ^ 0x64796e61) >>> 0);
}

function pickWeighted<T>(random: SeededRandom, items: readonly (readonly [T, number])[]): T {
  const total = items.reduce((sum, [, w]) => sum + w, 0);
  let u = random.next() * total;
  for (const [item, weight] of items) {
    u -= weight;
    if (u < 0) return item;
  }
  return items.at(-1)![0];
}

/** Puts hesitations before some words of `text`, each word with probability `p`; returns the text and where the hesitations are. */
function withHesitations(text: string, p: number, profile: NaturalProfile, random: SeededRandom): { text: string; at: number[] } {
  const raw = text.trim().split(/\s+/);
  const out: string[] = [];
  const at: number[] = [];
  let words = 0;
  for (const token of raw) {
    const spoken = lineWords(token).length;
    if (spoken > 0 && random.next() < p) {
      out.push(`${random.pick(profile.hesitations)},`);
      at.push(words);
      words++;
    }
    out.push(token);
    words += spoken;
  }
  return { text: out.join(' '), at };
}

/** Someone other than `speaker`: the one who spoke last if it was someone else, else one drawn. */
function listenerFor(speaker: string, previous: string | undefined, keys: readonly string[], random: SeededRandom): string {
  if (previous !== undefined && previous !== speaker) return previous;
  return random.pick(keys.filter((k) => k !== speaker));
}

function tidyTiming(script: MeetingScript, i: number, previousMain: number): LineTiming {
  const line = script.lines[i]!;
  if (i === 0) return { kind: 'first', pause: line.pause_before ?? 0 };
  if (line.overlap !== undefined) return { kind: 'overlap', seconds: line.overlap, of: previousMain };
  return { kind: 'after', pause: line.pause_before ?? DEFAULT_PAUSE_SECONDS };
}

/** The per-word and per-sentence probabilities that bring the script up to the profile's shares. */
function naturalRates(script: MeetingScript, profile: NaturalProfile): { hesitation: number; backchannel: number } {
  let words = 0;
  let hesitations = 0;
  let acts = 0;
  let backchannels = 0;
  for (const line of script.lines) {
    const lw = lineWords(line.text.toLowerCase());
    words += lw.length;
    hesitations += lw.filter((w) => HESITATION_WORDS.has(w)).length;
    if (isBackchannelText(line.text)) backchannels++;
    else acts += sentenceCount(line.text);
  }
  const h = profile.hesitationWordShare;
  const b = profile.backchannelActShare;
  const hesitationsToAdd = Math.max(0, (h * words - hesitations) / (1 - h));
  const backchannelsToAdd = Math.max(0, (b * acts) / (1 - b) - backchannels);
  return {
    hesitation: words === 0 ? 0 : hesitationsToAdd / words,
    backchannel: acts === 0 || script.speakers.length < 2 ? 0 : backchannelsToAdd / acts,
  };
}

function planNatural(script: MeetingScript, profile: NaturalProfile, seed: number): PlannedLine[] {
  const random = dynamicsRandom(seed);
  const rates = naturalRates(script, profile);
  const keys = script.speakers.map((s) => s.key);
  const plan: PlannedLine[] = [];
  let previousMain = -1;
  script.lines.forEach((line, i) => {
    const previousSpeaker = previousMain >= 0 ? plan[previousMain]!.speaker : undefined;
    const backchannelLine = isBackchannelText(line.text);
    const hesitated = backchannelLine ? { text: line.text, at: [] } : withHesitations(line.text, rates.hesitation, profile, random);
    // The timing, false-start and backchannel numbers are drawn for every line, whether used or not, so a
    // script line's pause_before changes its own timing and not the draws of the lines after it.
    const u = random.next();
    let timing: LineTiming;
    if (i === 0 || line.overlap !== undefined || line.pause_before !== undefined) timing = tidyTiming(script, i, previousMain);
    else if (line.speaker === previousSpeaker) timing = { kind: 'after', pause: quantileAt(profile.samePausesSeconds, u) };
    else timing = { kind: 'offset', seconds: quantileAt(profile.changeOffsets, u) };
    const index = plan.length;
    plan.push({ speaker: line.speaker, text: hesitated.text, scriptLine: i, hesitationWords: hesitated.at, timing });
    previousMain = index;

    const falseStart = random.next() < profile.falseStartShare;
    const falseStartText = random.pick(profile.falseStarts);
    const delay = (random.next() - 0.5) * 0.2;
    if (falseStart && timing.kind === 'offset' && timing.seconds > 0 && keys.length > 1) {
      const other = listenerFor(line.speaker, previousSpeaker, keys, random);
      plan.push({
        speaker: other,
        text: falseStartText,
        scriptLine: i,
        inserted: 'false_start',
        hesitationWords: [],
        timing: { kind: 'with', anchor: index, delay },
      });
    }

    const chance = backchannelLine ? 0 : Math.min(1, sentenceCount(line.text) * rates.backchannel);
    const backchannel = random.next() < chance;
    const text = pickWeighted(random, profile.backchannels);
    const under = random.next() < profile.backchannelUnderSpeech;
    const at = 0.3 + 0.5 * random.next();
    const gap = -0.2 + 0.6 * random.next();
    if (backchannel) {
      plan.push({
        speaker: listenerFor(line.speaker, previousSpeaker, keys, random),
        text,
        scriptLine: i,
        inserted: 'backchannel',
        hesitationWords: [],
        timing: under ? { kind: 'under', anchor: index, at, fallbackGap: Math.max(0.1, gap) } : { kind: 'offset', seconds: gap },
      });
    }
  });
  return plan;
}

/** The lines of `script` as `profile` times them; `seed` chooses everything "natural" draws. */
export function planDynamics(script: MeetingScript, profile: DynamicsProfile, seed: number): PlannedLine[] {
  if (profile.name === 'natural') return planNatural(script, profile, seed);
  return script.lines.map((line, i) => ({
    speaker: line.speaker,
    text: line.text,
    scriptLine: i,
    hesitationWords: [],
    timing: tidyTiming(script, i, i - 1),
  }));
}
