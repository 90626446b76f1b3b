/**
 * The in-process summarizer: it picks sentences of the transcript, it writes
 * none. Decision 011.
 *
 * 1. Sentences: each segment's text split at . ! ? (a transcript without
 *    punctuation, as pocketsphinx writes, is cut into pieces of at most
 *    MAX_SENTENCE_WORDS words), each keeping its speaker. A fragment too
 *    short to stand alone ("One is a blocker.", "Priya does.") joins the
 *    sentence after it, so the cue it carries reaches what it points at.
 *    Questions are marked (a "?", or an auxiliary or wh-word opening, which
 *    also catches unpunctuated recognizer output): a question asks, it does
 *    not state a blocker, a decision or a plan, so cue sections skip them
 *    and ranked sections rank them lower.
 * 2. Rank: TextRank — PageRank over the graph of TF-IDF cosine similarities
 *    between sentences — so a sentence ranks high when it shares many
 *    meaningful words with other sentences. Very long transcripts use
 *    similarity to the whole transcript's centroid instead (linear time).
 * 3. Sections: a template section with cue words takes the sentences that
 *    contain them (most cue hits first, rank breaks ties); a sentence goes
 *    to one section only. Sections without cues take the best-ranked rest.
 *    Near-duplicates of a chosen sentence are skipped. Each section lists its
 *    sentences in transcript order.
 *
 * Everything is deterministic: the same transcript gives the same summary.
 */
import {
  CancelledError,
  StageError,
  type StageControl,
  type Summarizer,
  type SummaryInput,
  type SummaryOutput,
} from '../../pipeline/types.ts';
import { extractNotes, findTopics, type MeetingNotes, type NoteItem } from './notes.ts';
import { cosine, MIN_SENTENCE_WORDS, tfidfVectors, type Sentence, type Vector } from './sentences.ts';
import { templateFor, type SummaryTemplate } from './templates.ts';

/** Nothing to summarize: the caller answers 422 (API.md: "422 if the transcript is empty"). */
export class EmptyTranscriptError extends StageError {
  constructor() {
    super('the transcript is empty: there is nothing to summarize', { retryable: false });
    this.name = 'EmptyTranscriptError';
  }
}

/** A sentence with fewer content words is never picked ("Thanks everyone, see you tomorrow."). */
const MIN_CONTENT_TERMS = 2;
/** Cosine similarity above which a sentence repeats one already chosen. */
const DUPLICATE_SIMILARITY = 0.7;
/** A question's share of its rank in sections filled by rank: it may open a topic, but a statement says more. */
const QUESTION_RANK = 0.5;

export class ExtractiveSummarizer implements Summarizer {
  readonly name = 'extractive';

  async summarize(input: SummaryInput, control: StageControl): Promise<SummaryOutput> {
    if (control.signal.aborted) throw new CancelledError();
    await control.checkpoint();
    const summary = summarizeExtractively(input);
    control.progress(1);
    return summary;
  }
}

export function summarizeExtractively(input: SummaryInput): SummaryOutput {
  if (!input.segments.some((s) => /[\p{L}\p{N}]/u.test(s.text))) throw new EmptyTranscriptError();
  const template = templateFor(input.templateId);
  const notes = extractNotes(input, { meetingDate: input.meetingDate ?? null });
  if (notes.sentences.length === 0) throw new EmptyTranscriptError();
  const rendered = notesSections(template, notes);
  return { text: renderSections(rendered), sections: rendered, model: 'extractive' };
}

/** The share of the notes' words that decisions, action items, blockers and questions may use together. */
const PARTS_SHARE = 0.2;
/** Each of those sections may use this many words of its items whatever the budget. */
const MIN_SECTION_WORDS = 12;
/** Cosine similarity above which an overview line would repeat an item of another section. */
const OVERVIEW_REPEAT_SIMILARITY = 0.5;
/** The share of the notes' words each section filled by cue words may use (a long meeting's one-on-one stays in length). */
const CUE_SECTION_SHARE = 0.15;
/** Below this many words of transcript (≈ 7 minutes) the small sections are not limited by words. */
const SHORT_MEETING_WORDS = 1000;

