/**
 * The cue grammar of the meeting notes (notes.ts, decision 078): how a
 * spoken sentence is cleaned for the notes, and the word patterns that mark
 * a decision, a commitment, an assignment, a blocker or an open question,
 * with the negation and reported-speech guards that keep a cue from being
 * taken. Patterns only: which sentence becomes which item is notes.ts.
 */

// ── Cleaning spoken text ─────────────────────────────────────────────────

const FILLER = /(?<![\p{L}'’-])(?:u+m+|u+h+m*|e+r+m+|e+h+|a+h+|h+m+|m+-?hm+|mm+|uh-huh|you know|i mean)(?![\p{L}'’-])[,.]?/giu;
/** Hedges of speech that carry nothing in notes: "it's basically just sort of round" → "it's round". */
const HEDGES =
  /(?<![\p{L}'’-])(?:basically|actually|obviously|literally|just|sort of|kind of(?= [\p{L}]+ing| a| the| like)|i guess|i suppose)(?![\p{L}'’-])[,]?/giu;
/**
 * Asides and intensifiers that carry nothing in notes either: "I think the
 * case is really too big, and so on" → "the case is too big". Chosen on QMSum
 * train (decision 099 has the figures).
 */
const ASIDES =
  /(?<![\p{L}'’-])(?:i think|i'd say|i would say|you see|let's say|so to speak|or something(?: like that)?|or whatever|and stuff(?: like that)?|and things like that|and so on|et cetera|pretty much|really|quite|like(?=,))(?![\p{L}'’-])[,]?/giu;
