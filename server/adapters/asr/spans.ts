/**
 * The span planners: what of a recording a recognizer decodes, as one file
 * whose times are then mapped back to the recording.
 *
 * whisper.cpp and the OpenAI-compatible recognizer decode the speech regions
 * of the voice-activity stage laid end to end, with near-silence between
 * them (planDecodeSpans), so music and long silences cost no decoding time
 * and produce no invented words.
 *
 * pocketsphinx decodes the recording itself, its pauses in it
 * (planContinuousSpans, decision 120): its own voice activity closes an
 * utterance at a pause, and regions decoded apart lost words against the
 * whole file. Only a long stretch without speech is shortened. It decodes
 * that file in groups, one process per core (planDecodeGroups, cut at
 * pauses; decisions 094 and 104).
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
  /** Seconds of dither between consecutive spans in the file: SPAN_GAP_SECONDS when absent; 0 where they join. */
  gapSeconds?: number;
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
 * A stretch without speech longer than this (a pause, the lead-in, the tail)
 * is shortened in pocketsphinx's file; shorter ones are decoded as recorded.
 * Its voice activity closes an utterance after half a second of silence, so
 * a few seconds of the room's own sound is all a pause needs to end one
 * utterance and begin the next as in the whole file (decision 120).
 */
export const LONG_PAUSE_SECONDS = 6;
/** What a shortened stretch keeps of its own audio beside the speech on each side (the recording's own room, not dither). */
export const PAUSE_KEPT_SECONDS = 1.5;

/**
 * pocketsphinx's plan (decision 120): the recording as it is, pauses and
 * all, except that every stretch without speech longer than
 * LONG_PAUSE_SECONDS keeps only PAUSE_KEPT_SECONDS of its own audio beside
 * the speech on each side (at the recording's start and end, only the side
 * beside the speech). The spans follow one another in the file with nothing
 * between them. With no speech region at all, the whole recording.
 */
export function planContinuousSpans(regions: readonly SpeechRegion[], duration: number): DecodePlan {
  if (duration <= 0) return { spans: [], fileDuration: 0, gapSeconds: 0 };
  const merged = mergeRegions(regions, duration);
  if (merged.length === 0) return { spans: [{ sourceStart: 0, sourceEnd: duration, fileStart: 0 }], fileDuration: duration, gapSeconds: 0 };
  // The stretches kept: from the recording's start, cut at every long stretch without speech.
  const kept: SpeechRegion[] = [];
  const first = merged[0]!;
  let start = first.start > LONG_PAUSE_SECONDS ? first.start - PAUSE_KEPT_SECONDS : 0;
  for (let i = 1; i < merged.length; i++) {
    const before = merged[i - 1]!;
    const after = merged[i]!;
    if (after.start - before.end <= LONG_PAUSE_SECONDS) continue;
    kept.push({ start, end: before.end + PAUSE_KEPT_SECONDS });
    start = after.start - PAUSE_KEPT_SECONDS;
  }
  const last = merged.at(-1)!;
  kept.push({ start, end: duration - last.end > LONG_PAUSE_SECONDS ? last.end + PAUSE_KEPT_SECONDS : duration });
  const spans: DecodeSpan[] = [];
  let at = 0;
  for (const k of kept) {
    spans.push({ sourceStart: k.start, sourceEnd: k.end, fileStart: at });
    at += k.end - k.start;
  }
  return { spans, fileDuration: at, gapSeconds: 0 };
}

/**
 * A group shorter than this (seconds of decoded file) is not given a process
 * of its own. Each process loads the acoustic and language models before it
 * decodes a frame, and a process that starts at a seam brings another
 * decoder state than the single process has there (its cepstral mean, its
 * voice activity's noise floor): the words after a seam differ, and in a
 * noisy room that state can decide whether two utterances are joined into
 * one the search loses (decision 104). On a meeting of a minute or two a
 * second process saves seconds; it is kept for meetings where it saves minutes.
 */
