/**
 * Diarization: who spoke when, by clustering the voice.
 *
 *   1. Speech regions are cut into blocks of 0.25 s. Each block keeps the
 *      sufficient statistics (count, sum, sum of outer products) of its
 *      frames' MFCCs c1…c12 (25 ms frames every 10 ms) and of its voiced
 *      frames' log-F0 (YIN). Only frames that carry voice count: above the
 *      recording's background level (its 10th-percentile frame level + 6 dB)
 *      and within 35 dB of the loudest frame within 0.75 s.
 *   2. Windows of 6 blocks (1.5 s, hop 0.75 s) are described by mean and
 *      standard deviation of the cepstra and mean and spread of log-F0,
 *      standardised over the recording and weighted; average-linkage
 *      clustering on cosine distance cut into at least 12 clusters (2 ×
 *      max_speakers) gives a generous first partition.
 *   3. Bottom-up: the pair of clusters whose frames one Gaussian explains
 *      nearly as well as two (the smallest splitScore, a per-frame BIC
 *      likelihood ratio) merges, until every pair scores at least the bar
 *      from clustering_threshold (or the count is speaker_count, or within
 *      max_speakers). Then a Viterbi resegmentation assigns every block to
 *      the speaker whose full-covariance Gaussians explain it best, with a
 *      penalty per change of speaker; the same test runs again on its
 *      result (a pair whose pitch gives no sign of two voices needs a higher
 *      bar there: the resegmentation chose that partition itself), and a
 *      cluster with under 2 s of voice or no stretch of 1.5 s of its own
 *      (windows that straddled two voices) joins its nearest.
 *   4. Runs of a label become turns; turns under 0.5 s join a neighbour.
 *      The test of step 3 (after the resegmentation) runs once more on the
 *      speakers as these turns give them, merging a pair that fails it:
 *      the blocks the resegmentation gave a cluster include fragments (turn
 *      edges, overlaps) that make it look more distinct than the speech
 *      the turns keep, so one voice could leave as two speakers with
 *      turns that the test itself calls one voice (decision 136). So does
 *      a speaker that one Gaussian of two other speakers' frames explains
 *      as well as its own: two voices at once, an overlap long enough to
 *      pass for a speaker (decision 156). Then speakers are named S1, S2, …
 *      by first appearance.
 *   5. Where two voices are heard at once at a change of speaker, the
 *      speaker across the change is given too, as a turn marked `overlap`:
 *      a block that a model of the two voices' mixture (their frames' mel
 *      energies added, from the meeting's own turns) explains better than
 *      either voice alone by the clustering's bar (diarize/mixture.ts,
 *      decision 179). Run only when asked (the diarizer benchmark): no
 *      output of the gateway carries second speakers (decision 183). An earlier detector, a small likelihood margin between
 *      the single voices' models (diarize/overlap.ts), stays off: measured,
 *      it did not help (decision 156).
 * This file runs the steps and turns labels into turns; the steps live in
 * diarize/: blocks.ts (step 1 and the window features), features.ts (MFCC,
 * pitch, frame statistics), clustering.ts (steps 2 and 3), likelihood.ts
 * (the split score and the Gaussians), resegment.ts (the Viterbi pass),
 * mixture.ts and gmm.ts (step 5), overlap.ts (step 5's earlier detector).
 * Decisions: docs/decisions/034-diarization-likelihood-merging.md (this
 * method), 092-diarization-pitchless-splits.md (the higher bar after the
 * resegmentation), 136-diarization-on-every-cast.md (the test on the turns),
 * 156-diarization-overlapped-speech-measured.md (mixed speakers, step 5),
 * 179-diarization-overlap-mixture-model.md (step 5's mixture model),
 * 010-decode-vad-diarization.md (the first one).
 */
import type { DiarizationSettings, PcmAudio, SpeakerTurn, SpeechRegion, StageControl } from './types.ts';
import { cutBlocks, cutWindows, describeBlocks, type Block } from './diarize/blocks.ts';
import { clusterBlocks, indistinctPair, mixedSpeaker } from './diarize/clustering.ts';
import { mixtureOverlapSpans, type MixtureOptions } from './diarize/mixture.ts';
import { addStats, emptyStats, type FrameStats } from './diarize/features.ts';
import { overlapSpans, type OverlapOptions } from './diarize/overlap.ts';