/**
 * The template's sections filled from the notes (decision 078): the parts
 * with few items (decisions, action items, blockers, questions) first, each
 * its best-ranked items up to the section's max; then the topics of the
 * overview take the words left of the notes' budget; sections still defined
 * by cue words (stand-up updates, one-on-one feedback and goals) last. An
 * item shows once, in the first section that takes it; each section lists
 * its items in the order they were said.
 */
function notesSections(template: SummaryTemplate, notes: MeetingNotes): { title: string; text: string }[] {
  const used = new Set<number>();
  const lines = new Map<string, string[]>();
  let wordsLeft = notes.wordBudget;
  const countWords = (line: string) => line.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  /** Takes the best-ranked items up to `max` and while `room` words remain (one item at least, so a section with something never says "none"). */
  const takeItems = (
    title: string,
    items: readonly NoteItem[],
    max: number,
    room: number,
    fresh: boolean,
    naming: Naming = 'every line',
  ) => {
    const picked: NoteItem[] = [];
    let spent = 0;
    for (const i of [...items].filter((x) => !fresh || !used.has(x.sentence)).sort((a, b) => b.rank - a.rank || a.sentence - b.sentence)) {
      if (picked.length >= max) break;
      const n = countWords(i.text);
      if (picked.length > 0 && spent + n > room) continue;
      picked.push(i);
      spent += n;
    }
    picked.sort((a, b) => a.sentence - b.sentence);
    for (const i of picked) {
      used.add(i.sentence);
      if (i.alsoSentence !== undefined) used.add(i.alsoSentence);
    }
    // The room counts the items' own words; the budget counts whole lines (labels and names too).
    const rendered = picked.map((i, k) => renderItem(i, naming === 'every line' || namesItsSpeaker(i, picked[k - 1])));
    wordsLeft -= rendered.reduce((n, line) => n + countWords(line), 0);
    lines.set(title, rendered);
  };
  const bySmallPartsFirst = template.sections.filter((s) => s.notes !== undefined && s.notes !== 'topics');
  // The small parts share PARTS_SHARE of the budget, the overview keeps the rest.
  // A short call keeps all its decisions and tasks (up to each section's max): they are the point of its notes.
  const partsRoom =
    notes.transcriptWords < SHORT_MEETING_WORDS
      ? Infinity
      : Math.max(MIN_SECTION_WORDS, (PARTS_SHARE * notes.wordBudget) / Math.max(1, bySmallPartsFirst.length));
  for (const section of bySmallPartsFirst) takeItems(section.title, notes[section.notes!], section.max, partsRoom, false);
  const vectors = tfidfVectors(notes.sentences);
  // The overview does not say again what a decision, task, blocker or question already says in other words.
  const repeatsAnItem = (s: Sentence) => [...used].some((u) => cosine(vectors[u]!, vectors[s.index]!) > OVERVIEW_REPEAT_SIMILARITY);
  // Sections still filled by cue words (stand-up updates, one-on-one feedback and goals) keep
  // their share of the budget, so the overview does not take it all and the notes stay in length.
  const cueSections = template.sections.filter((s) => s.notes === undefined && s.cues.length > 0);
  const cueRoom =
    notes.transcriptWords < SHORT_MEETING_WORDS ? Infinity : Math.max(MIN_SECTION_WORDS, CUE_SECTION_SHARE * notes.wordBudget);
  const cueReserve = Number.isFinite(cueRoom) ? cueRoom * cueSections.length : 0;
  for (const section of template.sections.filter((s) => s.notes === 'topics')) {
    const topics = findTopics(
      notes.sentences.filter((s) => !used.has(s.index) && !repeatsAnItem(s)),
      vectors,
      notes.rank,
      Math.max(45, wordsLeft - cueReserve),
    );
    takeItems(section.title, topics, topics.length, Infinity, true, 'when the speaker changes');
  }
  if (cueSections.length > 0) {
    const cueTemplate = { ...template, sections: cueSections };
    const fresh = notes.sentences.filter((s) => !used.has(s.index));
    for (const section of pickSections(cueTemplate, fresh, vectors, notes.rank)) {
      const items = section.sentences.map((s): NoteItem => ({
        kind: 'topic',
        start: s.start,
        speaker: s.speaker,
        text: s.text,
        sentence: s.index,
        rank: notes.rank[s.index] ?? 0,
      }));
      takeItems(section.title, items, items.length, cueRoom, true);
    }
  }
  return template.sections.map((s) => {
    const l = lines.get(s.title) ?? [];
    return { title: s.title, text: l.length === 0 ? s.empty : l.join('\n') };
  });
}

