/**
 * Diarization error rate (DER), by the standard definition that NIST's
 * md-eval.pl scores (and the numbers it prints, to rounding):
 *
 *   DER = (missed speaker time + false-alarm speaker time + confusion time)
 *         / scored reference speaker time
 *
 * - The scored span is the reference's own (first reference turn start to
 *   last reference turn end); hypothesis speech outside it is not counted.
 * - A no-score collar (default 0.25 s) on both sides of every reference turn
 *   boundary is removed from scoring: where exactly a turn starts is a matter
 *   of annotation, not of diarization.
 * - Overlapping speech is scored: in every stretch, with N_ref reference and
 *   N_hyp hypothesis speakers talking, missed = max(0, N_ref − N_hyp),
 *   false alarm = max(0, N_hyp − N_ref), confusion = min(N_ref, N_hyp) minus
 *   the reference speakers whose mapped hypothesis speaker is also talking;
 *   each weighted by the stretch's length. Scored speaker time is N_ref × length.
 * - Hypothesis speakers map to reference speakers one-to-one, maximizing the
 *   total time they talk together over the whole (uncollared) scored span.
 *
 * Turns of one speaker that overlap each other count once (their union);
 * the collar still goes around each turn's own edges.
 * Pure: no I/O, no clock.
 */
import { bestAssignment } from '../../common/best-assignment.ts';

export interface DiarizationTurn {
  speaker: string;
  start: number;
  end: number;
}

export interface DerOptions {
  /** No-score collar, seconds on each side of a reference boundary; default 0.25. */
  collarSeconds?: number;
  /**
   * Score only where at most one reference speaker talks, as md-eval's -1
   * does (`simulator score --ignore-overlap`); the mapping still uses the
   * whole span. Default false: overlapping speech is scored.
   */
  ignoreOverlap?: boolean;
}

export interface DiarizationErrorRate {
  /** (missed + false_alarm + confusion) / scored_speaker_time; 0 when nothing is scored. */
  der: number;
  /** Scored reference speaker time, seconds (overlapped speech counts once per speaker). */
  scored_speaker_time: number;
  missed_speaker_time: number;
  false_alarm_speaker_time: number;
  confusion_time: number;
  /** Each as a share of scored_speaker_time. */
  missed_rate: number;
  false_alarm_rate: number;
  confusion_rate: number;
  /** Distinct speakers with speech in the reference, and in the hypothesis within the scored span. */
  reference_speakers: number;
  hypothesis_speakers: number;
  /** hypothesis_speakers − reference_speakers: positive when the diarizer over-splits. */
  speaker_count_error: number;
  /** Hypothesis speaker → the reference speaker it was mapped to (null: none). */
  mapping: Record<string, string | null>;
}

interface Span {
  start: number;
  end: number;
}

/** Sorted, non-overlapping union of spans (zero-length ones dropped). */
function union(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ start: s.start, end: s.end });
  }
  return out;
}

/** Each speaker's turns as a sorted union. */
function bySpeaker(turns: readonly DiarizationTurn[]): Map<string, Span[]> {
  const spans = new Map<string, Span[]>();
  for (const t of turns) {
    if (!(t.end > t.start)) continue;
    let list = spans.get(t.speaker);
    if (list === undefined) spans.set(t.speaker, (list = []));
    list.push({ start: t.start, end: t.end });
  }
  for (const [k, v] of spans) spans.set(k, union(v));
  return spans;
}

/** `spans` minus `holes`; both sorted and non-overlapping. */
function subtract(spans: readonly Span[], holes: readonly Span[]): Span[] {
  const out: Span[] = [];
  let h = 0;
  for (const s of spans) {
    let from = s.start;
    while (h < holes.length && holes[h]!.end <= from) h++;
    let k = h;
    while (k < holes.length && holes[k]!.start < s.end) {
      if (holes[k]!.start > from) out.push({ start: from, end: holes[k]!.start });
      from = Math.max(from, holes[k]!.end);
      k++;
    }
    if (from < s.end) out.push({ start: from, end: s.end });
  }
  return out;
}

/** Where two or more of `speakers` (each a sorted union) talk at once. */
function overlapOf(speakers: readonly Span[][]): Span[] {
  const events = speakers.flat().flatMap((s) => [
    { t: s.start, d: 1 },
    { t: s.end, d: -1 },
  ]);
  // Ends before starts at the same instant: touching turns are no overlap.
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  const out: Span[] = [];
  let talking = 0;
  let from = 0;
  for (const e of events) {
    talking += e.d;
    if (e.d > 0 && talking === 2) from = e.t;
    if (e.d < 0 && talking === 1 && e.t > from) out.push({ start: from, end: e.t });
  }
  return union(out);
}

/** A stretch in which the same reference and hypothesis speakers talk. */
interface Piece {
  length: number;
  ref: number[];
  hyp: number[];
}

/**
 * Cuts `regions` at every turn boundary of either side and lists who talks
 * in each piece (speakers as indices into refNames / hypNames).
 */
