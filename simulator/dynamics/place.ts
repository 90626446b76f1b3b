/**
 * Planned lines (plan.ts) + the length of each synthesized line → where each
 * line's speech starts and ends on the meeting's timeline, in samples. Pure:
 * the renderer synthesizes, calls this, and mixes the clips where it says.
 *
 * The tidy timings (first, after, overlap) are placed exactly as the renderer
 * always placed them, so a tidy render is the same bytes as before. The
 * natural ones are bounded so that the timeline stays a meeting:
 * - an overlap at a change of speaker is at most the profile's share of
 *   either line and its seconds cap: nobody's line lies wholly inside
 *   another's, and a line never starts before the one it overlaps;
 * - nobody talks over themselves: a line of a speaker starts after that
 *   speaker's previous line ends;
 * - a backchannel that does not fit under its line goes in the gap after it;
 * - nothing starts before the file does.
 */
import type { PlannedLine } from './plan.ts';
import type { DynamicsProfile } from './profiles.ts';

export interface PlacedLine {
  /** Sample where the line's speech begins and where it ends. */
  start: number;
  end: number;
}

/** Silence a speaker leaves between two of their own lines, at the least, when the natural dynamics place them. */
const SELF_GAP_SECONDS = 0.15;
/** A script line the dynamics place starts at least this long after the script line before it. */
const MIN_LEAD_SECONDS = 0.1;
/** A backchannel under speech ends at least this long before the line it accompanies. */
const UNDER_MARGIN_SECONDS = 0.2;

/** A scripted overlap that would start the line before the line it overlaps. */
export class OverlapTooLongError extends Error {}

interface Cursor {
  /** End of the latest speech so far, whoever spoke it, and which placed line it is. */
  lastEnd: number;
  holder: number;
  /** Where each speaker's latest line ends. */
  speakerEnd: Map<string, number>;
  /** Where the latest script line (not an inserted one) starts: the next starts after it. */
  scriptLineStart: number;
}

function tidyStart(line: PlannedLine, placed: readonly PlacedLine[], cursor: Cursor, sampleRate: number, leadIn: number): number {
  const t = line.timing;
  if (t.kind === 'first') return Math.round((leadIn + t.pause) * sampleRate);
  if (t.kind === 'after') return cursor.lastEnd + Math.round(t.pause * sampleRate);
  if (t.kind !== 'overlap') throw new Error(`not a tidy timing: ${t.kind}`);
  // Overlap is measured from the end of the line it names, not from the latest end.
  const previous = placed[t.of]!;
  const start = previous.end - Math.round(t.seconds * sampleRate);
  if (start <= previous.start) {
    const previousSeconds = (previous.end - previous.start) / sampleRate;
    throw new OverlapTooLongError(
      `line ${line.scriptLine + 1}: overlap ${t.seconds} s is not shorter than the previous line (${previousSeconds.toFixed(2)} s of speech)`,
    );
  }
  return start;
}

function naturalStart(
  line: PlannedLine,
  length: number,
  placed: readonly PlacedLine[],
  cursor: Cursor,
  sampleRate: number,
  profile: DynamicsProfile,
): number {
  const t = line.timing;
  const own = cursor.speakerEnd.get(line.speaker);
  const notOverSelf = (start: number): number =>
    own === undefined ? start : Math.max(start, own + Math.round(SELF_GAP_SECONDS * sampleRate));
  if (t.kind === 'offset') {
    let offset = Math.round(t.seconds * sampleRate);
    const holder = placed[cursor.holder];
    if (offset < 0 && holder !== undefined && profile.name === 'natural') {
      const limit = Math.min(
        profile.maxOverlapShare * (holder.end - holder.start),
        profile.maxOverlapShare * length,
        profile.maxOverlapSeconds * sampleRate,
      );
      offset = Math.max(offset, -Math.floor(limit));
    }
    const start = cursor.lastEnd + offset;
    // Script lines keep their order, also after a short line a scripted overlap put inside another.
    return notOverSelf(
      line.inserted === undefined ? Math.max(start, cursor.scriptLineStart + Math.round(MIN_LEAD_SECONDS * sampleRate)) : start,
    );
  }
  if (t.kind === 'under') {
    const anchor = placed[t.anchor]!;
    const start = notOverSelf(anchor.start + Math.round(t.at * (anchor.end - anchor.start)));
    if (start + length <= anchor.end - Math.round(UNDER_MARGIN_SECONDS * sampleRate)) return start;
    return notOverSelf(cursor.lastEnd + Math.round(t.fallbackGap * sampleRate));
  }
  if (t.kind === 'with') return notOverSelf(placed[t.anchor]!.start + Math.round(t.delay * sampleRate));
  throw new Error(`not a natural timing: ${t.kind}`);
}

/**
 * Starts and ends (samples) of `plan`'s lines whose speech lasts `lengths`
 * samples each; `leadIn` seconds of silence come before the first.
 * Throws OverlapTooLongError for a scripted overlap longer than its line.
 */
export function placeLines(
  plan: readonly PlannedLine[],
  lengths: readonly number[],
  sampleRate: number,
  leadIn: number,
  profile: DynamicsProfile,
): PlacedLine[] {
  if (lengths.length !== plan.length) throw new Error(`${plan.length} planned lines but ${lengths.length} lengths`);
  const placed: PlacedLine[] = [];
  const cursor: Cursor = { lastEnd: 0, holder: -1, speakerEnd: new Map(), scriptLineStart: 0 };
  plan.forEach((line, i) => {
    const length = lengths[i]!;
    const kind = line.timing.kind;
    const tidy = kind === 'first' || kind === 'after' || kind === 'overlap';
    const start = Math.max(
      0,
      tidy ? tidyStart(line, placed, cursor, sampleRate, leadIn) : naturalStart(line, length, placed, cursor, sampleRate, profile),
    );
    placed.push({ start, end: start + length });
    if (start + length > cursor.lastEnd) {
      cursor.lastEnd = start + length;
      cursor.holder = i;
    }
    if (line.inserted === undefined) cursor.scriptLineStart = start;
    cursor.speakerEnd.set(line.speaker, Math.max(cursor.speakerEnd.get(line.speaker) ?? 0, start + length));
  });
  return placed;
}
