/**
 * Meeting notes from a transcript: what the extractive summarizer says
 * happened (decision 078). Deterministic and offline; it writes no words of
 * its own beyond labels ("owner", "due", "agreed by"), every item is a
 * cleaned sentence of the transcript with the start time of its passage.
 *
 * - decisions: "we decided / agreed / let's go with / we'll go with …", and a
 *   proposal someone else then agrees to ("… on Thursday." — "Agreed."),
 *   with who proposed it and who agreed;
 * - action items: a speaker committing ("I will send …", "I'll …", "I'm
 *   going to …"), a task given to someone ("Priya will fix …", "you can book
 *   the servers today", "can you send …" answered yes), with the owner, the
 *   task and a due date read by chrono-node against the meeting's date;
 * - blockers and risks: "blocked", "waiting on", "risk", "the problem is" …;
 * - open questions: said to be open ("we still need to figure out …", "not
 *   decided yet"), or asked and answered with "I don't know";
 * - topics: the opening (the most salient of the meeting's first sentences,
 *   a statement of its purpose first), then the rest cut into as many
 *   stretches as the length allows, each represented by its most central
 *   sentence, in the order they came up.
 *
 * Negated cues ("no blockers", "we haven't decided"), questions, reported
 * speech ("she said they would …") and a future that is no commitment ("it
 * will rain", "I'll be honest") are not taken. Recognizer output (lower
 * case, no punctuation) works the same: cues are matched case-insensitively
 * on words, sentences are the splitter's pieces of at most 30 words.
 */
import type { SummaryInput } from '../../pipeline/types.ts';
import { dueDate, meetingReference } from './dates.ts';
import { contentTerms, cosine, splitSentences, textRank, tfidfVectors, type Sentence } from './sentences.ts';
import {
  AGREEMENT,
  ASSIGNMENT_CUES,
  BLOCKER_CUES,
  cleanSpoken,
  COMMITMENT_CUES,
  cue,
  DECIDER_BEFORE,
  DECISION_CUES,
  WORD_END,
  firstCue,
  GROUP_DECIDES,
  LETS,
  NEGATION,
  nonGlobal,
  NOT_A_TASK,
  NOT_AN_OWNER,
  OPEN_CUES,
  OWNER_REPLY,
  REPORTED_QUESTION,
  REPORTING,
  WORD_START,
  WHO_OWNS,
  words,
  type CueMatch,
} from './notes-grammar.ts';

type NoteKind = 'topic' | 'decision' | 'action' | 'blocker' | 'question';

export interface NoteItem {
  kind: NoteKind;
  /** Start time in seconds of the passage the item comes from. */
  start: number;
  speaker: string;
  /** The cleaned sentence (or, for an action item, the task). */
  text: string;
  /** Action items: who does it. */
  owner?: string;
  /** Action items: the due date; decisions: the day they name. YYYY-MM-DD, normalized against the meeting's date. */
  due?: string;
  /** Decisions: who agreed to someone else's proposal. */
  agreedBy?: string[];
  /** Decisions: the meeting's own ("we decided …", or a "let's …" someone else agreed to), not one speaker's. */
  byGroup?: boolean;
  /** Index of the sentence it comes from (ties, order, duplicates). */
  sentence: number;
  /** The next sentence, when the item quotes it too ("One is a blocker. Invoices show …"): no other section repeats it. */
  alsoSentence?: number;
  /** How strongly the sentence stands for the meeting (0..1). */
  rank: number;
}

export interface MeetingNotes {
  topics: NoteItem[];
  decisions: NoteItem[];
  actions: NoteItem[];
  blockers: NoteItem[];
  questions: NoteItem[];
  /** The words the notes may use in all (grows with the meeting). */
  wordBudget: number;
  /** The words of the transcript. */
  transcriptWords: number;
  /** Every sentence, for template sections still filled by cue words. */
  sentences: Sentence[];
  rank: number[];
}

export interface NotesOptions {
  /** The meeting's date (ISO timestamp): "by Friday" is read against it. Today when absent. */
  meetingDate?: string | null;
}

// ── Extraction ───────────────────────────────────────────────────────────

