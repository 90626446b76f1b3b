/**
 * QMSum meetings (real AMI, ICSI and parliamentary committee transcripts with
 * human summaries; github.com/Yale-LILY/QMSum, MIT) turned into the
 * simulator's meeting script format (simulator/scripts/meeting-script.ts), so
 * the renderer speaks a real conversation with its natural voices.
 *
 * What is kept and what is dropped (decision 080):
 * - every turn in order, by its speaker; one script speaker per QMSum speaker,
 *   voices assigned by the renderer as for any script (assignVoices);
 * - disfluencies as written: "um", "uh", repeated words, cut-off words;
 * - dropped: the transcribers' markup, which is not speech: {vocalsound},
 *   {disfmarker}, {gap}, {pause}, {comment}, {nonvocalsound} (any {word}),
 *   the committee transcripts' stage directions ([Laughter.], [Inaudible.],
 *   [Interruption.]) and ICSI's "@" (unintelligible); a turn with nothing
 *   left (a lone {vocalsound}) is left out;
 * - tidied for the synthesizer, not changed in wording: AMI's spelled letters
 *   "D_V_D_" become "D V D", ICSI's split contractions "it 's" become "it's",
 *   and the space the corpora put before punctuation goes.
 *
 * Pure: no I/O. Reading a meeting from a file or a QMSum copy is
 * qmsum-source.ts; rendering with the summary in the truth is render-qmsum.ts.
 */
import { z } from 'zod';
import { estimateLineSeconds } from '../scripts/estimate-duration.ts';
import { DEFAULT_PAUSE_SECONDS, parseScript } from '../scripts/meeting-script.ts';
import type { MeetingScript } from '../scripts/meeting-script.ts';

/** The parts of a QMSum meeting file the simulator reads; other fields (specific_query_list, ...) are allowed and ignored. */
export const qmsumMeetingSchema = z.looseObject({
  topic_list: z.array(z.looseObject({ topic: z.string(), relevant_text_span: z.array(z.array(z.string())) })).optional(),
  general_query_list: z.array(z.looseObject({ query: z.string(), answer: z.string() })),
  meeting_transcripts: z.array(z.looseObject({ speaker: z.string(), content: z.string() })).min(1),
});
export type QmsumMeeting = z.infer<typeof qmsumMeetingSchema>;

/** QMSum's three domains, named as its data/Academic, data/Product and data/Committee folders are. */
export type QmsumDomain = 'academic' | 'product' | 'committee';

/**
 * The domain of a meeting from its id: AMI meetings (ES, IS, TS, EN, IB, IN
 * series) are QMSum's Product domain, ICSI meetings (Bdb, Bed, Bmr, Bns, Bro,
 * Bsr, Btr, Buw) its Academic domain, the parliamentary committees (covid_*,
 * education_*, ...) the rest.
 */
export function qmsumDomain(meeting: string): QmsumDomain {
  if (/^(ES|IS|TS|EN|IB|IN)\d{4}[a-z]/.test(meeting)) return 'product';
  if (/^B(db|ed|mr|ns|ro|sr|tr|uw)\d{3}/.test(meeting)) return 'academic';
  return 'committee';
}

/**
 * One turn's words as the synthesizer should say them: markup dropped,
 * disfluencies kept. Returns "" when nothing speakable is left.
 */
