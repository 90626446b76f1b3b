/**
 * The pure parts of the load, wait and soak benchmarks: slopes, slope
 * limits, webhook signature checks, the latency histogram, the one-event SSE
 * parser and the request mix. The runs themselves are in bench/load.check.ts
 * (npm run test:load).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { prng } from './corpus.ts';
import { soakConfig } from './soak-config.ts';
import { signatureOk } from './soak-fixtures.ts';
import { slope, slopeLimits, theilSen } from './soak-stats.ts';
import { histogram, HISTOGRAM_EDGES_MS, MIX_WEIGHTS, mixOp, parseOneEvent } from './traffic.ts';

test('slopes: least squares and Theil–Sen agree on a line; Theil–Sen shrugs off one outlier', () => {
  const line = Array.from({ length: 10 }, (_, i): [number, number] => [i, 3 + 2 * i]);
  assert.equal(slope(line), 2);
  assert.equal(theilSen(line), 2);
  const outlier = line.map(([x, y]): [number, number] => [x, x === 9 ? y + 100 : y]);
  assert.ok(slope(outlier)! > 5);
  assert.equal(theilSen(outlier), 2);
  assert.equal(
    slope([
      [0, 1],
      [1, 2],
    ]),
    null,
    'too few points',
  );
});

test('slope limits: the one-step allowance is spread over the second half, so long soaks get tight limits', () => {
  const short = slopeLimits(soakConfig(2));
  const long = slopeLimits(soakConfig(20));
  assert.equal(short.rss, 10);
  assert.equal(long.rss, 2.8);
  assert.ok(long.heap < short.heap);
});

test('webhook signatures: HMAC-SHA256 over "{timestamp}.{body}", lowercase hex after sha256=', () => {
  const body = Buffer.from('{"event":"job.completed"}');
  const sig = createHmac('sha256', 'sekrit').update(`1700000000.${body.toString()}`).digest('hex');
  assert.ok(signatureOk('sekrit', '1700000000', `sha256=${sig}`, body));
  assert.ok(!signatureOk('other', '1700000000', `sha256=${sig}`, body));
  assert.ok(!signatureOk('sekrit', '1700000001', `sha256=${sig}`, body));
  assert.ok(!signatureOk('sekrit', undefined, `sha256=${sig}`, body));
  assert.ok(!signatureOk('sekrit', '1700000000', sig, body));
});

test('the latency histogram puts each sample in the first bucket whose edge holds it, and counts the rest above', () => {
  const h = histogram([0.05, 0.1, 0.11, 20_000]);
  assert.equal(h.counts.length, HISTOGRAM_EDGES_MS.length + 1);
  assert.equal(h.counts[0], 2);
  assert.equal(h.counts[1], 1);
  assert.equal(h.counts[h.counts.length - 1], 1);
  assert.equal(
    h.counts.reduce((a, b) => a + b, 0),
    4,
  );
});

test('one-event SSE parsing: comments skipped, the event and its JSON data read', () => {
  assert.deepEqual(parseOneEvent(': waiting\n\n: keep-alive\n\nevent: job.completed\ndata: {"id":"j1","state":"succeeded"}\n\n'), {
    event: 'job.completed',
    data: { id: 'j1', state: 'succeeded' },
  });
  assert.deepEqual(parseOneEvent(': waiting\n\n'), { event: null, data: null });
});

test('the request mix: weights add up to 100, every operation appears, renames carry a title', () => {
  assert.equal(
    Object.values(MIX_WEIGHTS).reduce((a, b) => a + b, 0),
    100,
  );
  const rand = prng(1);
  const seen = new Map<string, number>();
  for (let i = 0; i < 5_000; i++) {
    const op = mixOp({ meetingIds: ['m1', 'm2'], token: 't' }, rand);
    seen.set(op.name, (seen.get(op.name) ?? 0) + 1);
    if (op.name === 'rename') assert.deepEqual([op.method, typeof (op.body as { title?: unknown }).title], ['PATCH', 'string']);
  }
  assert.deepEqual([...seen.keys()].sort(), Object.keys(MIX_WEIGHTS).sort());
  const share = (seen.get('rename') ?? 0) / 5_000;
  assert.ok(share > 0.05 && share < 0.11, `rename share ${share}`);
});
