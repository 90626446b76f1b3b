/**
 * The span planner's groups (planDecodeGroups, decision 094): one plan per
 * recognizer process, cut only at pauses between regions, balanced by the
 * seconds each decodes, and words mapped back and joined with none lost or
 * doubled at a seam. One process: the plan of planDecodeSpans, unchanged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SpeechRegion } from '../../pipeline/types.ts';
import { mapToSourceTime, planDecodeGroups, planDecodeSpans, SPAN_GAP_SECONDS, type DecodePlan, type FileWord } from './spans.ts';

/** Deterministic regions: `count` stretches of speech of 2–20 s with pauses of 0.6–8 s (a seeded LCG). */
function regionsOf(count: number, seed: number, pause: [number, number] = [0.6, 8]): { regions: SpeechRegion[]; duration: number } {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const regions: SpeechRegion[] = [];
  let at = 1;
  for (let i = 0; i < count; i++) {
    const length = 2 + 18 * next();
    regions.push({ start: at, end: at + length });
    at += length + pause[0] + (pause[1] - pause[0]) * next();
  }
  return { regions, duration: at + 1 };
}

/** Where a recording time lands in a plan's file, or null when the plan does not hold it. */
function fileTime(plan: DecodePlan, t: number): number | null {
  const span = plan.spans.find((s) => t >= s.sourceStart && t <= s.sourceEnd);
  return span === undefined ? null : t - span.sourceStart + span.fileStart;
}