/**
 * How a section names the speakers of its lines: on every line (decisions,
 * tasks, a stand-up's updates: who said it is the point), or, in the
 * overview, the way minutes read: a speaker once for a run of their lines,
 * and never a diarizer's label ("S2", "Speaker 2"), which tells a reader
 * nothing the transcript does not (decision 100).
 */
type Naming = 'every line' | 'when the speaker changes';

/** A speaker label the diarizer made up rather than a name someone gave: "S1", "Speaker 2". */
function isGenericLabel(label: string): boolean {
  return /^(?:s|speaker ?)\d+$/i.test(label.trim());
}

/** In the overview: whether a line names its speaker, given the line before it. */
function namesItsSpeaker(item: NoteItem, previous: NoteItem | undefined): boolean {
  return !isGenericLabel(item.speaker) && item.speaker !== previous?.speaker;
}

/** One line of a section: "- (05:40) Alice: …", with owner, due date and who agreed where there are; "- (05:40) …" when `named` is false. */
function renderItem(item: NoteItem, named = true): string {
  const at = `(${clockTime(item.start)})`;
  if (!named) return `- ${at} ${item.text}`;
  const speaker = shortName(item.speaker);
  if (item.kind === 'action') {
    const team = ' (with the team)';
    const owner =
      item.owner === undefined
        ? speaker
        : item.owner.endsWith(team)
          ? `${shortName(item.owner.slice(0, -team.length))}${team}`
          : shortName(item.owner);
    const said = item.owner !== undefined && !item.owner.startsWith(item.speaker) ? ` (said by ${speaker})` : '';
    const due = item.due === undefined ? '' : ` Due: ${item.due}.`;
    return `- ${at} Owner: ${owner}. Task: ${item.text}.${due}${said}`;
  }
  const agreed = item.agreedBy !== undefined && item.agreedBy.length > 0 ? ` (agreed by ${item.agreedBy.map(shortName).join(', ')})` : '';
  const date = item.kind === 'decision' && item.due !== undefined ? ` Date: ${item.due}.` : '';
  // A decision the meeting made as a whole is the group's, as minutes say it, not the one speaker's who worded it.
  const who = item.kind === 'decision' && item.byGroup === true ? 'The group decided' : speaker;
  return `- ${at} ${who}: ${item.text}${agreed}${date}`;
}

/**
 * A speaker as notes name them: the label without what a trailing
 * parenthesis adds ("Hon. Bill Blair (Minister of Public Safety)" → "Hon.
 * Bill Blair", "The Chair (Hon. Anthony Rota (Nipissing, Lib.))" → "The
 * Chair"), so a line is about what was said; a label that is only a
 * parenthesis stays whole.
 */
export function shortName(label: string): string {
  let s = label.trim();
  // A trailing group with one level of nesting inside, as the committee transcripts write them.
  for (let i = 0; i < 2 && /\)\s*$/.test(s); i++) {
    const stripped = s.replace(/\s*\((?:[^()]|\([^()]*\))*\)\s*$/, '').trim();
    if (stripped === '' || stripped === s) break;
    s = stripped;
  }
  return s;
}