export function cleanQmsumText(content: string): string {
  let text = content
    // Transcribers' markup in braces: {vocalsound}, {disfmarker}, {gap}, {pause}, {comment}, {nonvocalsound}, any other.
    .replace(/\{[^{}]*\}/g, ' ')
    // Committee stage directions and editorial notes: [Laughter.], [Inaudible.], [correction: ...].
    .replace(/\[[^\]]*\]/g, ' ')
    // ICSI writes an unintelligible stretch as "@" tokens ("learn @ @ .").
    .replace(/(^|\s)@+(?=\s|$)/g, ' ')
    // ... which can leave quotes with nothing inside (it 's like " @ @ ").
    .replace(/"\s*"/g, ' ')
    // AMI spells letters "D_V_D_" (and "T_V_'s", "T_V_s" for the plural): letters apart, the suffix on the last.
    .replace(/\b((?:[A-Za-z]_)+)('?s\b)?/g, (_all, letters: string, suffix: string | undefined) => {
      const spelled = letters.split('_').filter(Boolean).join(' ');
      return suffix === undefined ? spelled : `${spelled}'s`;
    })
    .replace(/[\s\u00a0]+/g, ' ');
  // ICSI splits contractions from their word ("it 's", "do n't"); joined, the voices say them as one.
  text = text.replace(/ (?=(?:'(?:s|re|ve|ll|d|m|t)|n't)\b)/gi, '');
  // The corpora put a space before punctuation ("project ." , "Um , so"); a run of marks left by dropped markup becomes its first.
  text = text
    .replace(/\s+(?=[.,?!;:])/g, '')
    .replace(/([.,?!;:])(?:\s*[.,;:])+/g, '$1')
    .replace(/^[\s.,?!;:]+/, '')
    .trim();
  return /[\p{L}\p{N}]/u.test(text) ? text : '';
}

/** The schema's longest line; longer turns (committee speeches) are spoken as several lines with a breath between. */
const MAX_LINE_CHARACTERS = 2000;
/** The breath between the parts of a turn split for length. */
const SPLIT_TURN_PAUSE_SECONDS = 0.15;
/** The pace the estimate of --minutes assumes: a natural voice's default (simulator/synth/voices.ts). */
const ESTIMATE_RATE_WPM = 160;
/** The script format's most speakers (meeting-script.ts), which the voice assignment keeps distinct. */
const MAX_SPEAKERS = 16;

/** Splits a long turn at sentence ends (or, failing that, at spaces) into parts of at most `max` characters. */
export function splitLongTurn(text: string, max = MAX_LINE_CHARACTERS): string[] {
  if (text.length <= max) return [text];
  const sentences = text.match(/[^.?!]+(?:[.?!]+|$)\s*/g) ?? [text];
  const parts: string[] = [];
  let current = '';
  const push = (): void => {
    if (current.trim() !== '') parts.push(current.trim());
    current = '';
  };
  for (const sentence of sentences) {
    if (current.length + sentence.length > max) push();
    if (sentence.length <= max) {
      current += sentence;
      continue;
    }
    for (const word of sentence.split(' ')) {
      if (current.length + word.length + 1 > max) push();
      current += `${word} `;
    }
  }
  push();
  return parts.filter((p) => /[\p{L}\p{N}]/u.test(p));
}

export interface QmsumCut {
  /**
   * Render about this many minutes: the turns up to the first whose middle would fall past them, estimated from
   * the text at 160 words a minute (simulator/scripts/estimate-duration.ts;
   * on train meetings the natural voices ran 3-7 % longer than estimated).
   */
  minutes?: number;
  /** Render at most this many turns (counted in QMSum's turns, markup-only turns included). */
  turns?: number;
}

export interface QmsumScript {
  script: MeetingScript;
  /** For each script line, the index of the QMSum turn it came from (a long turn gives several lines). */
  lineTurns: number[];
  /** QMSum turns looked at (the cut), and how many of them were markup only and left out. */
  turnsConsidered: number;
  turnsDropped: number;
  turnsTotal: number;
  /** Whether the whole meeting is rendered (no cut took anything away). */
  complete: boolean;
}

export interface QmsumScriptOptions extends QmsumCut {
  /** The meeting's id, for the title ("ES2006a"). */
  meeting: string;
}

/**
 * A QMSum meeting (or its first minutes or turns) as a meeting script.
 * Speakers are S1, S2, ... in order of first appearance, named by their QMSum
 * label ("Project Manager", "Grad A"); no voice is named, so the renderer
 * assigns its natural voices as to any script.
 */
