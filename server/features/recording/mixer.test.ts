import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Mixer } from './mixer.ts';

function collect(): { out: number[]; emit: (s: Int16Array) => void } {
  const out: number[] = [];
  return { out, emit: (s) => out.push(...s) };
}

test('one source passes straight through', () => {
  const c = collect();
  const m = new Mixer(1, c.emit);
  m.push(0, Int16Array.from([1, 2, 3]));
  m.push(0, Int16Array.from([4]));
  assert.deepEqual(c.out, [1, 2, 3, 4]);
  assert.equal(m.emitted, 4);
});

test('two sources are summed where both have delivered; the rest waits', () => {
  const c = collect();
  const m = new Mixer(2, c.emit);
  m.push(0, Int16Array.from([1, 2, 3, 4]));
  assert.deepEqual(c.out, []);
  m.push(1, Int16Array.from([10, 20]));
  assert.deepEqual(c.out, [11, 22]);
  m.push(1, Int16Array.from([30, 40, 50]));
  assert.deepEqual(c.out, [11, 22, 33, 44]);
  m.flush();
  assert.deepEqual(c.out, [11, 22, 33, 44, 50]);
});

test('sums clip to 16 bits', () => {
  const c = collect();
  const m = new Mixer(2, c.emit);
  m.push(0, Int16Array.from([30000, -30000]));
  m.push(1, Int16Array.from([30000, -30000]));
  assert.deepEqual(c.out, [32767, -32768]);
});

test('a stalled source is padded with silence once it lags more than maxSkew', () => {
  const c = collect();
  const m = new Mixer(2, c.emit, { maxSkewSamples: 3 });
  m.push(0, Int16Array.from([1, 1, 1, 1, 1]));
  assert.deepEqual(c.out, [1, 1], 'five ahead with a skew of three: two go out');
  m.push(1, Int16Array.from([5, 5]));
  assert.deepEqual(c.out, [1, 1, 6, 6], 'the late samples of source 1 line up with what is still queued');
  m.flush();
  assert.deepEqual(c.out, [1, 1, 6, 6, 1]);
});
