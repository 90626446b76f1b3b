/**
 * Names from what is said (issue 34, decision 152): where nobody named a
 * speaker cluster (no user label, no voice match), a name said to a speaker
 * right before their turn ("fiona what about you", "thanks fiona" handing
 * over) or thanked right after it ("thank you hiro that is my only blocker")
 * proposes that name for the speaker, with the words that said it and when.
 * A proposal is never applied: the transcript lists it apart from the labels
 * (service.ts), for a person to confirm with PUT speaker-labels.
 *
 * Candidates are only names the user typed (the speaker-identification
 * section's known_speakers and the custom-words list): the recognizer writes
 * lower case, so "grant" in the talk is a name only because a user typed
 * "Grant". Pure: segments and candidates in, proposals out.
 */

interface MentionWord {
  text: string;
  start: number;
}

export interface MentionSegment {
  speaker: string;
  start: number;
  end: number;
  text: string;
  words: readonly MentionWord[];
}

export interface NameProposal {
  speaker: string;
  /** The candidate as the user typed it: a known speaker's whole name, or a custom word. */
  name: string;
  /** The words that proposed it, as recognized: "thanks fiona", "thank you hiro that". */
  evidence: string;
  /** Seconds from the start of the recording: when the name was said. */
  at: number;
  /** addressed: said to the speaker right before their turn; thanked: said right after it. */
  cue: 'addressed' | 'thanked';
}

/** A name among a turn's last this many words addresses whoever speaks next ("emeka do you want to start"). */
const ADDRESS_WINDOW = 6;
/** A thanks among a turn's first this many words thanks whoever spoke before ("thank you hiro that is ..."). */
const THANKS_WINDOW = 5;
/** The next (or previous) turn must begin within this many seconds for a name to be handed to it. */
const MAX_HANDOVER_GAP_SECONDS = 5;

interface Token {
  word: string;
  at: number;
}

interface Turn {
  speaker: string;
  start: number;
  end: number;
  tokens: Token[];
}

/** Lower case, letters, digits and apostrophes only: "Fiona?" → "fiona". */
function normalize(word: string): string {
  return word
    .toLowerCase()
    .replace(/[^\p{L}\p{N}']+/gu, '')
    .replace(/^'+|'+$/g, '');
}

/** A segment's words with times; without word timings, its text at the segment's start. */
function tokensOf(segment: MentionSegment): Token[] {
  const words = segment.words.length > 0 ? segment.words : segment.text.split(/\s+/).map((text) => ({ text, start: segment.start }));
  return words.map((w) => ({ word: normalize(w.text), at: w.start })).filter((t) => t.word !== '');
}

/** Consecutive segments of one speaker are one turn. */
function turnsOf(segments: readonly MentionSegment[]): Turn[] {
  const turns: Turn[] = [];
  for (const s of [...segments].sort((a, b) => a.start - b.start)) {
    const last = turns.at(-1);
    if (last !== undefined && last.speaker === s.speaker) {
      last.tokens.push(...tokensOf(s));
      last.end = Math.max(last.end, s.end);
    } else turns.push({ speaker: s.speaker, start: s.start, end: s.end, tokens: tokensOf(s) });
  }
  return turns;
}

/**
 * Spoken word → the name to propose. A known speaker ("Fiona Grant") is
 * found by any word of their name; a custom word is a name when the user
 * typed it as one word with a capital ("Fiona", not "pull requests" or
 * "demo"). Known speakers win over custom words.
 */
export function nameCandidates(knownSpeakers: readonly string[], customWords: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const word of customWords) {
    const trimmed = word.trim();
    if (/^\p{Lu}[\p{L}'-]*$/u.test(trimmed)) out.set(normalize(trimmed), trimmed);
  }
  for (const name of knownSpeakers)
    for (const part of name.trim().split(/\s+/)) if (normalize(part) !== '') out.set(normalize(part), name.trim());
  return out;
}

interface Vote extends NameProposal {
  turn: number;
}

function isThanks(tokens: readonly Token[], k: number): boolean {
  return tokens[k - 1]?.word === 'thanks' || (tokens[k - 1]?.word === 'you' && tokens[k - 2]?.word === 'thank');
}

/** Every cue in the talk: one vote per name said in a handing-over or thanking position. */
function votes(turns: readonly Turn[], candidates: ReadonlyMap<string, string>): Vote[] {
  const out: Vote[] = [];
  turns.forEach((turn, i) => {
    const { tokens } = turn;
    tokens.forEach((token, k) => {
      const name = candidates.get(token.word);
      if (name === undefined) return;
      const before = turns[i - 1];
      const after = turns[i + 1];
      // "thank you hiro that is ..." thanks the previous speaker; "thanks fiona" ending the turn hands over.
      if (isThanks(tokens, k) && k < THANKS_WINDOW && k < tokens.length - 1) {
        if (before !== undefined && before.speaker !== turn.speaker && turn.start - before.end <= MAX_HANDOVER_GAP_SECONDS) {
          const from = k - (tokens[k - 1]!.word === 'you' ? 2 : 1);
          const evidence = tokens.slice(from, Math.min(tokens.length, k + 2)).map((t) => t.word);
          out.push({ speaker: before.speaker, name, evidence: evidence.join(' '), at: token.at, cue: 'thanked', turn: i });
        }
        return;
      }
      if (k >= tokens.length - ADDRESS_WINDOW && after !== undefined && after.speaker !== turn.speaker) {
        if (after.start - turn.end > MAX_HANDOVER_GAP_SECONDS) return;
        const from = isThanks(tokens, k) ? k - (tokens[k - 1]!.word === 'you' ? 2 : 1) : k;
        const evidence = tokens.slice(from).map((t) => t.word);
        out.push({ speaker: after.speaker, name, evidence: evidence.join(' '), at: token.at, cue: 'addressed', turn: i });
      }
    });
  });
  return out;
}

/**
 * One proposal per unnamed speaker at most, one speaker per name: the
 * (speaker, name) pairs with the most cues first, the earliest on a tie;
 * a speaker already named (`named`: key → name) gets none, and a name one of
 * them carries is given to nobody else. Each proposal shows its first cue.
 */
export function proposeNames(
  segments: readonly MentionSegment[],
  candidates: ReadonlyMap<string, string>,
  named: ReadonlyMap<string, string>,
): NameProposal[] {
  if (candidates.size === 0) return [];
  const pairs = new Map<string, Vote[]>();
  for (const v of votes(turnsOf(segments), candidates)) {
    const key = JSON.stringify([v.speaker, v.name]);
    pairs.set(key, [...(pairs.get(key) ?? []), v]);
  }
  const ranked = [...pairs.values()].sort((a, b) => b.length - a.length || a[0]!.at - b[0]!.at);
  const taken = new Set(named.values());
  const done = new Set(named.keys());
  const out: NameProposal[] = [];
  for (const cues of ranked) {
    const { speaker, name, evidence, at, cue } = cues[0]!;
    if (done.has(speaker) || taken.has(name)) continue;
    done.add(speaker);
    taken.add(name);
    out.push({ speaker, name, evidence, at, cue });
  }
  return out.sort((a, b) => a.at - b.at);
}