/** Notes grow by a word for every this many words of transcript… */
const TRANSCRIPT_WORDS_PER_NOTE_WORD = 30;
/** …up to this many (an hour is ≈9,000 words: tuned on QMSum train, decision 078). */
const MAX_WORDS = 170;
/** The share of the overview's words given to the opening: meetings state their purpose first. */
const OPENING_SHARE = 0.5;
/** Cosine similarity above which an overview line repeats one already taken. */
const DUPLICATE_SIMILARITY = 0.7;
/**
 * A sentence saying what the meeting is for: "this meeting is about …", "the
 * purpose of today's meeting", "we're here to …"; and the business a chair
 * names after the housekeeping (decision 099): "Welcome to the Children,
 * Young People and Education Committee", "Item 2 this morning is our
 * evidence session on …", "an inquiry into …", "this is our conceptual
 * design meeting".
 */
const PURPOSE = nonGlobal(
  cue(
    String.raw`(?:this|today's|the) meeting is (?:about|for|to)|purpose of (?:this|the|today's|our) meeting|(?:we are|we're) here to|(?:the|our|today's) agenda|kick-off meeting|` +
      String.raw`item (?:\d+|one|two|three|four|five)(?:,? then,?)?(?: this morning| this afternoon| today)?,? (?:is|will be)|(?:evidence|scrutiny) session|inquiry into|` +
      String.raw`(?:this|today's|our) (?:[\p{L}-]+ ){0,3}meeting (?:is|will be) (?:about|on|for)|(?:this is|welcome to) (?:the|our) (?:[\p{L}\p{N},-]+ ){0,8}(?:meeting|session|committee)|` +
      String.raw`we(?:'re| are) (?:here|meeting) (?:to|on)|the committee is (?:meeting|resuming|continuing)`,
  ),
);
/** The opening is chosen among this many times the sentences its words would hold (tuned on QMSum train, decision 082). */
const OPENING_WINDOW = 3;
/** How much the meeting's recurring content words count in picking an overview line (tuned on QMSum train). */
const SALIENCE_WEIGHT = 2;
/** The words of an overview line, on average: the stretches the rest of the meeting is cut into. */
const WORDS_PER_TOPIC = 15;
/**
 * How much a definite article raises an overview line's score and a
 * first- or second-person pronoun ("I", "we", "you", "it") lowers it, per
 * share of the line's words (tuned on QMSum train, decision 100).
 */
const DEFINITE_WEIGHT = 3;
const PRONOUN_WEIGHT = 3;
const SPEAKING_PRONOUN = /^(?:i|we|you|me|us|my|our|your|it|i['’](?:m|ve|ll|d)|we['’](?:re|ve|ll|d)|you['’](?:re|ll)|it['’]s)$/;

/**
 * How much a sentence reads like a line of notes rather than talk: one that
 * names things ("the remote", "the budget", "the inquiry") says what was
 * discussed; one full of "I", "we", "you", "it" ("I think we could do it
 * like that") needs the talk around it to mean anything. A factor around 1.
 */
function descriptiveness(s: Sentence): number {
  const w = words(s.text);
  if (w.length === 0) return 1;
  const definite = w.filter((x) => x === 'the').length / w.length;
  const pronouns = w.filter((x) => SPEAKING_PRONOUN.test(x)).length / w.length;
  return Math.max(0.2, 1 + DEFINITE_WEIGHT * definite - PRONOUN_WEIGHT * pronouns);
}

/** The words of the notes for a transcript of `transcriptWords` words: ≈130 for twenty minutes, MAX_WORDS from half an hour on. */
export function wordBudget(transcriptWords: number): number {
  return Math.round(Math.min(MAX_WORDS, Math.max(40, 30 + transcriptWords / TRANSCRIPT_WORDS_PER_NOTE_WORD)));
}