export function qmsumToScript(meeting: QmsumMeeting, opts: QmsumScriptOptions): QmsumScript {
  const turns = meeting.meeting_transcripts;
  const keyOf = new Map<string, string>();
  const speakers: MeetingScript['speakers'] = [];
  const lines: MeetingScript['lines'] = [];
  const lineTurns: number[] = [];
  let estimatedEnd = 0.5; // the renderer's lead-in
  let considered = 0;
  let dropped = 0;
  for (const [index, turn] of turns.entries()) {
    if (opts.turns !== undefined && considered >= opts.turns) break;
    const text = cleanQmsumText(turn.content);
    const parts = text === '' ? [] : splitLongTurn(text);
    const turnSeconds = parts.reduce(
      (sum, part, i) => sum + (i > 0 ? SPLIT_TURN_PAUSE_SECONDS : DEFAULT_PAUSE_SECONDS) + estimateLineSeconds(part, ESTIMATE_RATE_WPM),
      0,
    );
    // A turn is spoken whole or not at all: the cut ends before the first turn whose middle would fall past the minutes
    // asked for, so a long turn (AMI has turns of 80 s) moves the end by at most half its length either way.
    if (opts.minutes !== undefined && lines.length > 0 && estimatedEnd + turnSeconds / 2 > opts.minutes * 60) break;
    considered++;
    if (parts.length === 0) {
      dropped++;
      continue;
    }
    const label = turn.speaker.trim() === '' ? 'Unknown speaker' : turn.speaker.trim();
    let key = keyOf.get(label);
    if (key === undefined) {
      key = `S${keyOf.size + 1}`;
      keyOf.set(label, key);
      speakers.push({ key, name: label.slice(0, 100) });
    }
    parts.forEach((part, i) => {
      lines.push({ speaker: key, text: part, ...(i > 0 ? { pause_before: SPLIT_TURN_PAUSE_SECONDS } : {}) });
      lineTurns.push(index);
    });
    estimatedEnd += turnSeconds;
  }
  if (lines.length === 0)
    throw new Error(`QMSum meeting ${opts.meeting}: no speech in the turns asked for (${considered} turns, all markup)`);
  if (speakers.length > MAX_SPEAKERS) {
    throw new Error(
      `QMSum meeting ${opts.meeting}: ${speakers.length} speakers in the turns asked for; the simulator keeps at most ${MAX_SPEAKERS} voices apart (render fewer minutes or turns)`,
    );
  }
  const part = considered < turns.length ? ` (first ${considered} of ${turns.length} turns)` : '';
  const script = parseScript(
    {
      title: `QMSum ${opts.meeting}${part}`,
      language: 'en',
      description: `QMSum meeting ${opts.meeting} (${qmsumDomain(opts.meeting)}), markup dropped, disfluencies kept (decision 080).`,
      speakers,
      lines,
    },
    `QMSum ${opts.meeting}`,
  );
  return {
    script,
    lineTurns,
    turnsConsidered: considered,
    turnsDropped: dropped,
    turnsTotal: turns.length,
    complete: considered === turns.length,
  };
}

/** The human summary of the whole meeting: the general query "Summarize the whole meeting." and its answer. */
export function wholeMeetingSummary(meeting: QmsumMeeting): { query: string; answer: string } | null {
  const found = meeting.general_query_list.find((q) => /summari[sz]e the whole meeting/i.test(q.query)) ?? meeting.general_query_list[0];
  return found === undefined ? null : { query: found.query, answer: found.answer };
}

/** QMSum's topics with a span that starts among the turns rendered (spans are turn indices, inclusive, as strings). */
export function topicsWithin(meeting: QmsumMeeting, turnsConsidered: number): { topic: string; relevant_text_span: string[][] }[] {
  return (meeting.topic_list ?? [])
    .filter((t) => t.relevant_text_span.some((span) => Number(span[0]) < turnsConsidered))
    .map((t) => ({ topic: t.topic, relevant_text_span: t.relevant_text_span }));
}
