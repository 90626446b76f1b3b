/**
 * The span planner every recognizer shares: the speech regions of the
 * voice-activity stage laid end to end in one file, with near-silence
 * between them, so music and long silences cost no decoding time and
 * produce no invented words; the recognizer's times are then mapped back to
 * the recording. pocketsphinx, whisper.cpp and the OpenAI-compatible
 * recognizer all decode such a plan. pocketsphinx decodes it in groups, one
 * process per core (planDecodeGroups, cut at pauses; decision 094).
 */
import { open } from 'node:fs/promises';
import { wavHeader } from '../../../common/audio/wav.ts';
import { PIPELINE_SAMPLE_RATE, type PcmAudio, type RecognizedWord, type SpeechRegion } from '../../pipeline/types.ts';

/** A word with times in the decoded file. */
export interface FileWord {
  text: string;
  start: number;
  end: number;
  confidence: number;
}

/** One speech region as laid out in the decoded file. */
export interface DecodeSpan {
  sourceStart: number;
  sourceEnd: number;
  fileStart: number;
}

export interface DecodePlan {
  spans: DecodeSpan[];
  fileDuration: number;
  /**
   * Seconds at the start of the file that only warm the recognizer up: the
   * speech just before the group, as the single file has it (planDecodeGroups).
   * Their words are the previous group's and are dropped here.
   */
  warmUpSeconds?: number;
}

/** Regions closer than this are decoded as one (a pause inside a sentence). */
const MERGE_GAP_SECONDS = 0.3;
/** Near-silence between regions in the file: long enough for pocketsphinx's own VAD to close the utterance (0.5 s). */
export const SPAN_GAP_SECONDS = 1;
/** When the regions cover nearly everything, the whole recording is decoded unchanged. */
const WHOLE_FILE_COVERAGE = 0.9;

/** Lays the speech regions end to end, with a gap between them; all of it when there are no regions. */
export function planDecodeSpans(regions: readonly SpeechRegion[], duration: number): DecodePlan {
  if (duration <= 0) return { spans: [], fileDuration: 0 };
  const merged = mergeRegions(regions, duration);
  if (decodesWholeFile(merged, duration)) {
    return { spans: [{ sourceStart: 0, sourceEnd: duration, fileStart: 0 }], fileDuration: duration };
  }
  return layEndToEnd(merged);
}