export const MIN_GROUP_SECONDS = 90;
/**
 * Speech decoded before each group but the first, its words dropped: a
 * process starts its cepstral mean normalization from the model's prior
 * (`-cmninit`), which fits a close microphone, and adapts over its first
 * utterances; a group that started cold lost words where the single
 * process, adapted by then, had not (decision 094, measured on real speech).
 */
export const WARM_UP_SECONDS = 10;
/** pocketsphinx's frame shift (`-frate 100`) in samples of the decoded file. */
const FRAME_SAMPLES = PIPELINE_SAMPLE_RATE / 100;

/** One recognizer process's share of a plan (planDecodeGroups): a stretch of the plan's file, and the words it keeps. */
export interface DecodeGroup {
  /**
   * Samples [fromSample, toSample) of the plan's file as writeSpansAsWav lays
   * it out. fromSample is on a frame boundary of the whole file, so the
   * group's frames are the single process's frames.
   */
  fromSample: number;
  toSample: number;
  /** The group's words are those whose middle falls in [keepFrom, keepTo), seconds of the plan's file. */
  keepFrom: number;
  keepTo: number;
}

/** The single plan and how its file is shared among the processes. */
export interface GroupedPlan {
  plan: DecodePlan;
  groups: DecodeGroup[];
}

/**
 * What pocketsphinx's file holds: `recording`, the recording with its pauses
 * (planContinuousSpans, decision 120); `regions`, the speech regions laid
 * end to end when they cover under 90 % of it (planDecodeSpans: decisions
 * 094 to 104 decoded so; kept for measurements).
 */
export type SpanLayout = 'recording' | 'regions';

/**
 * The plan of planContinuousSpans (or, for measurements, planDecodeSpans),
 * its file shared among at most `count` recognizer processes (decision 094,
 * amended by decisions 104 and 120).
 *
 * Every group decodes a stretch of the very file the single process would
 * decode, begun on one of its frame boundaries: the same samples in the same
 * frames, so a group differs from the single process only by the decoder
 * state it brings to its first words. Cuts fall only at pauses the voice
 * activity found, in the middle of the pause as the file holds it, so no
 * word is cut in two; each group keeps the words whose middle lies between
 * its two cuts, so each word is kept by exactly one group, and the groups
 * joined in order are the recording's words in order. Each group but the
 * first starts `warmUpSeconds` of file before its cut, to warm its decoder
 * up, and ends at its second cut (the file's end for the last group). The
 * groups are balanced by the seconds of file between their cuts.
 *
 * With `count` 1, or too little audio for two groups of `minGroupSeconds`,
 * there is one group, the whole file: the single-process path, unchanged.
 */
export function planDecodeGroups(
  regions: readonly SpeechRegion[],
  duration: number,
  count: number,
  minGroupSeconds = MIN_GROUP_SECONDS,
  warmUpSeconds = WARM_UP_SECONDS,
  layout: SpanLayout = 'recording',
): GroupedPlan {
  const plan = layout === 'recording' ? planContinuousSpans(regions, duration) : planDecodeSpans(regions, duration);
  if (plan.spans.length === 0) return { plan, groups: [] };
  const total = sampleLayout(plan, Math.round(duration * PIPELINE_SAMPLE_RATE)).total;
  const whole: DecodeGroup = { fromSample: 0, toSample: total, keepFrom: -Infinity, keepTo: Infinity };
  const merged = mergeRegions(regions, duration);
  const wanted = Math.min(Math.floor(count), merged.length, Math.floor(plan.fileDuration / Math.max(minGroupSeconds, 1e-9)));
  if (wanted <= 1) return { plan, groups: [whole] };

  // The cuts: the middle of each pause between regions, as the file holds it.
  const inFile = merged.map((r) => ({ start: fileTimeOf(plan, r.start), end: fileTimeOf(plan, r.end) }));
  const cuts = [0, ...inFile.slice(1).map((r, i) => (inFile[i]!.end + r.start) / 2), plan.fileDuration];
  const costs = inFile.map((_, i) => cuts[i + 1]! - cuts[i]!);
  const rate = PIPELINE_SAMPLE_RATE;
  const groups = balancedRuns(costs, wanted).map(([from, to]): DecodeGroup => {
    const first = from === 0;
    const last = to === inFile.length;
    const warmStart = Math.max(0, Math.round(cuts[from]! * rate) - Math.round(warmUpSeconds * rate));
    return {
      fromSample: first ? 0 : Math.floor(warmStart / FRAME_SAMPLES) * FRAME_SAMPLES,
      toSample: last ? total : Math.round(cuts[to]! * rate),
      keepFrom: first ? -Infinity : cuts[from]!,
      keepTo: last ? Infinity : cuts[to]!,
    };
  });
  return { plan, groups };
}

