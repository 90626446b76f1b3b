/**
 * The older vocabulary-bias design, kept for measurements (`vocabularyBias:
 * "kws"` or `"lm+kws"`, decision 032): a keyword-spotting pass (`-kws`) over
 * the same file, whose detections replace the words of the language-model
 * pass they cover. It helped less than the adapted language model.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecognitionOptions, StageControl } from '../../pipeline/types.ts';
import { parseTimedLine, runPocketSphinx } from './pocketsphinx-process.ts';
import { dictionaryKey, loadDictionary, pronounce, tokenize } from './pronunciations.ts';
import type { FileWord } from './spans.ts';

export interface SpotPhrase {
  /** The tokens as the user wrote them. */
  display: string[];
  /** Their dictionary keys. */
  keys: string[];
  /** One CMU pronunciation per token. */
  pronunciations: string[];
  phones: number;
}

export interface Detection {
  phrase: SpotPhrase;
  start: number;
  end: number;
  confidence: number;
}

/**
 * The detection threshold (as 1e-N) for a keyphrase of n phones. Longer
 * phrases accumulate more acoustic mismatch, so they need a lower threshold;
 * 5 per phone was tuned on synthetic speech (decision 011), capped so very
 * short names do not fire on every syllable.
 */
export function kwsThresholdExponent(phones: number): number {
  return Math.max(10, Math.min(50, Math.round(5 * phones)));
}

/** A spotting that lasts less than this per phone is a false alarm on a fragment. */
const MIN_SECONDS_PER_PHONE = 0.045;
/**
 * Spottings scored below this are dropped. The score pocketsphinx prints for a
 * detection sat at 0.82–0.93 for true names and 0.79–0.87 for false alarms on
 * synthetic speech; 0.83 kept most names and dropped most false alarms with a
 * list of up to 16 words (decision 011).
 */
const MIN_SPOT_CONFIDENCE = 0.83;
/**
 * Every listed phrase is one more chance of a false alarm, so the floor rises
 * by this much each time the list doubles beyond 16 phrases: a list of
 * hundreds of words then spots little, rather than sprinkling names all over.
 */
const CONFIDENCE_PER_DOUBLING = 0.01;
/** Pass 1 was sure of these words (duration-weighted posterior): a spotting does not overrule it. */
const SURE_POSTERIOR = 0.9;

export function minSpotConfidence(phraseCount: number): number {
  return MIN_SPOT_CONFIDENCE + CONFIDENCE_PER_DOUBLING * Math.max(0, Math.log2(phraseCount / 16));
}

/**
 * Replaces the language-model words a detection covers (by their middle) with
 * the phrase's words, its duration split by phone count. A detection must
 * cover at least one word (else it is an insertion in silence or noise), must
 * not cover words pass 1 was sure of, must last long enough for its phones
 * and score high enough for the list's size. Overlapping detections: the
 * more confident one wins.
 */
export function mergeDetections(words: readonly FileWord[], detections: readonly Detection[], phraseCount = 1): FileWord[] {
  const floor = minSpotConfidence(phraseCount);
  const covered = (d: Detection) =>
    words.filter((w) => {
      const mid = (w.start + w.end) / 2;
      return mid >= d.start && mid <= d.end;
    });
  const plausible = detections
    .filter((d) => {
      if (d.end - d.start < MIN_SECONDS_PER_PHONE * d.phrase.phones || d.confidence < floor) return false;
      const under = covered(d);
      if (under.length === 0) return false;
      const seconds = under.reduce((n, w) => n + Math.max(0.01, w.end - w.start), 0);
      const sure = under.reduce((n, w) => n + Math.max(0.01, w.end - w.start) * w.confidence, 0) / seconds;
      return sure < SURE_POSTERIOR;
    })
    .sort((a, b) => b.confidence - a.confidence || a.start - b.start);
  const kept: Detection[] = [];
  for (const d of plausible) {
    if (kept.every((k) => d.end <= k.start || d.start >= k.end)) kept.push(d);
  }
  const remaining = words.filter((w) => {
    const mid = (w.start + w.end) / 2;
    return kept.every((d) => mid < d.start || mid > d.end);
  });
  const spotted = kept.flatMap((d) => {
    const counts = d.phrase.pronunciations.map((p) => p.split(' ').length);
    const total = counts.reduce((a, b) => a + b, 0);
    let at = d.start;
    return d.phrase.keys.map((key, i) => {
      const end = i === d.phrase.keys.length - 1 ? d.end : at + ((d.end - d.start) * counts[i]!) / total;
      const word = { text: key, start: round3(at), end: round3(end), confidence: d.confidence };
      at = end;
      return word;
    });
  });
  // Words that straddle a detection's edge are trimmed so times stay in order.
  return [...remaining, ...spotted]
    .sort((a, b) => a.start - b.start)
    .map((w, i, all) => {
      const next = all[i + 1];
      return next !== undefined && w.end > next.start ? { ...w, end: Math.max(w.start, next.start) } : w;
    });
}