function pieces(regions: readonly Span[], ref: readonly Span[][], hyp: readonly Span[][]): Piece[] {
  const cuts = new Set<number>();
  for (const r of regions) {
    cuts.add(r.start);
    cuts.add(r.end);
  }
  for (const side of [ref, hyp]) {
    for (const list of side) {
      for (const s of list) {
        cuts.add(s.start);
        cuts.add(s.end);
      }
    }
  }
  const times = [...cuts].sort((a, b) => a - b);
  const out: Piece[] = [];
  const talking = (list: readonly Span[], t: number): boolean => {
    // Binary search for the last span starting at or before t.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.start <= t) lo = mid + 1;
      else hi = mid;
    }
    const s = list[lo - 1];
    return s !== undefined && t < s.end;
  };
  let r = 0;
  for (let i = 0; i + 1 < times.length; i++) {
    const a = times[i]!;
    const b = times[i + 1]!;
    const mid = (a + b) / 2;
    while (r < regions.length && regions[r]!.end <= mid) r++;
    const region = regions[r];
    if (region === undefined || region.start > mid) continue;
    const refOn: number[] = [];
    const hypOn: number[] = [];
    ref.forEach((list, k) => {
      if (talking(list, mid)) refOn.push(k);
    });
    hyp.forEach((list, k) => {
      if (talking(list, mid)) hypOn.push(k);
    });
    out.push({ length: b - a, ref: refOn, hyp: hypOn });
  }
  return out;
}

export function diarizationErrorRate(
  reference: readonly DiarizationTurn[],
  hypothesis: readonly DiarizationTurn[],
  opts: DerOptions = {},
): DiarizationErrorRate {
  const collar = Math.max(0, opts.collarSeconds ?? 0.25);
  const refBy = bySpeaker(reference);
  const hypBy = bySpeaker(hypothesis);
  const refNames = [...refBy.keys()].sort();
  const hypNames = [...hypBy.keys()].sort();
  const ref = refNames.map((n) => refBy.get(n)!);
  const hyp = hypNames.map((n) => hypBy.get(n)!);

  const all = ref.flat();
  const span: Span[] = all.length === 0 ? [] : [{ start: Math.min(...all.map((s) => s.start)), end: Math.max(...all.map((s) => s.end)) }];

  // The mapping: time each (reference, hypothesis) pair talks together in the uncollared span.
  const together = refNames.map(() => new Array<number>(hypNames.length).fill(0));
  const hypActive = new Set<number>();
  for (const p of pieces(span, ref, hyp)) {
    for (const h of p.hyp) hypActive.add(h);
    for (const r of p.ref) for (const h of p.hyp) together[r]![h]! += p.length;
  }
  const assignment = bestAssignment(together);
  const mappedHyp = new Map<number, number>(); // reference index → hypothesis index
  assignment.forEach((h, r) => {
    if (h >= 0 && together[r]![h]! > 0) mappedHyp.set(r, h);
  });

  // Scoring, with the collars cut out.
  // Around every reference turn's own edges, as md-eval does, even where one speaker's turns touch or overlap.
  const edges = reference.filter((t) => t.end > t.start).flatMap((t) => [t.start, t.end]);
  const collars = union(edges.map((t) => ({ start: t - collar, end: t + collar })));
  const collared = collar > 0 ? subtract(span, collars) : span;
  const scored = opts.ignoreOverlap === true ? subtract(collared, overlapOf(ref)) : collared;
  let scoredTime = 0;
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  for (const p of pieces(scored, ref, hyp)) {
    const nRef = p.ref.length;
    const nHyp = p.hyp.length;
    scoredTime += p.length * nRef;
    missed += p.length * Math.max(0, nRef - nHyp);
    falseAlarm += p.length * Math.max(0, nHyp - nRef);
    let correct = 0;
    for (const r of p.ref) {
      const h = mappedHyp.get(r);
      if (h !== undefined && p.hyp.includes(h)) correct++;
    }
    confusion += p.length * (Math.min(nRef, nHyp) - correct);
  }

  const mapping: Record<string, string | null> = {};
  hypNames.forEach((n) => (mapping[n] = null));
  for (const [r, h] of mappedHyp) mapping[hypNames[h]!] = refNames[r]!;
  const rate = (x: number): number => (scoredTime > 0 ? x / scoredTime : 0);
  return {
    der: rate(missed + falseAlarm + confusion),
    scored_speaker_time: scoredTime,
    missed_speaker_time: missed,
    false_alarm_speaker_time: falseAlarm,
    confusion_time: confusion,
    missed_rate: rate(missed),
    false_alarm_rate: rate(falseAlarm),
    confusion_rate: rate(confusion),
    reference_speakers: refNames.length,
    hypothesis_speakers: hypActive.size,
    speaker_count_error: hypActive.size - refNames.length,
    mapping,
  };
}

/** RTTM text ("SPEAKER file 1 start duration <NA> <NA> name <NA> <NA>" lines) as turns, for scoring against other tools. */
export function parseRttm(text: string): DiarizationTurn[] {
  const turns: DiarizationTurn[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== 'SPEAKER' || f.length < 8) continue;
    const start = Number(f[3]);
    const duration = Number(f[4]);
    if (!Number.isFinite(start) || !Number.isFinite(duration)) continue;
    turns.push({ speaker: f[7]!, start, end: start + duration });
  }
  return turns;
}

/** Turns as RTTM lines for one recording. */
export function toRttm(turns: readonly DiarizationTurn[], file = 'meeting'): string {
  return turns
    .filter((t) => t.end > t.start)
    .map((t) => `SPEAKER ${file} 1 ${t.start.toFixed(3)} ${(t.end - t.start).toFixed(3)} <NA> <NA> ${t.speaker} <NA> <NA>\n`)
    .join('');
}