/** Step 5's two detectors of a second speaker: the likelihood margin (decision 156, off) and the mixture model (decision 179). */
export interface SecondSpeakerOptions extends OverlapOptions {
  /**
   * The mixture detector (decision 179). Absent: not run, as in the gateway,
   * where nothing reads second speakers (decision 183). Given without a
   * margin: the clustering's bar (requiredSplitScore); a null margin: off.
   */
  mixture?: Omit<MixtureOptions, 'margin'> & { margin?: number | null };
}

export { fft, MfccExtractor, yinPitch } from './diarize/features.ts';

/** Turns shorter than this are absorbed by their neighbours. */
const MIN_TURN_SECONDS = 0.5;
/** Turns of one speaker closer than this are one turn. */
const MERGE_GAP_SECONDS = 0.5;

/**
 * The split score (diarize/likelihood.ts, splitScore) that two clusters need to stay two
 * speakers, from clustering_threshold (0..1): 0.05 at 0, 0.4 at the default
 * 0.5, 0.75 at 1. A higher threshold merges more and finds fewer speakers.
 * Measured on Flite/Festival and espeak-ng voices (decision 034): one voice
 * split in two scored up to about 0.3, two espeak-ng voices that differ
 * mostly in pitch 0.44, different Flite/Festival speakers more.
 */
function requiredSplitScore(clusteringThreshold: number): number {
  const t = Number.isFinite(clusteringThreshold) ? Math.min(1, Math.max(0, clusteringThreshold)) : 0.5;
  return 0.05 + 0.7 * t;
}

export async function diarize(
  audio: PcmAudio,
  regions: readonly SpeechRegion[],
  settings: DiarizationSettings,
  control: StageControl,
  overlap: SecondSpeakerOptions = {},
): Promise<SpeakerTurn[]> {
  return (await diarizeWithVoices(audio, regions, settings, control, overlap)).turns;
}

/** The turns, and each speaker's voice statistics as the diarizer measured them (see diarizeWithVoices). */
export interface Diarization {
  turns: SpeakerTurn[];
  /**
   * By speaker key (S1, S2, … as in `turns`): the frame statistics of the
   * blocks the speaker's own turns cover (step 4's partition, the one the
   * last merge test compared), second speakers of overlaps left out. Absent
   * when no clustering ran (diarization off, no speech).
   */
  voices?: Record<string, FrameStats>;
}

/**
 * diarize(), with each speaker's voice statistics beside the turns: what the
 * identification stage compares with voiceprints (identify-speakers.ts), so
 * it need not analyse the audio a second time (decision 171).
 */
export async function diarizeWithVoices(
  audio: PcmAudio,
  regions: readonly SpeechRegion[],
  settings: DiarizationSettings,
  control: StageControl,
  overlap: SecondSpeakerOptions = {},
): Promise<Diarization> {
  const duration = audio.samples.length / audio.sampleRate;
  if (!settings.enabled) return { turns: duration > 0 ? [{ speaker: 'S1', start: 0, end: round3(duration) }] : [] };
  // The mixture must beat either voice alone by as much as two clusters must differ to be two voices (decision 179).
  const mixture: MixtureOptions =
    overlap.mixture === undefined
      ? { margin: null }
      : {
          ...overlap.mixture,
          margin: overlap.mixture.margin === undefined ? requiredSplitScore(settings.clustering_threshold) : overlap.mixture.margin,
        };
  // Frames' mel energies are kept only for the mixture step (about 10 kB per second of speech).
  const labelled = await speakerBlocks(audio, regions, settings, control, mixture.margin !== null);
  if (labelled === null) return { turns: [] };
  const { blocks, labels } = labelled;
  const turns = labelledTurns(blocks, labels);
  // Step 5: a second speaker where two voices are heard at once (decisions 156, 179).
  const spoken = blockLabels(blocks, turns);
  const second = [...overlapSpans(blocks, spoken, turns, overlap), ...mixtureOverlapSpans(blocks, spoken, turns, mixture)];
  const named = namedTurns(turns, second);
  const names = speakerNames(turns);
  const voices: Record<string, FrameStats> = {};
  for (const name of names.values()) voices[name] = emptyStats();
  blocks.forEach((b, i) => {
    const name = names.get(spoken[i]!);
    if (name !== undefined) addStats(voices[name]!, b.stats);
  });
  control.progress(1);
  return { turns: named, voices };
}