const LEADING_DISCOURSE =
  /^(?:(?:okay|ok|so|well|right|yeah|yep|yes|and|but|oh|alright|now|anyway|actually|basically|then|um|uh)(?![\p{L}'’])[,.]?\s*)+/iu;

/**
 * A spoken sentence as it reads in notes: fillers (um, uh, you know) and
 * stutters ("the the", "I I") out, no opening "okay so well", capital first
 * letter and closing punctuation. Words are never changed or added.
 */
export function cleanSpoken(text: string): string {
  let s = text.replace(FILLER, ' ');
  s = s.replace(HEDGES, ' ').replace(ASIDES, ' ');
  s = s.replace(/\s+/g, ' ').trim();
  // Stutters and restarts: a word (or two) said again at once.
  for (let i = 0; i < 2; i++)
    s = s.replace(/(?<![\p{L}\p{N}'’])([\p{L}\p{N}'’]+(?: [\p{L}\p{N}'’]+)?)(?:,? \1)+(?![\p{L}\p{N}'’])/giu, '$1');
  s = s.replace(/\s+([,.!?;:])/g, '$1').replace(/([,;:])(?=[,.!?;:])/g, '');
  const before = s;
  s = s.replace(LEADING_DISCOURSE, '');
  if (s.split(' ').length < 3) s = before; // "Yes, okay." stays what it was
  s = s.replace(/^[,.;:\s-]+/, '').trim();
  if (s === '') return '';
  s = s.charAt(0).toLocaleUpperCase('en') + s.slice(1);
  return /[.!?…]["')\]]?$/u.test(s) ? s : `${s.replace(/[,;:]$/, '')}.`;
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
}

// ── Cue grammar ──────────────────────────────────────────────────────────

export const NEGATION = /^(?:no|not|nothing|none|never|without|nobody|neither|nor|cannot)$|n['’]t$/;
export const REPORTING =
  /\b(?:said|says|say|told|tells|mentioned|claimed|claims|reported|heard|asked|asks|wondered|wonders|thought|according to|apparently|supposedly)\b/i;

/** True when a negation stands among the few words before `index` (or right after the cue). */
function negatedAt(text: string, index: number, length: number): boolean {
  const before = words(text.slice(0, index)).slice(-3);
  const after = words(text.slice(index + length)).slice(0, 1);
  return before.some((w) => NEGATION.test(w)) || after.some((w) => /^(?:not|never)$/.test(w));
}

/** A reporting verb before the cue: someone else's words, not this meeting's ("she said they would fix it"). */
function reportedAt(text: string, index: number): boolean {
  return REPORTING.test(text.slice(0, index));
}

export interface CueMatch {
  index: number;
  length: number;
  /** The words after the cue, to the end of the sentence. */
  rest: string;
  groups: Record<string, string | undefined>;
}

export function firstCue(text: string, patterns: readonly RegExp[]): CueMatch | undefined {
  for (const re of patterns) {
    for (const m of text.matchAll(re)) {
      if (negatedAt(text, m.index, m[0].length) || reportedAt(text, m.index)) continue;
      return { index: m.index, length: m[0].length, rest: text.slice(m.index + m[0].length).trim(), groups: m.groups ?? {} };
    }
  }
  return undefined;
}

/** Where a word starts and ends: letters, digits and apostrophes belong to it. */
export const WORD_START = String.raw`(?<![\p{L}\p{N}'’])`;
export const WORD_END = String.raw`(?![\p{L}\p{N}'’])`;
export const cue = (source: string) => new RegExp(`${WORD_START}(?:${source.replace(/'/g, "['’]")})${WORD_END}`, 'giu');

export const DECISION_CUES = [
  cue(
    String.raw`(?:we|i|they|everyone|everybody|the team|the group|finance|management)(?:'ve| have| had)? (?:all )?(?:decided|agreed|settled|chosen|chose|opted|approved|concluded)`,
  ),
  cue(String.raw`(?:it|that|this)(?:'s| is| was| has been) (?:decided|agreed|settled|approved|final)`),
  // The bare verb ("… agreed on the rubber case") only when the meeting decides: see DECIDER_BEFORE.
  cue(String.raw`(?<bare>decided|agreed|approved|settled) (?:on|to|that|it)`),
  cue(String.raw`(?:we|i)(?:'ll| will| are going to|'re going to| should) (?:go|stick) with`),
  cue(String.raw`let's (?:go with|stick with|use|keep|do|make|choose|take)|let us (?:go with|stick with|use|keep|choose)`),
  cue(String.raw`the decision (?:is|was)|(?:our|the) (?:final )?(?:choice|conclusion) (?:is|was)|we fix that first`),
];

/**
 * Who may stand before a bare "decided to / agreed on": the meeting itself
 * (we, I, all of us, the team) or nobody (a sentence that opens with it,
 * "Agreed on the rubber case."). "Bell Canada has decided to partner with
 * Ericsson" is news about someone else's decision, not one of this meeting.
 */
export const DECIDER_BEFORE =
  /(?:^|(?<![\p{L}'’])(?:we|i|us|all|everyone|everybody|team|group|committee|so|and|then|ok|okay))(?:['’]ve| have| had| has| all| just| finally| now| already)*\s*$/iu;

/**
 * A decision said as the meeting's ("we decided / agreed / chose …", "the
 * team settled on …", "we'll go with …"): the notes say the group decided
 * it, as minutes do, rather than the one who happened to say it.
 */
export const GROUP_DECIDES = nonGlobal(
  cue(
    String.raw`(?:we|everyone|everybody|the team|the group)(?:'ve| have| had)? (?:all )?(?:decided|agreed|settled|chose|chosen|opted|concluded)|we(?:'ll| will| are going to|'re going to) (?:go|stick) with`,
  ),
);
export const LETS = nonGlobal(cue(String.raw`let's|let us`));

/** A short reply that agrees: "Agreed.", "Sounds good.", "Yes, let's do that." */
export const AGREEMENT =
  /^(?:agreed|agree|i agree|yes|yeah|yep|okay|ok|sure|fine|sounds good|sounds great|good idea|perfect|great|exactly|absolutely|definitely|right|correct|deal|that works|works for me|let's do (?:it|that))\b/i;

/** First person committing to a task: the verb after the cue must be an action (not "be", "have", "see"). */
export const COMMITMENT_CUES = [
  cue(
    String.raw`(?<who>i|we)(?:'ll| will| shall| am going to|'m going to| are going to|'re going to| can take| will take| take) (?:also |then |just |first |quickly |now |definitely )?(?<verb>[\p{L}]+)`,
  ),
  cue(String.raw`(?<who>let me) (?<verb>[\p{L}]+)`),
  cue(String.raw`(?<who>i|we)(?:'m| am|'re| are)? (?:plan|planning|intend|intending) to (?<verb>[\p{L}]+)`),
  cue(String.raw`(?<who>i|we) (?:need|have|got) to (?<verb>[\p{L}]+)`),
];
/** A task given to someone named or addressed: "Priya will fix it", "you can book the servers today", "can you send …". */
export const ASSIGNMENT_CUES = [
  cue(
    String.raw`(?<who>[\p{Lu}][\p{L}]+|you|he|she|they)(?:'ll| will| is going to|'s going to| are going to| needs to| need to| has to| have to| should| can| could)(?: also| then| please)? (?<verb>[\p{L}]+)`,
  ),
  cue(String.raw`(?:can|could|would) (?<who>you)(?: please)? (?<verb>[\p{L}]+)`),
  cue(String.raw`(?:action item|to do|todo)(?: for (?<who>[\p{L}]+))?[:,]?(?: is)? (?<verb>[\p{L}]+)`),
];
/** A question for the owner of some work: "Who owns the billing service right now?" → "the billing service". */
export const WHO_OWNS =
  /(?<![\p{L}'’])who(?:'s| is)? (?:owns|handles|is handling|handling|is responsible for|responsible for|is in charge of|in charge of|is working on|is doing|will (?:do|take|handle|fix|own)|takes|can take|looks after) (?<work>.+?)(?: right now| at the moment| now| currently)?[?.!]*$/iu;
/** The reply naming the owner: "Priya does.", "Priya will.", "I do." (the first word of the reply). */
export const OWNER_REPLY = /^(?<who>[\p{L}]+)(?: [\p{L}]+)? (?:does|do|will|is|owns it|has it|handles it|can)(?![\p{L}'’])/iu;
/** A question someone outside the meeting asked, reported and so still to answer: "the customer asked whether …". */
export const REPORTED_QUESTION =
  /(?<![\p{L}'’])(?:asked (?:us |me |them )?(?:whether|if)|wondered (?:whether|if)|wants? to know (?:whether|if)|wanted to know (?:whether|if))(?![\p{L}'’])/iu;

/** After "will": words that make the future a state or an opinion, not a task. */
export const NOT_A_TASK = new Set(
  (
    'be been being have has had see know think guess say mean probably maybe perhaps never not also just ' +
    'try want like love hate need get find feel seem look wait go come happen depend remember forget ' +
    'agree disagree assume hope wonder believe imagine suppose bet admit ' +
    // A conjunction or article after the cue: "we will, but we're ready" has no task in it.
    'and but or so because if when then that than the a an to of in on at for with as'
  ).split(' '),
);
/** Subjects that are no owner: "It will rain", "That will take a while". */
export const NOT_AN_OWNER = new Set(
  'it this that there what which who they he she you we i the a an one something nothing everything anything'.split(' '),
);

export const BLOCKER_CUES = [
  cue(
    String.raw`blocked|blocker|blockers|blocking|stuck|waiting (?:on|for)|depends on|dependent on|risk|risks|risky|concern|concerned|worried|worry|problem|problems|issue|issues|bug|bugs|broken|fails|failing|failed|delayed|delay|behind schedule|can't|cannot|times out|timed out|timing out|keeps failing|difficult|expensive|too much|too many|constraint|limitation|trade-off`,
  ),
];

export const OPEN_CUES = [
  cue(
    String.raw`(?:still|yet) (?:need|have) to (?:figure out|find out|decide|work out|check|see)|not (?:yet )?(?:decided|sure|clear|settled|known)|(?:question|issue|point|matter|it|that|this) (?:is|remains?) (?:still )?(?:open|unclear|undecided)|(?:is|are|remains?) (?:still )?(?:unclear|undecided|an open question)|open question|to be decided|tbd|we'll see|don't know yet|do not know yet|haven't decided|have not decided`,
  ),
];

/** The same pattern without the global flag, for `.test` (a global RegExp keeps its lastIndex between calls). */
export function nonGlobal(re: RegExp): RegExp {
  return new RegExp(re.source, re.flags.replace('g', ''));
}