function keywordDictionary(phrases: readonly SpotPhrase[]): string {
  const entries = new Map<string, string>();
  for (const p of phrases) p.keys.forEach((k, i) => entries.set(k, p.pronunciations[i]!));
  return [...entries].map(([k, v]) => `${k} ${v}\n`).join('');
}

/**
 * The phrases to spot: the custom words, and the words of the prompt the
 * dictionary lacks, each token with its pronunciation (the dictionary's, or
 * derived: pronunciations.ts); phrases with a word that cannot be pronounced
 * are left out.
 */
export async function customPhrases(
  dictPath: string,
  options: RecognitionOptions,
  findEspeak: () => Promise<string | null>,
  control: StageControl,
): Promise<SpotPhrase[]> {
  const dictionary = loadDictionary(dictPath);
  const sources = [...options.customWords];
  for (const token of tokenize(options.initialPrompt)) {
    // Names and jargon, not numbers ("2024" would be spotted as a four-word phrase).
    if (/\p{L}/u.test(token) && !dictionary.has(token.toLowerCase())) sources.push(token);
  }
  const phrases: SpotPhrase[] = [];
  const seen = new Set<string>();
  const missing = new Map<string, string>(); // dictionary key → token to pronounce
  for (const source of sources) {
    const tokens = tokenize(source);
    if (tokens.length === 0) continue;
    const keys = tokens.map((t) => dictionaryKey(t));
    const id = keys.join(' ');
    if (seen.has(id)) continue;
    seen.add(id);
    phrases.push({ display: tokens, keys, phones: 0, pronunciations: [] });
    tokens.forEach((t, i) => {
      const key = keys[i]!;
      if (!dictionary.has(key)) missing.set(key, t);
    });
  }
  const derived = await pronounce([...missing.entries()], findEspeak, control);
  return phrases
    .map((p) => {
      const pronunciations = p.keys.map((k) => dictionary.get(k) ?? derived.get(k) ?? '');
      return { ...p, pronunciations, phones: pronunciations.join(' ').split(' ').filter(Boolean).length };
    })
    .filter((p) => p.pronunciations.every((pr) => pr !== ''));
}

/**
 * The spotting pass over `wav`: writes the keyphrase list and its dictionary
 * into `dir`, runs pocketsphinx with `-kws`, and returns the detections of
 * listed phrases. `onHit` hears the file time each detection ends at (progress).
 */
export async function spotKeywords(
  binary: string,
  commonArgs: readonly string[],
  dir: string,
  phrases: readonly SpotPhrase[],
  control: StageControl,
  onHit: (fileSeconds: number) => void,
): Promise<Detection[]> {
  const kws = join(dir, 'keywords.txt');
  const dict = join(dir, 'keywords.dict');
  await writeFile(kws, phrases.map((p) => `${p.keys.join(' ')} /1e-${kwsThresholdExponent(p.phones)}/\n`).join(''));
  await writeFile(dict, keywordDictionary(phrases));
  const detections: Detection[] = [];
  await runPocketSphinx(
    binary,
    [...commonArgs, '-kws', kws, '-dict', dict, '-logfn', join(dir, 'kws.log')],
    join(dir, 'kws.log'),
    control,
    (line) => {
      const hit = parseTimedLine(line);
      if (hit === null) return;
      onHit(hit.end);
      const phrase = phrases.find((p) => p.keys.join(' ') === hit.text.trim());
      if (phrase !== undefined) detections.push({ phrase, start: hit.start, end: hit.end, confidence: hit.confidence });
    },
  );
  return detections;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