/**
 * Steps 1–4 up to the turns: the blocks and each block's speaker label (the
 * labels the turns are made from), or null when there is no speech.
 */
async function speakerBlocks(
  audio: PcmAudio,
  regions: readonly SpeechRegion[],
  settings: DiarizationSettings,
  control: StageControl,
  keepLogMel: boolean,
): Promise<{ blocks: Block[]; labels: Int32Array } | null> {
  const duration = audio.samples.length / audio.sampleRate;
  // Inside the recording, in order, overlaps joined (the VAD gives them so; other callers may not).
  const speech: SpeechRegion[] = [];
  for (const r of regions
    .map((r) => ({ start: Math.max(0, r.start), end: Math.min(duration, r.end) }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start)) {
    const prev = speech[speech.length - 1];
    if (prev !== undefined && r.start <= prev.end) prev.end = Math.max(prev.end, r.end);
    else speech.push(r);
  }
  if (speech.length === 0) return null;
  control.progress(0);

  const cut = cutBlocks(speech);
  const windows = cutWindows(cut);
  const blocks = await describeBlocks(audio, cut, control, keepLogMel);
  control.progress(0.5);

  const fixed = settings.speaker_count;
  const maxSpeakers = Math.max(1, settings.max_speakers, settings.min_speakers);
  let labels = await clusterBlocks(blocks, windows, {
    fixed: fixed === null ? null : Math.max(1, fixed),
    min: Math.max(1, Math.min(settings.min_speakers, maxSpeakers)),
    max: maxSpeakers,
    splitScore: requiredSplitScore(settings.clustering_threshold),
    control,
  });
  control.progress(0.9);
  // The clustering's own test, once more on the speakers as the turns give them (step 4).
  const splitScore = requiredSplitScore(settings.clustering_threshold);
  const min = Math.max(1, Math.min(settings.min_speakers, maxSpeakers));
  for (let turns = labelledTurns(blocks, labels); fixed === null; turns = labelledTurns(blocks, labels)) {
    const spoken = blockLabels(blocks, turns);
    if (new Set(turns.map((t) => t.label)).size <= min) break;
    const pair = indistinctPair(blocks, spoken, splitScore) ?? mixedSpeaker(blocks, spoken, splitScore);
    if (pair === null) break;
    await control.checkpoint();
    const [into, from] = pair;
    labels = labels.map((l) => (l === from ? into : l));
  }
  return { blocks, labels };
}

/**
 * The speaker of each word: the turn it overlaps most, or else the nearest
 * turn in time. With no turns at all every word is S1.
 */
export function assignSpeakers(words: readonly { start: number; end: number }[], turns: readonly SpeakerTurn[]): string[] {
  // A second speaker under another's turn (overlap) names no word: the recognizer heard one voice there.
  const sorted = turns.filter((t) => t.overlap !== true).sort((a, b) => a.start - b.start);
  if (sorted.length === 0) return words.map(() => 'S1');
  // Turns may overlap in the input; the largest end so far bounds the search to the left.
  const maxEnd = new Float64Array(sorted.length);
  sorted.forEach((t, i) => (maxEnd[i] = Math.max(t.end, i > 0 ? maxEnd[i - 1]! : -Infinity)));
  return words.map((w) => {
    // First turn whose running max end reaches past the word's start.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (maxEnd[mid]! <= w.start) lo = mid + 1;
      else hi = mid;
    }
    let best: SpeakerTurn | null = null;
    let bestOverlap = 0;
    for (let i = lo; i < sorted.length && sorted[i]!.start < w.end; i++) {
      const t = sorted[i]!;
      const overlap = Math.min(t.end, w.end) - Math.max(t.start, w.start);
      if (overlap > bestOverlap) {
        bestOverlap = overlap;
        best = t;
      }
    }
    if (best !== null) return best.speaker;
    // No overlap: the nearest turn by the gap between the intervals.
    let nearest = sorted[0]!;
    let gap = Infinity;
    for (const i of [lo - 1, lo, lo + 1]) {
      const t = sorted[i];
      if (t === undefined) continue;
      const g = Math.max(t.start - w.end, w.start - t.end, 0);
      if (g < gap) {
        gap = g;
        nearest = t;
      }
    }
    return nearest.speaker;
  });
}

