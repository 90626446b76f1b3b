/**
 * A deterministic corpus of meetings for the search and list benchmarks.
 *
 * Segment text is drawn from a vocabulary with a Zipf-like skew (a few words
 * very common, most rare), like speech. Three query terms are planted at
 * known rates so the query mix is realistic at any store size:
 *
 *   COMMON_TERM   in about 3% of segments (and 2% of titles)
 *   RARE_TERM     in about 1 segment of 20,000
 *   PHRASE        both words together in about 0.5% of segments; each word
 *                 also appears alone in about 2% of segments
 *
 * The generated words never spell a planted term by accident.
 */
import type { MeetingSeed } from '../server/features/meetings/service.ts';

export const COMMON_TERM = 'budget';
export const RARE_TERM = 'zanzibar';
export const PHRASE = ['release', 'plan'] as const;

/** The query mix of the search benchmark: a word in a few percent of segments, a rare word, a two-word query. */
export const QUERY_MIX = [COMMON_TERM, RARE_TERM, PHRASE.join(' ')] as const;

const RATES = { common: 0.03, rare: 1 / 20_000, phrase: 0.005, single: 0.02, titleCommon: 0.02 };

/** mulberry32: small, fast, good enough for text. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON_WORDS = (
  'the a and to of we i you it that is in for on this so with be have are will just can do what not if ' +
  'think yeah okay right like know going about there get one all but they at from our would maybe need ' +
  'next week team call update meeting customer design review issue test data service time point' +
  ' question feature support people thing work number change'
).split(' ');

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ter',
  'son',
  'vel',
  'dra',
  'pen',
  'qui',
  'sto',
  'ran',
  'bel',
  'cor',
  'fin',
  'gu',
  'hal',
  'jor',
  'nex',
  'pra',
  'tul',
];

function buildVocabulary(): string[] {
  const rand = prng(7);
  const planted = new Set<string>([COMMON_TERM, RARE_TERM, ...PHRASE]);
  const words = new Set<string>(COMMON_WORDS);
  while (words.size < 4_000) {
    const n = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)] ?? '';
    if (!planted.has(w)) words.add(w);
  }
  return [...words];
}

const VOCABULARY = buildVocabulary();

/** A Zipf-like pick: index ~ N^u, so low indexes (common words first) dominate. */
function word(rand: () => number): string {
  const i = Math.floor(Math.pow(VOCABULARY.length, rand())) - 1;
  return VOCABULARY[Math.min(VOCABULARY.length - 1, Math.max(0, i))]!;
}

function sentence(rand: () => number): string {
  const n = 8 + Math.floor(rand() * 18);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(word(rand));
  const insert = (w: string): void => {
    words.splice(Math.floor(rand() * (words.length + 1)), 0, w);
  };
  if (rand() < RATES.common) insert(COMMON_TERM);
  if (rand() < RATES.rare) insert(RARE_TERM);
  if (rand() < RATES.phrase) insert(PHRASE.join(' '));
  if (rand() < RATES.single) insert(PHRASE[0]);
  if (rand() < RATES.single) insert(PHRASE[1]);
  const text = words.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/**
 * Meeting number `index` of a corpus: the same index always gives the same
 * meeting. created_at counts up by 15 minutes from 2025-01-01, so later
 * meetings are newer.
 */
export function meetingSeed(index: number, segmentsPerMeeting: number): MeetingSeed {
  const rand = prng(1_000_003 * (index + 1));
  const segments: MeetingSeed['segments'] = [];
  let t = 0;
  for (let i = 0; i < segmentsPerMeeting; i++) {
    const length = 2 + rand() * 10;
    segments.push({ speaker: `S${1 + Math.floor(rand() * 4)}`, start: round3(t), end: round3(t + length), text: sentence(rand) });
    t += length + rand();
  }
  const topic = `${word(rand)} ${word(rand)}`;
  const title = rand() < RATES.titleCommon ? `${COMMON_TERM} review ${index}: ${topic}` : `Meeting ${index}: ${topic}`;
  return {
    title,
    created_at: new Date(Date.UTC(2025, 0, 1) + index * 15 * 60_000).toISOString(),
    source: 'fixture',
    language: 'en',
    segments,
    summary: index % 2 === 0 ? { text: `Summary of meeting ${index} about ${topic}.` } : null,
    audio: false,
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
