/**
 * Speaker-attribution accuracy: how many of the recognizer's words carry the
 * right speaker, once its anonymous speaker clusters ("SPEAKER_00", "A",
 * ...) are mapped to the script's speakers in the most favourable one-to-one
 * way. Pure: no I/O, no clock.
 *
 * 1. Align hypothesis words to truth words, by time (default: the truth word
 *    the hypothesis word overlaps most) or by text (the WER alignment; only
 *    matched or substituted words count as aligned).
 * 2. Count, for each (cluster, speaker) pair, the aligned words.
 * 3. Map clusters to speakers one-to-one maximizing the words on the
 *    diagonal (Hungarian algorithm). A cluster left without a speaker (more
 *    clusters than speakers) gets every one of its words wrong.
 */
import { bestAssignment } from '../../common/best-assignment.ts';
import { normalizeWords } from './normalize-words.ts';
import { alignWords } from './word-error-rate.ts';

export interface HypothesisWord {
  text: string;
  start: number;
  end: number;
  /** The recognizer's speaker label; any string. */
  cluster: string;
}

export interface TruthWordWithSpeaker {
  text: string;
  start: number;
  end: number;
  speaker: string;
}

export interface SpeakerAttributionOptions {
  /** How hypothesis words find their truth word; default "time". */
  align?: 'time' | 'text';
  /**
   * Time alignment only: a hypothesis word that overlaps no truth word still
   * aligns with the nearest one within this many seconds (recognizers place
   * word edges loosely). Default 0.2.
   */
  toleranceSeconds?: number;
}

export interface SpeakerAttribution {
  /** correct_words / aligned_words; 0 when nothing aligned. */
  accuracy: number;
  aligned_words: number;
  correct_words: number;
  hypothesis_words: number;
  reference_words: number;
  /** The chosen mapping; null for a cluster that got no speaker or none of whose words fit it. */
  mapping: Record<string, string | null>;
}

/** For each hypothesis word, the index of its truth word or -1. */
function alignByTime(hyp: readonly HypothesisWord[], ref: readonly TruthWordWithSpeaker[], tolerance: number): number[] {
  const order = ref.map((_, i) => i).sort((a, b) => ref[a]!.start - ref[b]!.start);
  const starts = order.map((i) => ref[i]!.start);
  const longest = ref.reduce((m, w) => Math.max(m, w.end - w.start), 0);
  return hyp.map((h) => {
    // Candidates start no earlier than (h.start - tolerance - longest word): binary search for the first.
    const from = h.start - tolerance - longest;
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    const hText = normalizeWords(h.text).join(' ');
    let best = -1;
    let bestScore = -Infinity;
    for (let k = lo; k < order.length && starts[k]! <= h.end + tolerance; k++) {
      const r = ref[order[k]!]!;
      const overlap = Math.min(h.end, r.end) - Math.max(h.start, r.start);
      // Negative overlap is the gap between them; outside the tolerance it does not count.
      if (overlap < -tolerance) continue;
      // Equal overlaps (a word spoken over another): the one with the same text wins.
      const score = overlap + (normalizeWords(r.text).join(' ') === hText ? 1e-6 : 0);
      if (score > bestScore) {
        bestScore = score;
        best = order[k]!;
      }
    }
    return best;
  });
}

/** For each hypothesis word, the index of its truth word or -1, through the WER alignment of the normalized texts in time order. */
function alignByText(hyp: readonly HypothesisWord[], ref: readonly TruthWordWithSpeaker[]): number[] {
  const tokens = (words: readonly { text: string; start: number }[]): { tokens: string[]; origin: number[] } => {
    const order = words.map((_, i) => i).sort((a, b) => words[a]!.start - words[b]!.start);
    const out: string[] = [];
    const origin: number[] = [];
    for (const i of order) {
      for (const t of normalizeWords(words[i]!.text)) {
        out.push(t);
        origin.push(i);
      }
    }
    return { tokens: out, origin };
  };
  const h = tokens(hyp);
  const r = tokens(ref);
  const result = new Array<number>(hyp.length).fill(-1);
  for (const step of alignWords(r.tokens, h.tokens)) {
    if (step.op !== 'match' && step.op !== 'substitution') continue;
    const hi = h.origin[step.hyp]!;
    // A hypothesis word that normalized to several tokens keeps its first partner.
    if (result[hi] === -1) result[hi] = r.origin[step.ref]!;
  }
  return result;
}

export function speakerAttribution(
  hypothesis: readonly HypothesisWord[],
  truth: readonly TruthWordWithSpeaker[],
  opts: SpeakerAttributionOptions = {},
): SpeakerAttribution {
  const partner = opts.align === 'text' ? alignByText(hypothesis, truth) : alignByTime(hypothesis, truth, opts.toleranceSeconds ?? 0.2);

  const clusters = [...new Set(hypothesis.map((h) => h.cluster))].sort();
  const speakers = [...new Set(truth.map((t) => t.speaker))].sort();
  const clusterIndex = new Map(clusters.map((c, i) => [c, i]));
  const speakerIndex = new Map(speakers.map((s, i) => [s, i]));
  const counts = clusters.map(() => new Array<number>(speakers.length).fill(0));
  let aligned = 0;
  hypothesis.forEach((h, i) => {
    const t = partner[i]!;
    if (t < 0) return;
    aligned++;
    counts[clusterIndex.get(h.cluster)!]![speakerIndex.get(truth[t]!.speaker)!]!++;
  });

  const assignment = bestAssignment(counts);
  let correct = 0;
  const mapping: Record<string, string | null> = {};
  clusters.forEach((c, i) => {
    const s = assignment[i]!;
    // A pairing that carries no word is an artefact of the square matrix, not a mapping.
    const words = s >= 0 ? counts[i]![s]! : 0;
    mapping[c] = words > 0 ? speakers[s]! : null;
    correct += words;
  });
  return {
    accuracy: aligned === 0 ? 0 : correct / aligned,
    aligned_words: aligned,
    correct_words: correct,
    hypothesis_words: hypothesis.length,
    reference_words: truth.length,
    mapping,
  };
}
