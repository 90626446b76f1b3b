import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { HOSTILE, urlOf } from './addresses.ts';
import type { SseResult } from './sse.ts';
import { isPauseResume, jobWaitOutlasted, terminalStateOf } from './waits.ts';

test('terminalStateOf reads the state by value', () => {
  const e = (event: string | undefined, data: string) => ({ event, data, id: undefined, atMs: 0 });
  assert.equal(terminalStateOf(e('job.completed', '{}')), 'succeeded');
  assert.equal(terminalStateOf(e(undefined, '{"state":"failed"}')), 'failed');
  assert.equal(terminalStateOf(e('done', '{"job":{"state":"cancelled"}}')), 'cancelled');
  assert.equal(terminalStateOf(e('message', 'the job was cancelled')), 'cancelled');
  assert.equal(terminalStateOf(e('message', 'failed or cancelled')), null);
  assert.equal(terminalStateOf(e('job.paused', '{"state":"pausing"}')), null);
  assert.equal(isPauseResume(e('job.paused', '{"state":"pausing"}')), true);
});

test('generated hostile URLs keep their category under the WHATWG parser', () => {
  const v4 = (h: string): number[] | null => (/^\d+\.\d+\.\d+\.\d+$/.test(h) ? h.split('.').map(Number) : null);
  const mapped = (h: string): number[] | null => {
    const m = /^\[::ffff:([0-9a-f]+):([0-9a-f]+)\]$/.exec(h);
    if (m === null) return null;
    const a = parseInt(m[1]!, 16);
    const b = parseInt(m[2]!, 16);
    return [a >> 8, a & 255, b >> 8, b & 255];
  };
  for (const category of [...HOSTILE, 'public' as const]) {
    for (const u of fc.sample(urlOf(category), { numRuns: 60, seed: 7 })) {
      const ip = v4(u.canonical) ?? mapped(u.canonical);
      if (ip === null) {
        assert.ok(u.canonical.startsWith('['), `${u.url} → ${u.canonical}`);
        continue;
      }
      const [a, b] = ip as [number, number];
      const got =
        a === 127
          ? 'loopback'
          : a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)
            ? 'private'
            : a === 169 && b === 254
              ? ip.join('.') === '169.254.169.254'
                ? 'metadata'
                : 'link_local'
              : a === 0
                ? 'unspecified'
                : a >= 224 && a <= 239
                  ? 'multicast'
                  : 'public';
      assert.equal(got, category, `${u.url} → ${u.canonical}`);
    }
  }
});

test('jobWaitOutlasted: only a silent wait the reader ended while the job is still unfinished', () => {
  const stream = (events: number, closedByServer: boolean): SseResult =>
    ({
      status: 200,
      mediaType: 'text/event-stream',
      events: Array.from({ length: events }, () => ({ event: 'job.completed', data: '{}', id: undefined, atMs: 1 })),
      comments: [],
      text: '',
      closedByServer,
      end: closedByServer ? 'eof' : 'deadline',
      endedAtMs: 15_000,
      error: undefined,
    }) as unknown as SseResult;
  // The reader's deadline came first while the job is still running or cancelling: a slow target.
  assert.equal(jobWaitOutlasted(stream(0, false), { state: 'running' }), true);
  assert.equal(jobWaitOutlasted(stream(0, false), { state: 'cancelling' }), true);
  // The job ended and the wait said nothing, the server closed it silently, or it sent an event: graded.
  assert.equal(jobWaitOutlasted(stream(0, false), { state: 'cancelled' }), false);
  assert.equal(jobWaitOutlasted(stream(0, true), { state: 'running' }), false);
  assert.equal(jobWaitOutlasted(stream(1, false), { state: 'running' }), false);
  // A state outside the enumerated set is never "still on the way".
  assert.equal(jobWaitOutlasted(stream(0, false), { state: 'completed' }), false);
  assert.equal(jobWaitOutlasted(stream(0, false), {}), false);
});
