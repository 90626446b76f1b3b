/**
 * Where speech is in a clip of synthetic speech: an energy threshold over
 * 10 ms frames, refined to the sample. espeak-ng pads each utterance with
 * silence and pauses at punctuation; the ground truth must start and end where
 * sound is, not where the synthesizer's buffer is.
 */

const FRAME_SECONDS = 0.01;
/**
 * -40 dBFS. espeak-ng speaks at roughly -10 dBFS RMS and its silences are
 * digital zero, so anything in between separates them; -40 keeps the soft
 * onsets of fricatives (an "f" or "s") inside the speech.
 */
export const SPEECH_THRESHOLD = Math.round(32768 * 10 ** (-40 / 20));

export interface SampleSpan {
  /** First sample of speech. */
  start: number;
  /** One past the last sample of speech. */
  end: number;
}

function frameIsActive(samples: Int16Array, from: number, to: number): boolean {
  let sum = 0;
  for (let i = from; i < to; i++) {
    const v = samples[i]!;
    sum += v * v;
  }
  return to > from && Math.sqrt(sum / (to - from)) >= SPEECH_THRESHOLD;
}

/** Runs of active 10 ms frames, as sample spans, before refinement. */
function activeFrameRuns(samples: Int16Array, sampleRate: number): SampleSpan[] {
  const frame = Math.max(1, Math.round(sampleRate * FRAME_SECONDS));
  const runs: SampleSpan[] = [];
  let runStart = -1;
  for (let from = 0; from < samples.length; from += frame) {
    const to = Math.min(samples.length, from + frame);
    const active = frameIsActive(samples, from, to);
    if (active && runStart < 0) runStart = from;
    if (!active && runStart >= 0) {
      runs.push({ start: runStart, end: from });
      runStart = -1;
    }
  }
  if (runStart >= 0) runs.push({ start: runStart, end: samples.length });
  return runs;
}

/**
 * Moves a frame-aligned span to the first and last sample whose amplitude
 * reaches the threshold, looking one frame outward so a word's soft onset in
 * the quiet frame before the first loud one is kept.
 */
function refine(samples: Int16Array, span: SampleSpan, frame: number): SampleSpan {
  const lo = Math.max(0, span.start - frame);
  const hi = Math.min(samples.length, span.end + frame);
  let start = span.start;
  for (let i = lo; i < span.end; i++) {
    if (Math.abs(samples[i]!) >= SPEECH_THRESHOLD) {
      start = i;
      break;
    }
  }
  let end = span.end;
  for (let i = hi - 1; i >= span.start; i--) {
    if (Math.abs(samples[i]!) >= SPEECH_THRESHOLD) {
      end = i + 1;
      break;
    }
  }
  return { start, end: Math.max(end, start + 1) };
}

/**
 * Speech segments: active runs separated by at least `minGapSeconds` of
 * silence (shorter gaps, such as the closure before a "b" or "t", are bridged).
 */
export function speechSegments(samples: Int16Array, sampleRate: number, minGapSeconds: number): SampleSpan[] {
  const frame = Math.max(1, Math.round(sampleRate * FRAME_SECONDS));
  const minGap = Math.round(minGapSeconds * sampleRate);
  const merged: SampleSpan[] = [];
  for (const run of activeFrameRuns(samples, sampleRate)) {
    const last = merged.at(-1);
    if (last !== undefined && run.start - last.end < minGap) last.end = run.end;
    else merged.push({ ...run });
  }
  return merged.map((span) => refine(samples, span, frame));
}

/** The span from the first to the last sample of speech, or undefined for silence. */
export function speechSpan(samples: Int16Array, sampleRate: number): SampleSpan | undefined {
  const runs = activeFrameRuns(samples, sampleRate);
  const first = runs[0];
  const last = runs.at(-1);
  if (first === undefined || last === undefined) return undefined;
  const frame = Math.max(1, Math.round(sampleRate * FRAME_SECONDS));
  return refine(samples, { start: first.start, end: last.end }, frame);
}