/** Where a time of the recording lies in the plan's file (the span holding it; a region always lies inside one). */
function fileTimeOf(plan: DecodePlan, t: number): number {
  let span = plan.spans[0]!;
  for (const s of plan.spans) if (s.sourceStart <= t) span = s;
  return span.fileStart + Math.min(span.sourceEnd, Math.max(span.sourceStart, t)) - span.sourceStart;
}

/** Where writeSpansAsWav puts each span: its source sample range, its first sample in the file, and the file's length. */
function sampleLayout(
  plan: DecodePlan,
  sampleCount: number,
): { ranges: (readonly [number, number])[]; starts: number[]; gapSamples: number; total: number } {
  const rate = PIPELINE_SAMPLE_RATE;
  const gapSamples = Math.round((plan.gapSeconds ?? SPAN_GAP_SECONDS) * rate);
  const ranges = plan.spans.map((s) => {
    const from = Math.round(s.sourceStart * rate);
    return [from, Math.max(from, Math.min(sampleCount, Math.round(s.sourceEnd * rate)))] as const;
  });
  const starts: number[] = [];
  let at = 0;
  for (const [i, [from, to]] of ranges.entries()) {
    if (i > 0) at += gapSamples;
    starts.push(at);
    at += to - from;
  }
  return { ranges, starts, gapSamples, total: at };
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

/**
 * Writes the plan's spans as 16 kHz 16-bit mono WAV, in blocks so long
 * meetings never sit in memory twice; with `slice`, only samples
 * [fromSample, toSample) of that file (a DecodeGroup's share of it).
 */
export async function writeSpansAsWav(
  audio: PcmAudio,
  plan: DecodePlan,
  file: string,
  slice?: { fromSample: number; toSample: number },
): Promise<void> {
  const layout = sampleLayout(plan, audio.samples.length);
  const from = Math.max(0, slice?.fromSample ?? 0);
  const to = Math.min(layout.total, slice?.toSample ?? layout.total);
  const fh = await open(file, 'w');
  try {
    await fh.write(wavHeader(Math.max(0, to - from) * 2));
    let noise = 1;
    const BLOCK = 1 << 16;
    for (const [r, [sourceFrom, sourceTo]] of layout.ranges.entries()) {
      const at = layout.starts[r]!;
      if (r > 0) {
        // Digital zeros give log(0) energies in the front end; a faint deterministic dither keeps it sane.
        // The generator runs through every gap, written or not, so a slice holds the whole file's samples.
        const gapAt = at - layout.gapSamples;
        const gap = Buffer.alloc(layout.gapSamples * 2);
        for (let i = 0; i < layout.gapSamples; i++) {
          noise = (noise * 1103515245 + 12345) & 0x7fffffff;
          gap.writeInt16LE((noise % 7) - 3, i * 2);
        }
        const a = Math.max(from, gapAt);
        const b = Math.min(to, at);
        if (b > a) await fh.write(gap.subarray((a - gapAt) * 2, (b - gapAt) * 2));
      }
      // This span's source samples that fall inside the slice.
      const first = sourceFrom + Math.max(0, from - at);
      const end = sourceFrom + Math.min(sourceTo - sourceFrom, to - at);
      for (let i = first; i < end; i += BLOCK) {
        const stop = Math.min(end, i + BLOCK);
        const buf = Buffer.alloc((stop - i) * 2);
        for (let j = i; j < stop; j++) buf.writeInt16LE(Math.round(Math.max(-1, Math.min(1, audio.samples[j]!)) * 32767), (j - i) * 2);
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