export function extractNotes(input: SummaryInput, opts: NotesOptions = {}): MeetingNotes {
  const sentences = splitSentences(input.segments).map((s) => ({ ...s, text: cleanSpoken(s.text) }));
  const vectors = tfidfVectors(sentences);
  const rank = textRank(vectors);
  const total = input.segments.reduce((n, s) => n + words(s.text).length, 0);
  const budget = wordBudget(total);
  const speakers = [...new Set(sentences.map((s) => s.speaker))];
  const reference = meetingReference(opts.meetingDate);

  const taken = new Set<number>();
  const decisions = findDecisions(sentences, rank, reference);
  for (const d of decisions) taken.add(d.sentence);
  // A decision may give a task too ("Finance approved it, so you can book the servers"): both are kept.
  const actions = findActions(sentences, rank, speakers, reference);
  for (const a of actions) taken.add(a.sentence);
  const blockers = findByCue('blocker', sentences, rank, BLOCKER_CUES).filter((b) => !taken.has(b.sentence));
  for (const b of blockers) taken.add(b.sentence);
  const questions = findOpenQuestions(sentences, rank).filter((q) => !taken.has(q.sentence));
  const topics = findTopics(sentences, vectors, rank, budget);
  return { topics, decisions, actions, blockers, questions, wordBudget: budget, transcriptWords: total, sentences, rank };
}

function item(kind: NoteKind, s: Sentence, rank: readonly number[], extra: Partial<NoteItem> = {}): NoteItem {
  return { kind, start: s.start, speaker: s.speaker, text: s.text, sentence: s.index, rank: rank[s.index] ?? 0, ...extra };
}

/** A sentence worth a line: a few words, some of them content. */
function substantial(s: Sentence, minWords = 4): boolean {
  return !s.question && words(s.text).length >= minWords && s.terms.length >= 2;
}

function findDecisions(sentences: readonly Sentence[], rank: readonly number[], reference = new Date()): NoteItem[] {
  const found = decisionsIn(sentences, rank);
  // A decision that names a day ("the final review on Thursday") carries it as a date, like a task's due date.
  return found.map((d) => {
    const due = dueDate(d.text, new Date(reference.getTime() + d.start * 1000));
    return due === undefined ? d : { ...d, due };
  });
}

