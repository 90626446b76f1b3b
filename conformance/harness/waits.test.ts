import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { HOSTILE, urlOf } from './addresses.ts';
import { isPauseResume, terminalStateOf } from './waits.ts';

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
