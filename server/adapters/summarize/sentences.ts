/**
 * The sentences of a transcript and their ranking, shared by the extractive
 * summarizer (extractive.ts) and the meeting-notes extractors (notes.ts):
 * each segment split into sentences with their speaker, start and stemmed
 * content words; TF-IDF vectors; TextRank (or the centroid on a very long
 * meeting). Its own file so that neither of the two imports the other.
 */
import type { SummaryInput } from '../../pipeline/types.ts';

const MAX_SENTENCE_WORDS = 30;

/** Sentences shorter than this ("Okay.", "Sounds good.") are never picked, and join the sentence after them. */
export const MIN_SENTENCE_WORDS = 4;

/** TextRank's graph is quadratic; above this many sentences the centroid is used. */
const MAX_GRAPH_SENTENCES = 1500;

export interface Sentence {
  index: number;
  speaker: string;
  text: string;
  start: number;
  /** Stemmed content words. */
  terms: string[];
  question: boolean;
}

// ── Sentences ────────────────────────────────────────────────────────────

export function splitSentences(segments: SummaryInput['segments']): Sentence[] {
  const out: Sentence[] = [];
  for (const seg of segments) {
    const speaker = seg.speaker_name?.trim() || seg.speaker;
    const text = seg.text.replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    for (const piece of joinFragments(text.split(/(?<=[.!?…])\s+(?=\S)/u))) {
      const words = piece.split(' ');
      // A long unpunctuated stretch is cut into even pieces rather than leaving a stub.
      const size = Math.ceil(words.length / Math.ceil(words.length / MAX_SENTENCE_WORDS));
      for (let i = 0; i < words.length; i += size) {
        const chunk = words.slice(i, i + size).join(' ');
        out.push({
          index: out.length,
          speaker,
          text: tidy(chunk),
          start: seg.start,
          terms: contentTerms(chunk),
          question: isQuestion(chunk),
        });
      }
    }
  }
  return out;
}

/** Joins each sentence shorter than MIN_SENTENCE_WORDS to the next one of the same segment (the last to the one before). */
function joinFragments(pieces: readonly string[]): string[] {
  const out: string[] = [];
  let pending = '';
  for (const piece of pieces) {
    const joined = pending === '' ? piece : `${pending} ${piece}`;
    if (joined.split(' ').length < MIN_SENTENCE_WORDS) pending = joined;
    else {
      out.push(joined);
      pending = '';
    }
  }
  if (pending !== '') {
    if (out.length > 0) out[out.length - 1] = `${out.at(-1)!} ${pending}`;
    else out.push(pending);
  }
  return out;
}

const WH_WORDS = new Set(['who', 'what', 'where', 'when', 'why', 'how', 'which', 'whose']);
const AUXILIARIES = new Set([
  'are',
  'is',
  'am',
  'was',
  'were',
  'do',
  'does',
  'did',
  'can',
  'could',
  'would',
  'will',
  'should',
  'shall',
  'have',
  'has',
  'may',
  'might',
]);
const SUBJECTS = new Set([
  'you',
  'we',
  'they',
  'he',
  'she',
  'it',
  'i',
  'the',
  'this',
  'that',
  'there',
  'these',
  'those',
  'anyone',
  'anybody',
  'someone',
  'somebody',
  'everyone',
  'a',
  'an',
  'our',
  'your',
  'their',
  'my',
  'his',
  'her',
  'its',
]);