/** m:ss under an hour, h:mm:ss from one hour: the time of an item in the meeting. */
export function clockTime(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${String(m).padStart(2, '0')}:${sec}`;
}

/** "Title:\n- …" blocks separated by a blank line: the summary's plain text. */
export function renderSections(sections: readonly { title: string; text: string }[]): string {
  return sections.map((s) => `${s.title}:\n${s.text}`).join('\n\n');
}

// ── Sections ─────────────────────────────────────────────────────────────

interface PickedSection {
  title: string;
  empty: string;
  sentences: Sentence[];
}

function pickSections(
  template: SummaryTemplate,
  sentences: readonly Sentence[],
  vectors: readonly Vector[],
  rank: readonly number[],
): PickedSection[] {
  const candidates = sentences.filter((s) => s.text.split(' ').length >= MIN_SENTENCE_WORDS && s.terms.length >= MIN_CONTENT_TERMS);
  const statements = candidates.filter((s) => !s.question);
  const cueSections = template.sections.filter((s) => s.cues.length > 0);
  const matchers = new Map(cueSections.map((s) => [s.title, s.cues.map(cueRegExp)]));
  const priority = (title: string) => {
    const p = template.priority.indexOf(title);
    return p === -1 ? template.priority.length + template.sections.findIndex((s) => s.title === title) : p;
  };

  // Each sentence goes to the cue section it matches most (priority on a tie).
  const home = new Map<number, { title: string; hits: number }>();
  for (const s of statements) {
    let best: { title: string; hits: number } | undefined;
    for (const section of cueSections) {
      const hits = matchers.get(section.title)!.filter((re) => cueHit(re, s.text)).length;
      if (hits === 0) continue;
      if (best === undefined || hits > best.hits || (hits === best.hits && priority(section.title) < priority(best.title)))
        best = { title: section.title, hits };
    }
    if (best !== undefined) home.set(s.index, best);
  }

  const chosen: Sentence[] = [];
  const isDuplicate = (s: Sentence) => chosen.some((c) => cosine(vectors[c.index]!, vectors[s.index]!) > DUPLICATE_SIMILARITY);
  const take = (pool: Sentence[], max: number, key: (s: Sentence) => number): Sentence[] => {
    const picked: Sentence[] = [];
    for (const s of [...pool].sort((a, b) => key(b) - key(a) || a.index - b.index)) {
      if (picked.length >= max) break;
      if (chosen.includes(s) || isDuplicate(s)) continue;
      picked.push(s);
      chosen.push(s);
    }
    return picked.sort((a, b) => a.index - b.index);
  };

  // Cue sections first, so ranked sections (overview, key points) take what is left.
  const picked = new Map<string, Sentence[]>();
  for (const section of cueSections) {
    const pool = statements.filter((s) => home.get(s.index)?.title === section.title);
    picked.set(
      section.title,
      take(pool, section.max, (s) => Math.min(2, home.get(s.index)!.hits) + rank[s.index]!),
    );
  }
  for (const section of template.sections.filter((s) => s.cues.length === 0)) {
    picked.set(
      section.title,
      take(candidates, section.max, (s) => rank[s.index]! * (s.question ? QUESTION_RANK : 1)),
    );
  }
  return template.sections.map((s) => ({ title: s.title, empty: s.empty, sentences: picked.get(s.title) ?? [] }));
}

/**
 * A cue counts unless a negation comes just before it ("no blockers", "we
 * haven't decided", "nothing is blocking") or right after it ("we will not
 * commit").
 */
function cueHit(cue: RegExp, text: string): boolean {
  for (const m of text.matchAll(cue)) {
    const before = text.slice(0, m.index).toLowerCase().split(/\s+/).filter(Boolean).slice(-2);
    const after =
      text
        .slice(m.index + m[0].length)
        .toLowerCase()
        .split(/\s+/)
        .find(Boolean) ?? '';
    if (before.some((w) => /^(no|not|nothing|none|never|without|n't)$|n['’]t$/.test(w))) continue;
    if (/^(not|never)\b/.test(after)) continue;
    return true;
  }
  return false;
}

function cueRegExp(cue: string): RegExp {
  const escaped = cue
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/'/g, "['’]")
    .replace(/ /g, '\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}'’])${escaped}(?![\\p{L}\\p{N}'’])`, 'giu');
}
