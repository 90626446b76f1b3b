/**
 * pocketsphinx's span planner (planContinuousSpans, decision 120): the
 * recording with its pauses, only long stretches without speech shortened,
 * the spans joined with nothing between them. Its groups (planDecodeGroups,
 * decisions 094 and 104): each recognizer process decodes a stretch of the
 * single plan's file begun on a frame boundary, cut only in the middle of
 * pauses, balanced by the seconds each owns, and words mapped back and
 * joined with none lost or doubled at a seam. One process: the whole file
 * of planContinuousSpans.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { PcmAudio, SpeechRegion } from '../../pipeline/types.ts';
import {
  LONG_PAUSE_SECONDS,
  mapToSourceTime,
  PAUSE_KEPT_SECONDS,
  planContinuousSpans,
  planDecodeGroups,
  planDecodeSpans,
  writeSpansAsWav,
  type DecodeGroup,
  type DecodePlan,
  type FileWord,
  type SpanLayout,
} from './spans.ts';

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

const RATE = 16_000;
const FRAME = 160;

/** Where each region of a plan lies in its file, in samples. */
function regionSamples(plan: DecodePlan, regions: readonly SpeechRegion[]): [number, number][] {
  return regions.map((r) => [fileTime(plan, r.start)! * RATE, fileTime(plan, r.end)! * RATE]);
}

const middle = (w: { start: number; end: number }) => (w.start + w.end) / 2;