/** A question: its last sentence ends with "?", or (unpunctuated) it opens with a wh-word, or an auxiliary before its subject. */
export function isQuestion(text: string): boolean {
  const trimmed = text.trim();
  if (/[.!…]["')\]]?$/u.test(trimmed)) return false;
  if (/\?["')\]]?$/u.test(trimmed)) return true;
  const [first = '', second = ''] = trimmed
    .toLowerCase()
    .replace(/[^\p{L}'’ ]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
  return WH_WORDS.has(first) || (AUXILIARIES.has(first) && SUBJECTS.has(second));
}

/** Capital first letter, closing punctuation: transcripts from pocketsphinx have neither. */
function tidy(sentence: string): string {
  const s = sentence.trim();
  const capital = s.charAt(0).toLocaleUpperCase('en') + s.slice(1);
  return /[.!?…]["')\]]?$/u.test(capital) ? capital : `${capital}.`;
}

const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from ' +
    'further had has have having he her here hers herself him himself his how i if in into is ' +
    'it its itself just let me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs ' +
    'them themselves then there these they this those through to too under until up very was we ' +
    'were what when where which while who whom why will with would you your yours yourself ' +
    'yourselves ' +
    "i'm i've i'll i'd you're you've you'll we're we've we'll they're it's that's there's don't " +
    "doesn't didn't isn't aren't wasn't won't can't okay ok yeah yes uh um like know think " +
    'really just also get got going go one well right so oh gonna want ' +
    // Pleasantries and meeting ritual carry no content.
    'thanks thank everyone everybody hi hello morning afternoon good bye see great sure us guys folks'
  ).split(/\s+/),
);

/** Lower-case words without stopwords, with a light suffix stemmer so "deploy", "deployed", "deploying" meet. */
export function contentTerms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? []).filter((w) => !STOPWORDS.has(w) && w.length > 1).map(stem);
}

function stem(word: string): string {
  for (const suffix of ['ingly', 'edly', 'ing', 'ied', 'ies', 'ed', 'es', 's', 'ly']) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) {
      const base = word.slice(0, -suffix.length);
      return suffix === 'ied' || suffix === 'ies' ? `${base}y` : base;
    }
  }
  return word;
}

// ── Ranking ──────────────────────────────────────────────────────────────

export type Vector = Map<string, number>;

/** TF-IDF vectors, L2-normalised, so a dot product is the cosine similarity. */
export function tfidfVectors(sentences: readonly Sentence[]): Vector[] {
  const df = new Map<string, number>();
  for (const s of sentences) for (const t of new Set(s.terms)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = sentences.length;
  return sentences.map((s) => {
    const v: Vector = new Map();
    for (const t of s.terms) v.set(t, (v.get(t) ?? 0) + 1);
    let norm = 0;
    for (const [t, tf] of v) {
      const w = tf * Math.log(1 + n / df.get(t)!);
      v.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [t, w] of v) v.set(t, w / norm);
    return v;
  });
}

export function cosine(a: Vector, b: Vector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) dot += w * (large.get(t) ?? 0);
  return dot;
}

/** Scores in 0..1 (the best sentence has 1). */
export function textRank(vectors: readonly Vector[]): number[] {
  const n = vectors.length;
  if (n === 0) return [];
  let scores: number[];
  if (n > MAX_GRAPH_SENTENCES) {
    const centroid: Vector = new Map();
    for (const v of vectors) for (const [t, w] of v) centroid.set(t, (centroid.get(t) ?? 0) + w);
    scores = vectors.map((v) => cosine(v, centroid));
  } else {
    const weights = vectors.map((a, i) => vectors.map((b, j) => (i === j ? 0 : cosine(a, b))));
    const outSum = weights.map((row) => row.reduce((x, y) => x + y, 0));
    const damping = 0.85;
    scores = new Array<number>(n).fill(1 / n);
    for (let iter = 0; iter < 100; iter++) {
      let delta = 0;
      const next = new Array<number>(n).fill((1 - damping) / n);
      for (let j = 0; j < n; j++) {
        // A sentence sharing no words with any other spreads its score evenly.
        if (outSum[j]! === 0) {
          for (let i = 0; i < n; i++) next[i]! += (damping * scores[j]!) / n;
          continue;
        }
        const row = weights[j]!;
        for (let i = 0; i < n; i++) if (row[i]! > 0) next[i]! += (damping * scores[j]! * row[i]!) / outSum[j]!;
      }
      for (let i = 0; i < n; i++) delta += Math.abs(next[i]! - scores[i]!);
      scores = next;
      if (delta < 1e-9) break;
    }
  }
  const max = Math.max(...scores);
  return scores.map((s) => (max > 0 ? s / max : 0));
}