describe('decode groups', () => {
  it('one process: exactly the plan of planDecodeSpans (the single-process path is unchanged)', () => {
    for (const seed of [1, 2, 3]) {
      const sparse = regionsOf(30, seed, [3, 30]);
      assert.deepEqual(planDecodeGroups(sparse.regions, sparse.duration, 1), [planDecodeSpans(sparse.regions, sparse.duration)]);
      const dense = regionsOf(30, seed, [0.6, 1]);
      assert.deepEqual(planDecodeGroups(dense.regions, dense.duration, 1), [planDecodeSpans(dense.regions, dense.duration)]);
    }
    assert.deepEqual(planDecodeGroups([], 0, 4), []);
  });

  it('too little audio for two groups of the minimum: one plan', () => {
    const { regions, duration } = regionsOf(3, 7);
    assert.equal(planDecodeGroups(regions, duration, 2, 1000).length, 1);
    assert.equal(planDecodeGroups([{ start: 1, end: 50 }], 60, 2, 1).length, 1, 'one region cannot be cut');
  });

  it('sparse regions: contiguous runs of whole regions, each laid out as usual, balanced by decoded seconds', () => {
    const { regions, duration } = regionsOf(60, 11, [3, 30]);
    const single = planDecodeSpans(regions, duration);
    assert.ok(single.spans.length > 10, 'sparse: regions laid end to end');
    for (const count of [2, 3, 4]) {
      const groups = planDecodeGroups(regions, duration, count, 1, 0);
      assert.equal(groups.length, count);
      // The same spans, in the same order, each in exactly one group.
      assert.deepEqual(
        groups.flatMap((g) => g.spans.map((s) => [s.sourceStart, s.sourceEnd])),
        single.spans.map((s) => [s.sourceStart, s.sourceEnd]),
      );
      for (const g of groups) {
        assert.equal(g.spans[0]!.fileStart, 0, 'each group is a file of its own');
        for (let i = 1; i < g.spans.length; i++) {
          const before = g.spans[i - 1]!;
          const laidAt = before.fileStart + before.sourceEnd - before.sourceStart + SPAN_GAP_SECONDS;
          assert.ok(Math.abs(g.spans[i]!.fileStart - laidAt) < 1e-9, 'the usual gap between regions');
        }
      }
      const longest = Math.max(...single.spans.map((s) => s.sourceEnd - s.sourceStart)) + SPAN_GAP_SECONDS;
      const share = single.fileDuration / count;
      for (const g of groups)
        assert.ok(Math.abs(g.fileDuration - share) <= longest + 1e-9, `${g.fileDuration} against a share of ${share}`);
    }
  });

  it('regions covering the recording: pieces of it from the middle of a pause to the middle of another, tiling it', () => {
    const { regions, duration } = regionsOf(80, 5, [0.6, 1.2]);
    assert.equal(planDecodeSpans(regions, duration).spans.length, 1, 'decoded whole when the regions cover it');
    const groups = planDecodeGroups(regions, duration, 2, 1, 0);
    assert.equal(groups.length, 2);
    assert.equal(groups[0]!.spans[0]!.sourceStart, 0);
    assert.equal(groups[1]!.spans[0]!.sourceEnd, duration);
    const cut = groups[0]!.spans[0]!.sourceEnd;
    assert.equal(groups[1]!.spans[0]!.sourceStart, cut, 'no second is decoded twice or left out');
    assert.ok(!regions.some((r) => cut > r.start && cut < r.end), 'the cut falls in a pause, never in speech');
    const pause = regions.findIndex((r) => r.start > cut);
    assert.ok(Math.abs(cut - (regions[pause - 1]!.end + regions[pause]!.start) / 2) < 1e-9, 'in the middle of the pause');
    assert.ok(Math.abs(groups[0]!.fileDuration - duration / 2) <= 20 + 1.2, 'balanced within a region');
  });

  it('each group but the first starts with the speech before it, as the single file has it, marked as warm-up', () => {
    for (const pause of [
      [3, 30],
      [0.6, 1.2],
    ] as [number, number][]) {
      const { regions, duration } = regionsOf(60, 31, pause);
      const single = planDecodeSpans(regions, duration);
      const cold = planDecodeGroups(regions, duration, 3, 1, 0);
      const warm = planDecodeGroups(regions, duration, 3, 1, 10);
      assert.equal(warm[0]!.warmUpSeconds, undefined, 'the first group starts where the recording does');
      assert.deepEqual(warm[0], cold[0]);
      for (let k = 1; k < 3; k++) {
        const w = warm[k]!;
        const own = cold[k]!;
        assert.ok(w.warmUpSeconds! > 9 && w.warmUpSeconds! <= 10 + 1e-9, `about 10 s of warm-up: ${w.warmUpSeconds}`);
        assert.ok(Math.abs(w.fileDuration - w.warmUpSeconds! - own.fileDuration) < 1e-9, 'then the group itself');
        if (single.spans.length === 1) {
          // The recording decoded whole: the group's piece of it, begun that much earlier.
          assert.deepEqual(w.spans, [
            { sourceStart: own.spans[0]!.sourceStart - w.warmUpSeconds!, sourceEnd: own.spans[0]!.sourceEnd, fileStart: 0 },
          ]);
          continue;
        }
        // The file after the warm-up is the group's own, and the warm-up ends where the previous group does.
        const firstOwn = w.spans.find((s) => s.fileStart >= w.warmUpSeconds! - 1e-9)!;
        assert.equal(firstOwn.sourceStart, own.spans[0]!.sourceStart);
        const warmUpEnd = w.spans.filter((s) => s.fileStart < w.warmUpSeconds! - 1e-9).at(-1)!;
        assert.equal(warmUpEnd.sourceEnd, cold[k - 1]!.spans.at(-1)!.sourceEnd);
        // Laid out as in the single file: the same spans with the same gaps, from some point on.
        const at = single.spans.findIndex((s) => s.sourceEnd === w.spans[0]!.sourceEnd);
        for (let i = 1; i < w.spans.length; i++)
          assert.deepEqual(
            [w.spans[i]!.sourceStart, w.spans[i]!.sourceEnd],
            [single.spans[at + i]!.sourceStart, single.spans[at + i]!.sourceEnd],
          );
      }
    }
  });

  it('words mapped back from every group and joined in order: none lost, none doubled at a seam', () => {
    for (const [pause, seed] of [
      [[3, 30], 21],
      [[0.6, 1.2], 22],
    ] as [[number, number], number][]) {
      const { regions, duration } = regionsOf(40, seed, pause);
      // Words of 0.3 s every 0.5 s inside every region: the truth.
      const truth = regions.flatMap((r, ri) => {
        const words: { text: string; start: number; end: number }[] = [];
        for (let t = r.start + 0.05, i = 0; t + 0.3 <= r.end; t += 0.5, i++) words.push({ text: `r${ri}w${i}`, start: t, end: t + 0.3 });
        return words;
      });
      for (const [count, warmUp] of [
        [1, 10],
        [2, 0],
        [2, 10],
        [3, 7.3],
      ]) {
        const groups = planDecodeGroups(regions, duration, count!, 1, warmUp);
        // What each group's recognizer would hear: the truth's words inside its file, in file times.
        const joined = groups.flatMap((plan) => {
          const heard: FileWord[] = [];
          for (const w of truth) {
            const start = fileTime(plan, w.start);
            const end = fileTime(plan, w.end);
            if (start !== null && end !== null) heard.push({ text: w.text, start, end, confidence: 1 });
          }
          // As the recognizer does: the warm-up's words are the previous group's.
          const own = heard.filter((w) => (w.start + w.end) / 2 >= (plan.warmUpSeconds ?? 0));
          return mapToSourceTime(own, plan, duration);
        });
        assert.deepEqual(
          joined.map((w) => w.text),
          truth.map((w) => w.text),
          `${count} groups, ${warmUp} s of warm-up`,
        );
        joined.forEach((w, i) => {
          assert.ok(Math.abs(w.start - truth[i]!.start) < 0.002 && Math.abs(w.end - truth[i]!.end) < 0.002, `${w.text} keeps its times`);
          if (i > 0) assert.ok(w.start >= joined[i - 1]!.start, 'in order');
        });
      }
    }
  });
});
