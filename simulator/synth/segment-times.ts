/**
 * Word times from a synthesizer's own segment timing.
 *
 * Flite prints every segment (phone or pause) of an utterance with its end
 * time (-psdur), but not which word a segment belongs to. The words' phones
 * are known separately (each word said on its own, -ps), so the two phone
 * sequences are aligned by edit distance: the sentence's phones usually
 * equal the words' phones in a row, and where they differ (a word said
 * differently in context, such as "the" before a vowel) the alignment still
 * gives every sentence phone to one word. A word starts where the segment
 * before its first phone ends and ends where its last phone ends.
 */

export interface TimedSegment {
  /** Phone name as the synthesizer spells it; "pau" is silence. */
  name: string;
  /** End time in seconds from the start of the utterance's audio. */
  end: number;
}

export interface WordTime {
  start: number;
  end: number;
}

/** The silence segment of the CMU phone sets that Flite and Festival use. */
const PAUSE = 'pau';

/**
 * Parses Flite's -psdur output ("pau:0.220 hh:0.300 ay:0.494 ..."), one
 * utterance per line; only the first non-empty line is read, as the renderer
 * synthesizes one utterance per call.
 */
export function parseFliteSegments(output: string): TimedSegment[] {
  const line = output.split('\n').find((l) => l.trim().length > 0) ?? '';
  const segments: TimedSegment[] = [];
  for (const field of line.trim().split(/\s+/)) {
    if (field === '') continue;
    const colon = field.lastIndexOf(':');
    const end = Number(field.slice(colon + 1));
    if (colon <= 0 || !Number.isFinite(end)) throw new Error(`unexpected segment "${field}" in flite's timing output`);
    segments.push({ name: field.slice(0, colon), end });
  }
  return segments;
}

/**
 * Parses Flite's -ps output for words said one per utterance: one line of
 * phones per word, pauses removed.
 */
export function parseFliteWordPhones(output: string): string[][] {
  return output
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) =>
      l
        .trim()
        .split(/\s+/)
        .filter((p) => p !== PAUSE),
    );
}

/**
 * Gives each word the span of the sentence segments its phones align to.
 * Returns undefined when the sentence has no phones at all.
 */
export function wordTimesFromSegments(
  wordPhones: readonly (readonly string[])[],
  segments: readonly TimedSegment[],
): WordTime[] | undefined {
  // Sentence phones with the time their segment starts (the end of the one before).
  const spoken: { name: string; start: number; end: number }[] = [];
  segments.forEach((s, i) => {
    if (s.name !== PAUSE) spoken.push({ name: s.name, start: i === 0 ? 0 : segments[i - 1]!.end, end: s.end });
  });
  if (spoken.length === 0) return undefined;
  const flat: { name: string; word: number }[] = [];
  wordPhones.forEach((phones, word) => {
    for (const name of phones) flat.push({ name, word });
  });

  // Edit distance between the words' phones (rows) and the sentence's phones (columns).
  const n = flat.length;
  const m = spoken.length;
  const cost = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const same = flat[i - 1]!.name === spoken[j - 1]!.name ? 0 : 1;
      cost[i]![j] = Math.min(cost[i - 1]![j - 1]! + same, cost[i - 1]![j]! + 1, cost[i]![j - 1]! + 1);
    }
  }
  // Walk back: every sentence phone goes to the word of the phone it is matched
  // with, or, when it has no counterpart, to the word of the phone beside it.
  const owner = new Array<number>(m).fill(-1);
  let i = n;
  let j = m;
  while (j > 0) {
    if (i > 0 && cost[i]![j] === cost[i - 1]![j - 1]! + (flat[i - 1]!.name === spoken[j - 1]!.name ? 0 : 1)) {
      owner[j - 1] = flat[i - 1]!.word;
      i--;
      j--;
    } else if (i > 0 && cost[i]![j] === cost[i - 1]![j]! + 1) {
      i--; // a word phone the sentence left out
    } else {
      owner[j - 1] = i > 0 ? flat[i - 1]!.word : (flat[0]?.word ?? 0); // an extra sentence phone
      j--;
    }
  }

  const times: (WordTime | undefined)[] = wordPhones.map(() => undefined);
  owner.forEach((word, k) => {
    if (word < 0 || word >= times.length) return;
    const t = times[word];
    if (t === undefined) times[word] = { start: spoken[k]!.start, end: spoken[k]!.end };
    else t.end = Math.max(t.end, spoken[k]!.end);
  });
  // A word none of whose phones was spoken (rare: a symbol said as nothing)
  // gets an empty span where the previous word ended.
  const out: WordTime[] = [];
  let cursor = spoken[0]!.start;
  for (const t of times) {
    const start = Math.max(cursor, t?.start ?? cursor);
    const end = Math.max(start, t?.end ?? start);
    out.push({ start, end });
    cursor = end;
  }
  return out;
}
