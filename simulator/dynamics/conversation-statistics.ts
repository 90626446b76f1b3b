/**
 * The statistics a meeting's timing is compared by, computed the same way for
 * a real corpus (AMI's RTTM files, bench/ami-statistics.ts) and for a
 * rendered meeting's truth (bench/dynamics-fit.ts), from who spoke when
 * (decision 109):
 *
 * - overlap share: seconds with two or more talkers over seconds with one or more;
 * - silence share: seconds with nobody talking over the recording's length;
 * - floor-transfer offsets: a stretch of speech that ends after every
 *   stretch before it and whose speaker is not the one of the stretch that
 *   ended last is a change of speaker; its offset is its start minus that
 *   end (negative: they overlap). A stretch that ends inside someone else's
 *   (a backchannel under speech) is no change of speaker;
 * - pauses of one speaker: the same, when the speaker is the same;
 * - inside share: stretches that end inside another speaker's, over all stretches;
 * - stretch lengths.
 *
 * A "stretch" is what an RTTM line is in AMI-diarization-setup: a speaker's
 * words joined where they touch and split at any silence. Both sides are
 * first joined over a speaker's silences shorter than JOIN_GAP_SECONDS: AMI's
 * manual word times leave almost none that short (joining them moves no
 * statistic by 0.1 point), while a synthesizer pauses 0.1–0.25 s at every
 * comma, which no annotator would mark as a pause (decision 109).
 */

/** A speaker's silence shorter than this is not a pause (see above). */
const JOIN_GAP_SECONDS = 0.3;

export interface SpeechSegment {
  speaker: string;
  start: number;
  end: number;
}

export interface ConversationCounts {
  /** Seconds of the recordings, with speech, with two or more talkers. */
  seconds: number;
  speechSeconds: number;
  overlapSeconds: number;
  segments: number;
  /** Segments that end inside another speaker's segment. */
  insideSegments: number;
  changeOffsets: number[];
  samePauses: number[];
  segmentLengths: number[];
}

export interface ConversationStatistics {
  recordings: number;
  hours: number;
  overlapShare: number;
  silenceShare: number;
  changes: number;
  /** Share of changes of speaker that overlap (offset below zero). */
  overlappingChanges: number;
  /** Share of changes of speaker with a gap over one second. */
  gapsOverOneSecond: number;
  changeOffset: { q25: number; median: number; q75: number };
  samePause: { q25: number; median: number; q75: number };
  insideShare: number;
  segmentLength: { q25: number; median: number; q75: number };
}

/** Joins each speaker's segments (or words) separated by less than `joinGap` seconds into stretches; a longer silence splits them. */
export function joinSpeakerSegments(words: readonly SpeechSegment[], joinGap = JOIN_GAP_SECONDS): SpeechSegment[] {
  const bySpeaker = new Map<string, SpeechSegment[]>();
  for (const w of words) {
    const list = bySpeaker.get(w.speaker) ?? [];
    list.push({ speaker: w.speaker, start: w.start, end: w.end });
    bySpeaker.set(w.speaker, list);
  }
  const out: SpeechSegment[] = [];
  for (const list of bySpeaker.values()) {
    list.sort((a, b) => a.start - b.start);
    let current: SpeechSegment | undefined;
    for (const w of list) {
      if (current !== undefined && w.start < current.end + joinGap) current.end = Math.max(current.end, w.end);
      else {
        if (current !== undefined) out.push(current);
        current = { ...w };
      }
    }
    if (current !== undefined) out.push(current);
  }
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Seconds covered by at least one and by at least two segments. */
function coverage(segments: readonly SpeechSegment[]): { speech: number; overlap: number } {
  const events: [number, number][] = [];
  for (const s of segments) events.push([s.start, 1], [s.end, -1]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let talkers = 0;
  let last = 0;
  let speech = 0;
  let overlap = 0;
  for (const [t, d] of events) {
    if (talkers >= 1) speech += t - last;
    if (talkers >= 2) overlap += t - last;
    talkers += d;
    last = t;
  }
  return { speech, overlap };
}

/** Adds one recording of `seconds` to `counts`: its segments (RTTM lines, or a truth's words) joined by joinSpeakerSegments. */
export function countRecording(counts: ConversationCounts, segments: readonly SpeechSegment[], seconds: number): void {
  const sorted = joinSpeakerSegments(segments);
  const { speech, overlap } = coverage(sorted);
  counts.seconds += seconds;
  counts.speechSeconds += speech;
  counts.overlapSeconds += overlap;
  let latest: SpeechSegment | undefined;
  for (const s of sorted) {
    counts.segments++;
    counts.segmentLengths.push(s.end - s.start);
    if (latest !== undefined && s.end <= latest.end && s.speaker !== latest.speaker) counts.insideSegments++;
    if (latest !== undefined && s.end > latest.end) {
      if (s.speaker !== latest.speaker) counts.changeOffsets.push(s.start - latest.end);
      else counts.samePauses.push(s.start - latest.end);
    }
    if (latest === undefined || s.end > latest.end) latest = s;
  }
}

export function emptyCounts(): ConversationCounts {
  return {
    seconds: 0,
    speechSeconds: 0,
    overlapSeconds: 0,
    segments: 0,
    insideSegments: 0,
    changeOffsets: [],
    samePauses: [],
    segmentLengths: [],
  };
}

/** The value below which a share `p` of the sorted values lie (the nearest rank below, as the recount was first made). */
function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.floor(p * (sorted.length - 1))]!;
}

function quartiles(values: readonly number[]): { q25: number; median: number; q75: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { q25: quantile(sorted, 0.25), median: quantile(sorted, 0.5), q75: quantile(sorted, 0.75) };
}

/** Quantiles of a list at the given probabilities (for fitting a QuantileTable). */
export function quantiles(values: readonly number[], probabilities: readonly number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return probabilities.map((p) => quantile(sorted, p));
}

export function summarize(counts: ConversationCounts, recordings: number): ConversationStatistics {
  const offsets = counts.changeOffsets;
  const changes = offsets.length;
  return {
    recordings,
    hours: counts.seconds / 3600,
    overlapShare: counts.overlapSeconds / counts.speechSeconds,
    silenceShare: 1 - counts.speechSeconds / counts.seconds,
    changes,
    overlappingChanges: offsets.filter((o) => o < 0).length / changes,
    gapsOverOneSecond: offsets.filter((o) => o > 1).length / changes,
    changeOffset: quartiles(offsets),
    samePause: quartiles(counts.samePauses),
    insideShare: counts.insideSegments / counts.segments,
    segmentLength: quartiles(counts.segmentLengths),
  };
}
