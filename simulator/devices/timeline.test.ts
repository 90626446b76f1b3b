import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PcmReader } from '../../common/audio/pcm-reader.ts';
import { PlayTimeline, pcmBytes, samplesDue } from './timeline.ts';

test('silence until cued, then the script once, then silence', () => {
  const t = new PlayTimeline(Int16Array.from([1, 2, 3]));
  assert.deepEqual([...t.read(0, 4)], [0, 0, 0, 0]);
  t.cue(5);
  assert.deepEqual([...t.read(3, 7)], [0, 0, 1, 2, 3, 0, 0]);
  assert.deepEqual([...t.read(6, 1)], [2]);
  assert.deepEqual(t.progress(4), { cued: true, played_seconds: 0, finished: false });
  assert.equal(t.progress(8).finished, true);
  t.cue(100);
  assert.deepEqual([...t.read(99, 3)], [0, 1, 2], 'a new cue starts the script again from its beginning');
  assert.equal(t.cues, 2);
});

test('a silent device is all zeros, and finishes at once when cued', () => {
  const t = new PlayTimeline(new Int16Array(0));
  t.cue(0);
  assert.deepEqual([...t.read(0, 3)], [0, 0, 0]);
  assert.equal(t.progress(0).finished, true);
});

test('samplesDue: wall time plus lead, minus what was written, never negative', () => {
  assert.equal(samplesDue(0, 0, 1600), 1600);
  assert.equal(samplesDue(1000, 1600, 1600), 16_000);
  assert.equal(samplesDue(10, 99_999, 1600), 0);
});

test('pcm bytes round-trip, with an odd byte carried to the next chunk', () => {
  const bytes = pcmBytes(Int16Array.from([1, -2, 32767, -32768]));
  const r = new PcmReader();
  const a = r.push(bytes.subarray(0, 3));
  const b = r.push(bytes.subarray(3));
  assert.deepEqual([...a, ...b], [1, -2, 32767, -32768]);
});