interface LabelledTurn {
  label: number;
  start: number;
  end: number;
}

/** Each block's label as the turns give it (a block inside no turn: −1). */
function blockLabels(blocks: readonly Block[], turns: readonly LabelledTurn[]): Int32Array {
  let t = 0;
  return Int32Array.from(blocks, (b) => {
    const mid = (b.start + b.end) / 2;
    while (t < turns.length && turns[t]!.end <= mid) t++;
    const turn = turns[t];
    return turn !== undefined && turn.start <= mid ? turn.label : -1;
  });
}

function labelledTurns(blocks: readonly Block[], labels: Int32Array): LabelledTurn[] {
  // Runs of a label inside a region become turns; regions' edges are the turns' outer edges.
  let turns: LabelledTurn[] = [];
  blocks.forEach((b, i) => {
    const last = turns[turns.length - 1];
    const label = Math.max(0, labels[i]!);
    if (last !== undefined && last.label === label && blocks[i - 1]!.region === b.region) last.end = b.end;
    else turns.push({ label, start: b.start, end: b.end });
  });

  // Short turns between others are absorbed by the longer neighbour (within reach).
  let changed = true;
  while (changed && turns.length > 1) {
    changed = false;
    for (let i = 0; i < turns.length; i++) {
      const t = turns[i]!;
      if (t.end - t.start >= MIN_TURN_SECONDS) continue;
      const prev = turns[i - 1];
      const next = turns[i + 1];
      const prevNear = prev !== undefined && t.start - prev.end <= MERGE_GAP_SECONDS ? prev : undefined;
      const nextNear = next !== undefined && next.start - t.end <= MERGE_GAP_SECONDS ? next : undefined;
      const into =
        prevNear && nextNear
          ? prevNear.end - prevNear.start >= nextNear.end - nextNear.start
            ? prevNear
            : nextNear
          : (prevNear ?? nextNear);
      if (into === undefined || into.label === t.label) continue;
      t.label = into.label;
      changed = true;
    }
    turns = mergeSameSpeaker(turns);
  }
  return mergeSameSpeaker(turns);
}

/**
 * S1, S2, … in order of first appearance in the turns; then the second
 * speakers of overlapped speech (marked `overlap`), in time order with the rest.
 */
function namedTurns(turns: readonly LabelledTurn[], second: readonly LabelledTurn[] = []): SpeakerTurn[] {
  const names = speakerNames(turns);
  const named: SpeakerTurn[] = turns.map((t) => ({ speaker: names.get(t.label)!, start: round3(t.start), end: round3(t.end) }));
  if (second.length === 0) return named;
  const overlaps = second.flatMap((t) => {
    const speaker = names.get(t.label);
    return speaker === undefined ? [] : [{ speaker, start: round3(t.start), end: round3(t.end), overlap: true as const }];
  });
  return [...named, ...overlaps].sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Each label's speaker key: S1, S2, … in order of first appearance in the turns. */
function speakerNames(turns: readonly LabelledTurn[]): Map<number, string> {
  const names = new Map<number, string>();
  for (const t of turns) if (!names.has(t.label)) names.set(t.label, `S${names.size + 1}`);
  return names;
}

function mergeSameSpeaker<T extends { label: number; start: number; end: number }>(turns: T[]): T[] {
  const out: T[] = [];
  for (const t of turns) {
    const prev = out[out.length - 1];
    if (prev !== undefined && prev.label === t.label && t.start - prev.end <= MERGE_GAP_SECONDS) prev.end = Math.max(prev.end, t.end);
    else out.push({ ...t });
  }
  return out;
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