function decisionsIn(sentences: readonly Sentence[], rank: readonly number[]): NoteItem[] {
  const out: NoteItem[] = [];
  for (const s of sentences) {
    if (s.question) continue;
    const agreedBy = agreersAfter(sentences, s);
    const hit = firstCue(s.text, DECISION_CUES);
    if (
      hit?.groups.bare !== undefined &&
      !DECIDER_BEFORE.test(
        s.text
          .slice(0, hit.index)
          .replace(/[,.;:]/g, '')
          .trim(),
      )
    )
      continue;
    if (hit !== undefined && words(s.text).length >= 3) {
      const byGroup = GROUP_DECIDES.test(s.text) || (LETS.test(s.text) && agreedBy.length > 0);
      out.push(item('decision', s, rank, { ...(agreedBy.length > 0 ? { agreedBy } : {}), ...(byGroup ? { byGroup } : {}) }));
      continue;
    }
    // A proposal someone else agrees to at once ("… review on Thursday." — "Agreed.") is decided too.
    if (
      agreedBy.length > 0 &&
      substantial(s, 5) &&
      firstCue(s.text, BLOCKER_CUES) === undefined &&
      firstCue(s.text, COMMITMENT_CUES) === undefined
    ) {
      const reply = sentences[s.index + 1];
      if (
        reply !== undefined &&
        /^(?:agreed|i agree|sounds good|good idea|deal|let's do (?:it|that)|that works|works for me)\b/i.test(reply.text)
      )
        out.push(item('decision', s, rank, { agreedBy }));
    }
  }
  return out;
}

/** Speakers other than the proposer who open their next sentence with agreement, before anyone disagrees. */
function agreersAfter(sentences: readonly Sentence[], s: Sentence): string[] {
  const out: string[] = [];
  for (let i = s.index + 1; i < Math.min(sentences.length, s.index + 4); i++) {
    const next = sentences[i]!;
    if (next.speaker === s.speaker) {
      if (out.length > 0) break;
      continue;
    }
    if (/^(?:no|but|i disagree|i don't think|not sure)\b/i.test(next.text)) break;
    if (AGREEMENT.test(next.text) && !out.includes(next.speaker)) out.push(next.speaker);
    else break;
  }
  return out;
}

function findActions(sentences: readonly Sentence[], rank: readonly number[], speakers: readonly string[], reference: Date): NoteItem[] {
  const out: NoteItem[] = [];
  for (const s of sentences) {
    const action = actionIn(s, sentences, speakers);
    if (action === undefined) continue;
    const due = dueDate(s.text, new Date(reference.getTime() + s.start * 1000));
    out.push(item('action', s, rank, { owner: action.owner, text: action.task, ...(due === undefined ? {} : { due }) }));
  }
  return out;
}

/** The owner and task of a sentence that gives one, else undefined. */
function actionIn(s: Sentence, sentences: readonly Sentence[], speakers: readonly string[]): { owner: string; task: string } | undefined {
  const text = s.text;
  if (!s.question) {
    const commit = firstCue(text, COMMITMENT_CUES);
    if (commit !== undefined && isTaskVerb(commit.groups.verb)) {
      const who = (commit.groups.who ?? '').toLowerCase();
      const owner = who === 'we' ? `${s.speaker} (with the team)` : s.speaker;
      const task = taskFrom(commit);
      if (completeTask(task)) return { owner, task };
    }
  }
  const named = ownerNamedInReply(s, sentences);
  if (named !== undefined) return named;
  const assign = firstCue(text, ASSIGNMENT_CUES);
  if (assign === undefined || !isTaskVerb(assign.groups.verb)) return undefined;
  const who = assign.groups.who ?? '';
  const lower = who.toLowerCase();
  let owner: string | undefined;
  if (lower === 'you') owner = addressee(s, sentences, speakers);
  else if (!NOT_AN_OWNER.has(lower) && who !== '' && /^\p{Lu}/u.test(who)) owner = who;
  else if (who === '' && !s.question) owner = s.speaker;
  if (owner === undefined) return undefined;
  // "Can you send …?" is a task only when the other side takes it.
  if (s.question) {
    const reply = sentences.slice(s.index + 1, s.index + 3).find((x) => x.speaker !== s.speaker);
    if (reply === undefined || !(AGREEMENT.test(reply.text) || /^(?:i'll|i will|will do|on it|no problem)\b/i.test(reply.text)))
      return undefined;
  }
  const task = taskFrom(assign);
  return completeTask(task) ? { owner, task } : undefined;
}

/**
 * An owner named in answer to "who owns …?": "Who owns the billing
 * service?" — "Priya does. She thinks the fix takes about two days." makes
 * Priya the owner of the billing service's work (the rest of the reply says
 * what it is). "I do." names the one replying; "Nobody does." names no one.
 */
function ownerNamedInReply(s: Sentence, sentences: readonly Sentence[]): { owner: string; task: string } | undefined {
  if (s.question) return undefined;
  // Recognizer output has no question mark: a trailing "who owns …" clause asks too, unless it is a relative one ("the person who owns …").
  const asks = (x: Sentence) =>
    x.question || (WHO_OWNS.test(x.text) && !/\b(?:person|one|someone|anyone|people|guy|team|those|the)\s+who\b/i.test(x.text));
  const asked = sentences
    .slice(Math.max(0, s.index - 2), s.index)
    .reverse()
    .find((x) => x.speaker !== s.speaker && asks(x));
  if (asked === undefined || sentences.slice(asked.index + 1, s.index).some((x) => x.speaker === s.speaker)) return undefined;
  const work = WHO_OWNS.exec(asked.text)?.groups?.work?.trim();
  const reply = OWNER_REPLY.exec(s.text);
  const who = reply?.groups?.who;
  if (work === undefined || reply === null || who === undefined) return undefined;
  const lower = who.toLowerCase();
  if (NEGATION.test(lower) || /^(?:nobody|noone|someone|somebody|everyone|everybody)$/.test(lower)) return undefined;
  const owner =
    lower === 'i'
      ? s.speaker
      : lower === 'we'
        ? `${s.speaker} (with the team)`
        : NOT_AN_OWNER.has(lower)
          ? undefined
          : who.charAt(0).toLocaleUpperCase('en') + who.slice(1);
  if (owner === undefined) return undefined;
  const more = s.text
    .slice(reply[0].length)
    .replace(/^[\s.,;:!]+/, '')
    .replace(/[.!?…]+$/u, '')
    .trim();
  const task = more === '' ? work : `${work}; ${more.charAt(0).toLocaleLowerCase('en')}${more.slice(1)}`;
  return { owner, task };
}

function isTaskVerb(verb: string | undefined): boolean {
  if (verb === undefined) return false;
  const v = verb.toLowerCase();
  return !NOT_A_TASK.has(v) && !/(?:ly|ed)$/.test(v) && !NOT_AN_OWNER.has(v);
}

/** The task in the words after the cue: "I will update the roadmap." → "update the roadmap". */
function taskFrom(m: CueMatch): string {
  return `${m.groups.verb ?? ''} ${m.rest}`.replace(/[.!?…]+$/u, '').trim();
}

const DANGLING = new Set('to of for with about on at by in into from a an the and or but so if'.split(' '));

/**
 * Content words a task needs to say what is to be done: "book the servers
 * today" and "draft the user survey questions" do; "tell you", "confirm
 * that", "use plastic" point at talk a reader of the notes did not hear
 * (chosen on QMSum train, decision 100).
 */
const MIN_TASK_TERMS = 3;

/** A task that reads as one: a verb and what it acts on, not cut off ("worry about", "use for a"), saying enough to act on. */
function completeTask(task: string): boolean {
  const w = words(task);
  return (
    w.length >= 2 && !DANGLING.has(w.at(-1)!) && !/,\s*i (?:guess|think|suppose)/i.test(task) && contentTerms(task).length >= MIN_TASK_TERMS
  );
}

/** Whom "you" speaks to: a name said in the sentence, else in a two-person exchange the other speaker, else the next one to speak. */
function addressee(s: Sentence, sentences: readonly Sentence[], speakers: readonly string[]): string | undefined {
  for (const name of speakers) {
    if (name === s.speaker) continue;
    const first = name.split(/\s+/)[0]!;
    if (first.length > 1 && new RegExp(`${WORD_START}${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${WORD_END}`, 'iu').test(s.text))
      return name;
  }
  const others = speakers.filter((x) => x !== s.speaker);
  if (others.length === 1) return others[0];
  return sentences.slice(s.index + 1, s.index + 4).find((x) => x.speaker !== s.speaker)?.speaker;
}

/**
 * Sentences with one of the cues. A short one ("One is a blocker.") takes the
 * next sentence of the same speaker along, which says what it is about.
 */
function findByCue(kind: NoteKind, sentences: readonly Sentence[], rank: readonly number[], cues: readonly RegExp[]): NoteItem[] {
  const out: NoteItem[] = [];
  for (const s of sentences) {
    if (s.question || firstCue(s.text, cues) === undefined) continue;
    if (substantial(s, 5)) {
      out.push(item(kind, s, rank));
      continue;
    }
    const next = sentences[s.index + 1];
    if (next !== undefined && next.speaker === s.speaker && !next.question && substantial(next, 4))
      out.push(
        item(kind, s, rank, {
          text: `${s.text} ${next.text}`,
          alsoSentence: next.index,
          rank: Math.max(rank[s.index] ?? 0, rank[next.index] ?? 0),
        }),
      );
  }
  return out;
}

function findOpenQuestions(sentences: readonly Sentence[], rank: readonly number[]): NoteItem[] {
  const out: NoteItem[] = [];
  for (const s of sentences) {
    if (!s.question && substantial(s, 5) && (firstCue(s.text, OPEN_CUES) !== undefined || REPORTED_QUESTION.test(s.text))) {
      out.push(item('question', s, rank));
      continue;
    }
    if (!s.question || words(s.text).length < 5 || s.terms.length < 2 || REPORTING.test(s.text)) continue;
    // A question counts as left open when the next speaker says they do not know.
    const reply = sentences.slice(s.index + 1, s.index + 3).find((x) => x.speaker !== s.speaker);
    if (reply !== undefined && /\b(?:don't know|do not know|not sure|no idea|we'll see|hard to say|no one knows)\b/i.test(reply.text))
      out.push(item('question', s, rank));
  }
  return out;
}

/**
 * The topics in the order they came up: the transcript cut into `count`
 * stretches of equal length, each giving its most representative sentence —
 * close to the stretch's own centroid and well ranked over the whole
 * meeting, neither a fragment nor a rambling run, naming things rather than
 * pointing at them (descriptiveness).
 */
export function findTopics(
  sentences: readonly Sentence[],
  vectors: readonly Map<string, number>[],
  rank: readonly number[],
  budget: number,
): NoteItem[] {
  const usable = sentences.filter((s) => substantial(s, 6));
  if (usable.length === 0) {
    const any = sentences.filter((s) => words(s.text).length > 0);
    return any.slice(0, 1).map((s) => item('topic', s, rank));
  }
  // How many sentences of the meeting each content word is said in: a line
  // carrying the meeting's recurring words ("remote", "battery", "budget")
  // says more about it than one of rare or one-off words.
  const df = new Map<string, number>();
  for (const s of sentences) for (const t of new Set(s.terms)) df.set(t, (df.get(t) ?? 0) + 1);
  const maxDf = Math.max(1, ...df.values());
  const salience = (s: Sentence) => {
    const terms = [...new Set(s.terms)];
    if (terms.length === 0) return 0;
    const sum = terms.reduce((a, t) => a + Math.log1p(df.get(t) ?? 0) / Math.log1p(maxDf), 0);
    return sum / Math.sqrt(Math.max(8, words(s.text).length));
  };
  const out: NoteItem[] = [];
  let used = 0;
  // The opening first: a meeting says what it is about near its start, but its
  // very first lines are often greetings and housekeeping ("this will be a
  // hybrid meeting"). Of the first OPENING_WINDOW times as many sentences as
  // the opening's words would hold, the most salient ones, in their order.
  let fill = 0;
  for (let filled = 0; fill < usable.length && filled < OPENING_SHARE * budget; fill++) filled += words(usable[fill]!.text).length;
  const openingPool = usable.slice(0, Math.max(3, OPENING_WINDOW * fill));
  // A sentence that states the purpose ("this meeting is about …") comes first whatever its words.
  const openingScore = (s: Sentence) =>
    (PURPOSE.test(s.text) ? 10 : 0) + (rank[s.index]! + SALIENCE_WEIGHT * salience(s)) * lengthFit(s) * descriptiveness(s);
  const opening: Sentence[] = [];
  for (const s of [...openingPool].sort((a, b) => openingScore(b) - openingScore(a) || a.index - b.index)) {
    if (used >= OPENING_SHARE * budget) break;
    if (opening.some((o) => cosine(vectors[o.index]!, vectors[s.index]!) > DUPLICATE_SIMILARITY)) continue;
    opening.push(s);
    used += words(s.text).length;
  }
  for (const s of opening.sort((a, b) => a.index - b.index)) out.push(item('topic', s, rank));
  const rest = usable.slice(out.length === 0 ? 0 : usable.findIndex((s) => s.index === out.at(-1)!.sentence) + 1);
  const count = Math.max(1, Math.min(rest.length, Math.round((budget - used) / WORDS_PER_TOPIC)));
  for (let b = 0; b < count && used < budget; b++) {
    const block = rest.slice(Math.floor((b * rest.length) / count), Math.floor(((b + 1) * rest.length) / count));
    if (block.length === 0) continue;
    const centroid = new Map<string, number>();
    for (const s of block) for (const [t, w] of vectors[s.index]!) centroid.set(t, (centroid.get(t) ?? 0) + w);
    const score = (s: Sentence) =>
      (cosine(vectors[s.index]!, centroid) / Math.sqrt(block.length) + rank[s.index]! + SALIENCE_WEIGHT * salience(s)) *
      lengthFit(s) *
      descriptiveness(s);
    let best = block[0]!;
    for (const s of block) if (score(s) > score(best)) best = s;
    if (out.some((o) => o.sentence === best.index || cosine(vectors[o.sentence]!, vectors[best.index]!) > DUPLICATE_SIMILARITY)) continue;
    if (used + words(best.text).length > budget * 1.15 && out.length > 0) continue;
    out.push(item('topic', best, rank));
    used += words(best.text).length;
  }
  return out.sort((a, b) => a.sentence - b.sentence);
}

/** Neither a fragment nor a rambling run: a line of 8 to 35 words counts fully, others less. */
function lengthFit(s: Sentence): number {
  const n = words(s.text).length;
  return n < 8 ? n / 8 : n > 35 ? 35 / n : 1;
}
