import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countRecording, emptyCounts, joinSpeakerSegments, quantiles, summarize } from './conversation-statistics.ts';

describe('conversation statistics', () => {
  it('joins a speaker’s words over silences shorter than 0.3 s, and only that speaker’s', () => {
    const joined = joinSpeakerSegments([
      { speaker: 'A', start: 0, end: 1 },
      { speaker: 'A', start: 1.2, end: 2 },
      { speaker: 'B', start: 1.1, end: 1.5 },
      { speaker: 'A', start: 2.5, end: 3 },
    ]);
    assert.deepEqual(joined, [
      { speaker: 'A', start: 0, end: 2 },
      { speaker: 'B', start: 1.1, end: 1.5 },
      { speaker: 'A', start: 2.5, end: 3 },
    ]);
  });

  it('counts overlap, silence, floor-transfer offsets, pauses and stretches inside another speaker’s', () => {
    const counts = emptyCounts();
    countRecording(
      counts,
      [
        { speaker: 'A', start: 0, end: 4 },
        { speaker: 'B', start: 1, end: 1.5 }, // a backchannel under A: no change of speaker
        { speaker: 'B', start: 3.5, end: 6 }, // B takes over 0.5 s early
        { speaker: 'A', start: 7.5, end: 8 }, // A after a 1.5 s gap
        { speaker: 'A', start: 9, end: 10 }, // A again after a 1 s pause
      ],
      10,
    );
    const s = summarize(counts, 1);
    assert.equal(s.changes, 2);
    assert.deepEqual(counts.changeOffsets, [-0.5, 1.5]);
    assert.deepEqual(counts.samePauses, [1]);
    assert.equal(s.overlappingChanges, 0.5);
    assert.equal(s.gapsOverOneSecond, 0.5);
    assert.equal(s.insideShare, 1 / 5);
    // Speech 0–6, 7.5–8, 9–10: 7.5 s of 10; two talkers 1–1.5 and 3.5–4: 1 s.
    assert.ok(Math.abs(s.silenceShare - 0.25) < 1e-9);
    assert.ok(Math.abs(s.overlapShare - 1 / 7.5) < 1e-9);
  });

  it('takes quantiles at the nearest rank below', () => {
    assert.deepEqual(quantiles([5, 1, 4, 2, 3], [0, 0.5, 0.99, 1]), [1, 3, 4, 5]);
  });
});