/** The regions inside the recording, in order, those closer than MERGE_GAP_SECONDS joined. */
function mergeRegions(regions: readonly SpeechRegion[], duration: number): SpeechRegion[] {
  const sorted = regions
    .map((r) => ({ start: Math.max(0, r.start), end: Math.min(duration, r.end) }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start);
  const merged: SpeechRegion[] = [];
  for (const r of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && r.start - last.end < MERGE_GAP_SECONDS) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged;
}

function decodesWholeFile(merged: readonly SpeechRegion[], duration: number): boolean {
  const covered = merged.reduce((sum, r) => sum + r.end - r.start, 0);
  return merged.length === 0 || covered >= WHOLE_FILE_COVERAGE * duration;
}

function layEndToEnd(merged: readonly SpeechRegion[]): DecodePlan {
  const spans: DecodeSpan[] = [];
  let at = 0;
  for (const r of merged) {
    if (spans.length > 0) at += SPAN_GAP_SECONDS;
    spans.push({ sourceStart: r.start, sourceEnd: r.end, fileStart: at });
    at += r.end - r.start;
  }
  return { spans, fileDuration: at };
}

/**
 * A group shorter than this (seconds of decoded file) is not worth a process
 * of its own: each recognizer process loads the acoustic and language models
 * before it decodes a frame.
 */
export const MIN_GROUP_SECONDS = 30;
/**
 * Speech decoded before each group but the first, its words dropped: a
 * process starts its cepstral mean normalization from the model's prior
 * (`-cmninit`), which fits a close microphone, and adapts over its first
 * utterances; a group that started cold lost words where the single
 * process, adapted by then, had not (decision 094, measured on real speech).
 */
export const WARM_UP_SECONDS = 10;

/**
 * The plan of planDecodeSpans cut into at most `count` plans, one per
 * recognizer process, each decoded from its own file (decision 094).
 *
 * Cuts fall only at pauses the voice activity found, between two (merged)
 * regions, so no word is ever cut in two and each word is decoded by exactly
 * one process. The groups are contiguous runs of regions balanced by the
 * seconds of file each decodes: laid end to end, a group is its regions with
 * the usual gap between them; when the regions cover nearly the whole
 * recording (decoded unchanged), a group is the recording from the middle of
 * one pause to the middle of another. Joined in order, the groups' words are
 * the recording's in order, since the groups follow one another in time.
 *
 * With `count` 1, or too little audio for two groups of `minGroupSeconds`,
 * the one plan is planDecodeSpans's own (the single-process path, unchanged).
 */
export function planDecodeGroups(
  regions: readonly SpeechRegion[],
  duration: number,
  count: number,
  minGroupSeconds = MIN_GROUP_SECONDS,
  warmUpSeconds = WARM_UP_SECONDS,
): DecodePlan[] {
  const single = planDecodeSpans(regions, duration);
  if (single.spans.length === 0) return [];
  const merged = mergeRegions(regions, duration);
  const groups = Math.min(Math.floor(count), merged.length, Math.floor(single.fileDuration / Math.max(minGroupSeconds, 1e-9)));
  if (groups <= 1) return [single];

  if (decodesWholeFile(merged, duration)) {
    // Each region owns the recording from the middle of the pause before it to the middle of the pause after it.
    const cuts = [0, ...merged.slice(1).map((r, i) => (merged[i]!.end + r.start) / 2), duration];
    const costs = merged.map((_, i) => cuts[i + 1]! - cuts[i]!);
    return balancedRuns(costs, groups).map(([from, to]) => {
      const start = Math.max(0, cuts[from]! - warmUpSeconds);
      return {
        spans: [{ sourceStart: start, sourceEnd: cuts[to]!, fileStart: 0 }],
        fileDuration: cuts[to]! - start,
        ...(start < cuts[from]! ? { warmUpSeconds: cuts[from]! - start } : {}),
      };
    });
  }
  // Laid end to end: a region costs its length and the gap before it.
  const costs = merged.map((r, i) => r.end - r.start + (i > 0 ? SPAN_GAP_SECONDS : 0));
  return balancedRuns(costs, groups).map(([from, to]) => {
    const warmUp = speechBefore(merged, from, warmUpSeconds);
    const plan = layEndToEnd([...warmUp, ...merged.slice(from, to)]);
    return warmUp.length === 0 ? plan : { ...plan, warmUpSeconds: plan.spans[warmUp.length]!.fileStart };
  });
}

/** The last `seconds` of the file before region `index`, as the single plan lays it (regions, their tails, the gaps between). */
function speechBefore(merged: readonly SpeechRegion[], index: number, seconds: number): SpeechRegion[] {
  const pieces: SpeechRegion[] = [];
  let need = seconds;
  for (let i = index - 1; i >= 0 && need > 0; i--) {
    need -= SPAN_GAP_SECONDS; // the gap after this region
    if (need <= 0) break;
    const r = merged[i]!;
    pieces.unshift({ start: Math.max(r.start, r.end - need), end: r.end });
    need -= r.end - r.start;
  }
  return pieces;
}

/**
 * Cuts a list of item costs into `groups` contiguous, non-empty runs
 * [from, to), each cut placed where the running total comes nearest to its
 * share of the whole (so no run is off its share by more than one item).
 */
function balancedRuns(costs: readonly number[], groups: number): [number, number][] {
  const prefix = [0];
  for (const c of costs) prefix.push(prefix.at(-1)! + c);
  const total = prefix.at(-1)!;
  const bounds = [0];
  for (let k = 1; k < groups; k++) {
    const ideal = (total * k) / groups;
    // At least one item for this run and one for each run after it.
    let best = bounds.at(-1)! + 1;
    for (let j = best + 1; j <= costs.length - (groups - k); j++)
      if (Math.abs(prefix[j]! - ideal) < Math.abs(prefix[best]! - ideal)) best = j;
    bounds.push(best);
  }
  bounds.push(costs.length);
  return bounds.slice(1).map((to, i) => [bounds[i]!, to]);
}

/** Writes the plan's spans as 16 kHz 16-bit mono WAV, in blocks so long meetings never sit in memory twice. */
export async function writeSpansAsWav(audio: PcmAudio, plan: DecodePlan, file: string): Promise<void> {
  const rate = PIPELINE_SAMPLE_RATE;
  const gapSamples = Math.round(SPAN_GAP_SECONDS * rate);
  const ranges = plan.spans.map(
    (s) => [Math.round(s.sourceStart * rate), Math.min(audio.samples.length, Math.round(s.sourceEnd * rate))] as const,
  );
  const total = ranges.reduce((n, [a, b]) => n + (b - a), 0) + gapSamples * Math.max(0, ranges.length - 1);
  const fh = await open(file, 'w');
  try {
    await fh.write(wavHeader(total * 2));
    let noise = 1;
    const BLOCK = 1 << 16;
    for (let r = 0; r < ranges.length; r++) {
      if (r > 0) {
        // Digital zeros give log(0) energies in the front end; a faint deterministic dither keeps it sane.
        const gap = Buffer.alloc(gapSamples * 2);
        for (let i = 0; i < gapSamples; i++) {
          noise = (noise * 1103515245 + 12345) & 0x7fffffff;
          gap.writeInt16LE((noise % 7) - 3, i * 2);
        }
        await fh.write(gap);
      }
      const [from, to] = ranges[r]!;
      for (let i = from; i < to; i += BLOCK) {
        const end = Math.min(to, i + BLOCK);
        const buf = Buffer.alloc((end - i) * 2);
        for (let j = i; j < end; j++) buf.writeInt16LE(Math.round(Math.max(-1, Math.min(1, audio.samples[j]!)) * 32767), (j - i) * 2);
        await fh.write(buf);
      }
    }
  } finally {
    await fh.close();
  }
}

/** Maps file times back to the recording: each word to the span holding its middle, clamped inside it; times never go backwards. */
export function mapToSourceTime(words: readonly FileWord[], plan: DecodePlan, duration: number): RecognizedWord[] {
  const out: RecognizedWord[] = [];
  let last = 0;
  for (const w of [...words].sort((a, b) => a.start - b.start)) {
    const mid = (w.start + w.end) / 2;
    let span = plan.spans[0]!;
    for (const s of plan.spans) if (s.fileStart <= mid) span = s;
    const shift = span.sourceStart - span.fileStart;
    const start = Math.max(last, Math.min(span.sourceEnd, Math.max(span.sourceStart, w.start + shift)));
    const end = Math.min(duration, Math.max(start, Math.min(span.sourceEnd, w.end + shift)));
    out.push({ text: w.text, start: round3(start), end: round3(end), confidence: w.confidence });
    last = end;
  }
  return out;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