describe("pocketsphinx's plan: the recording with its pauses", () => {
  it('pauses up to LONG_PAUSE_SECONDS: one span, the whole recording, whatever the speech share', () => {
    for (const pause of [
      [0.6, 1],
      [2, LONG_PAUSE_SECONDS],
    ] as [number, number][]) {
      const { regions, duration } = regionsOf(30, 4, pause);
      const share = regions.reduce((sum, r) => sum + r.end - r.start, 0) / duration;
      assert.deepEqual(planContinuousSpans(regions, duration), {
        spans: [{ sourceStart: 0, sourceEnd: duration, fileStart: 0 }],
        fileDuration: duration,
        gapSeconds: 0,
      });
      if (pause[0] === 2) assert.ok(share < 0.9, `a speech share the regions layout decoded apart: ${share}`);
    }
    assert.deepEqual(planContinuousSpans([], 30).spans, [{ sourceStart: 0, sourceEnd: 30, fileStart: 0 }], 'no speech found: all of it');
    assert.deepEqual(planContinuousSpans([{ start: 1, end: 2 }], 0).spans, []);
  });

  it('a longer stretch without speech keeps PAUSE_KEPT_SECONDS of its own audio beside the speech; the spans join', () => {
    const regions = [
      { start: 20, end: 30 },
      { start: 32, end: 40 },
      { start: 60, end: 70 },
      { start: 75, end: 80 },
    ];
    const plan = planContinuousSpans(regions, 100);
    const k = PAUSE_KEPT_SECONDS;
    assert.deepEqual(
      plan.spans.map((s) => [s.sourceStart, s.sourceEnd]),
      [
        [20 - k, 40 + k],
        [60 - k, 80 + k],
      ],
      'the long lead-in, the 20 s pause and the long tail shortened; the 2 s and 5 s pauses kept whole',
    );
    assert.equal(plan.gapSeconds, 0);
    let at = 0;
    for (const s of plan.spans) {
      assert.equal(s.fileStart, at, 'each span begins where the one before ends');
      at += s.sourceEnd - s.sourceStart;
    }
    assert.equal(plan.fileDuration, at);
    assert.deepEqual(
      planContinuousSpans([{ start: 3, end: 95 }], 100).spans,
      [{ sourceStart: 0, sourceEnd: 100, fileStart: 0 }],
      'a short lead-in and tail stay',
    );
  });

  it("its file is the recording's own samples, span after span, with no dither between them", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-spans-'));
    try {
      const { regions, duration } = regionsOf(8, 9, [0.6, 20]);
      const samples = new Float32Array(Math.round(duration * RATE));
      for (let i = 0; i < samples.length; i++) samples[i] = Math.round(Math.sin(i * 0.01) * 16000) / 32767;
      const plan = planContinuousSpans(regions, duration);
      assert.ok(plan.spans.length > 1, 'long pauses shortened');
      await writeSpansAsWav({ sampleRate: RATE, samples, durationSeconds: duration }, plan, join(dir, 'file.wav'));
      const file = readFileSync(join(dir, 'file.wav')).subarray(44);
      const expected = plan.spans.flatMap((s) =>
        Array.from(samples.subarray(Math.round(s.sourceStart * RATE), Math.round(s.sourceEnd * RATE)), (v) => Math.round(v * 32767)),
      );
      assert.equal(file.length, expected.length * 2);
      expected.forEach((v, i) => {
        if (file.readInt16LE(i * 2) !== v) assert.fail(`sample ${i}: ${file.readInt16LE(i * 2)} for ${v}`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('words map back to the recording across a shortened pause', () => {
    const regions = [
      { start: 2, end: 5 },
      { start: 30, end: 33 },
    ];
    const plan = planContinuousSpans(regions, 40);
    const second = plan.spans[1]!;
    const words = mapToSourceTime(
      [
        { text: 'before', start: 3, end: 3.4, confidence: 1 },
        {
          text: 'after',
          start: second.fileStart + 31 - second.sourceStart,
          end: second.fileStart + 31.5 - second.sourceStart,
          confidence: 1,
        },
      ],
      plan,
      40,
    );
    assert.deepEqual(
      words.map((w) => [w.text, w.start, w.end]),
      [
        ['before', 3, 3.4],
        ['after', 31, 31.5],
      ],
    );
  });
});

describe('decode groups', () => {
  it('one process: one group, the whole file of planContinuousSpans (regions laid end to end on request)', () => {
    for (const seed of [1, 2, 3]) {
      for (const pause of [
        [3, 30],
        [0.6, 1],
      ] as [number, number][]) {
        const { regions, duration } = regionsOf(30, seed, pause);
        const { plan, groups } = planDecodeGroups(regions, duration, 1);
        assert.deepEqual(plan, planContinuousSpans(regions, duration));
        assert.deepEqual(planDecodeGroups(regions, duration, 1, undefined, undefined, 'regions').plan, planDecodeSpans(regions, duration));
        assert.equal(groups.length, 1);
        assert.equal(groups[0]!.fromSample, 0);
        assert.ok(Math.abs(groups[0]!.toSample / RATE - plan.fileDuration) < 0.01, 'to the end of the file');
        assert.deepEqual([groups[0]!.keepFrom, groups[0]!.keepTo], [-Infinity, Infinity]);
      }
    }
    assert.deepEqual(planDecodeGroups([], 0, 4).groups, []);
  });

  it('too little audio for two groups of the minimum: one group', () => {
    const { regions, duration } = regionsOf(3, 7);
    assert.equal(planDecodeGroups(regions, duration, 2, 1000).groups.length, 1);
    assert.equal(planDecodeGroups([{ start: 1, end: 50 }], 60, 2, 1).groups.length, 1, 'one region cannot be cut');
  });

  it('groups own the file from the middle of one pause to the middle of another, in order, balanced within a region', () => {
    for (const [pause, seed] of [
      [[3, 30], 11],
      [[0.6, 1.2], 5],
    ] as [[number, number], number][]) {
      const { regions, duration } = regionsOf(60, seed, pause);
      for (const count of [2, 3, 4]) {
        const { plan, groups } = planDecodeGroups(regions, duration, count, 1, 0);
        assert.equal(groups.length, count);
        const laid = regionSamples(plan, regions);
        assert.equal(groups[0]!.keepFrom, -Infinity);
        assert.equal(groups.at(-1)!.keepTo, Infinity);
        for (let k = 1; k < count; k++) {
          const cut = groups[k]!.keepFrom;
          assert.equal(groups[k - 1]!.keepTo, cut, 'each second of the file is owned by one group');
          const after = laid.findIndex(([a]) => a / RATE > cut);
          assert.ok(after > 0, 'a cut lies between two regions');
          assert.ok(Math.abs(cut - (laid[after - 1]![1] + laid[after]![0]) / 2 / RATE) < 0.01, 'in the middle of the pause');
          // With no warm-up, a group starts on the frame boundary at or before its cut, and the one before ends at the cut.
          assert.equal(groups[k]!.fromSample, Math.floor(Math.round(cut * RATE) / FRAME) * FRAME);
          assert.equal(groups[k - 1]!.toSample, Math.round(cut * RATE));
        }
        const longest = Math.max(...laid.map(([a, b]) => b - a)) / RATE + 1.2;
        const owned = groups.map((g) => Math.min(g.keepTo, plan.fileDuration) - Math.max(g.keepFrom, 0));
        for (const o of owned)
          assert.ok(Math.abs(o - plan.fileDuration / count) <= longest, `${o} against a share of ${plan.fileDuration / count}`);
      }
    }
  });

  it('each group but the first starts on a frame boundary about warmUpSeconds before its cut', () => {
    for (const pause of [
      [3, 30],
      [0.6, 1.2],
    ] as [number, number][]) {
      const { regions, duration } = regionsOf(60, 31, pause);
      const cold = planDecodeGroups(regions, duration, 3, 1, 0).groups;
      const warm = planDecodeGroups(regions, duration, 3, 1, 10).groups;
      assert.deepEqual(warm[0], cold[0], 'the first group starts where the file does');
      for (let k = 1; k < 3; k++) {
        assert.equal(warm[k]!.fromSample % FRAME, 0);
        const warmUp = (cold[k]!.fromSample - warm[k]!.fromSample) / RATE;
        assert.ok(warmUp > 10 - 0.02 && warmUp <= 10 + 0.02, `about 10 s of warm-up: ${warmUp}`);
        assert.deepEqual([warm[k]!.toSample, warm[k]!.keepFrom, warm[k]!.keepTo], [cold[k]!.toSample, cold[k]!.keepFrom, cold[k]!.keepTo]);
      }
    }
  });

  it("a group's file is the very samples of the whole file at its place", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-spans-'));
    try {
      const { regions, duration } = regionsOf(12, 3, [0.6, 14]);
      const samples = new Float32Array(Math.round(duration * RATE));
      for (let i = 0; i < samples.length; i++) samples[i] = Math.sin(i * 0.01) * 0.5;
      const audio: PcmAudio = { sampleRate: RATE, samples, durationSeconds: duration };
      const { plan, groups } = planDecodeGroups(regions, duration, 3, 1, 7.3);
      assert.ok(plan.spans.length > 1, 'long pauses shortened, the spans joined');
      await writeSpansAsWav(audio, plan, join(dir, 'whole.wav'));
      const whole = readFileSync(join(dir, 'whole.wav'));
      for (const [k, g] of groups.entries()) {
        await writeSpansAsWav(audio, plan, join(dir, `group-${k}.wav`), g);
        const part = readFileSync(join(dir, `group-${k}.wav`));
        assert.equal(part.readUInt32LE(40), (g.toSample - g.fromSample) * 2, 'its header says its length');
        assert.ok(part.subarray(44).equals(whole.subarray(44 + g.fromSample * 2, 44 + g.toSample * 2)), `group ${k}: the same bytes`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
      for (const [count, warmUp, layout] of [
        [1, 10, 'recording'],
        [2, 0, 'recording'],
        [2, 10, 'recording'],
        [3, 7.3, 'recording'],
        [3, 7.3, 'regions'],
      ] as [number, number, SpanLayout][]) {
        const { plan, groups } = planDecodeGroups(regions, duration, count, 1, warmUp, layout);
        // What each group's recognizer hears: the truth's words inside its stretch of the file, in its own file's times.
        const hear = (g: DecodeGroup): FileWord[] =>
          truth.flatMap((w) => {
            const start = fileTime(plan, w.start);
            const end = fileTime(plan, w.end);
            const from = g.fromSample / RATE;
            if (start === null || end === null || start < from || end > g.toSample / RATE) return [];
            return [{ text: w.text, start: start - from, end: end - from, confidence: 1 }];
          });
        // As the recognizer does: back to the whole file's times, each group's own words, then to the recording.
        const kept = groups.flatMap((g) =>
          hear(g)
            .map((w) => ({ ...w, start: w.start + g.fromSample / RATE, end: w.end + g.fromSample / RATE }))
            .filter((w) => middle(w) >= g.keepFrom && middle(w) < g.keepTo),
        );
        const joined = mapToSourceTime(kept, plan, duration);
        assert.deepEqual(
          joined.map((w) => w.text),
          truth.map((w) => w.text),
          `${count} groups, ${warmUp} s of warm-up, ${layout}`,
        );
        joined.forEach((w, i) => {
          assert.ok(Math.abs(w.start - truth[i]!.start) < 0.002 && Math.abs(w.end - truth[i]!.end) < 0.002, `${w.text} keeps its times`);
          if (i > 0) assert.ok(w.start >= joined[i - 1]!.start, 'in order');
        });
      }
    }
  });
});
