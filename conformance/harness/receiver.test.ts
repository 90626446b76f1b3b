import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Receiver, rawBody } from './receiver.ts';
import { signatureHeader, verifySignature } from './signature.ts';

let receiver: Receiver;
before(async () => {
  receiver = await Receiver.start();
});
after(() => receiver.close());

test('records a delivery with its raw body, headers and what it answered', async () => {
  const ep = receiver.endpoint('job hook');
  const body = '{"event":"job.completed","note":"Grüße"}';
  const res = await fetch(ep.url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-service-timestamp': '1700000000' },
  });
  assert.equal(res.status, 204);
  const [d] = await ep.waitFor(1, 1000);
  assert.equal(d!.method, 'POST');
  assert.equal(d!.headers['x-service-timestamp'], '1700000000');
  assert.equal(rawBody(d!).toString('utf8'), body);
  assert.equal(d!.answered, '204');
  assert.match(ep.url, /^http:\/\/127\.0\.0\.1:\d+\/hooks\/\d+-job-hook$/);
  assert.equal(ep.hostPort, `127.0.0.1:${receiver.port}`);
});

test('answers a scripted sequence: 500, 400, then 2xx repeated', async () => {
  const ep = receiver.endpoint('flaky', [{ status: 500 }, { status: 400, body: 'no' }, { status: 202 }]);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await fetch(ep.url, { method: 'POST', body: String(i) })).status);
  assert.deepEqual(statuses, [500, 400, 202, 202]);
  assert.deepEqual(
    ep.deliveries.map((d) => d.answered),
    ['500', '400', '202', '202'],
  );
});

test('only: the deliveries it sets aside get 204, take no reply of the sequence and do not count', async () => {
  const ep = receiver.endpoint('mine', [{ status: 500 }, { status: 204 }]);
  ep.only((d) => d.body.includes('"id":"mine"'));
  const post = async (id: string): Promise<number> => (await fetch(ep.url, { method: 'POST', body: `{"resource":{"id":"${id}"}}` })).status;
  // Another check's event first: it must not take the 500 meant for this one.
  assert.deepEqual([await post('other'), await post('mine'), await post('other'), await post('mine')], [204, 500, 204, 204]);
  assert.deepEqual(
    ep.deliveries.map((d) => d.answered),
    ['500', '204'],
  );
  assert.equal(ep.others.length, 2);
  assert.equal((await ep.waitFor(2, 100)).length, 2);
});

test('a reset closes the connection without an answer', async () => {
  const ep = receiver.endpoint('reset', { action: 'reset' });
  await assert.rejects(fetch(ep.url, { method: 'POST', body: 'x' }));
  assert.equal(ep.deliveries.length, 1);
  assert.equal(ep.deliveries[0]!.answered, 'reset');
});

test('waitFor returns what arrived at its timeout; deliveries to unknown paths are strays', async () => {
  const ep = receiver.endpoint('quiet');
  const t0 = Date.now();
  assert.deepEqual(await ep.waitFor(1, 150), []);
  assert.ok(Date.now() - t0 >= 140);
  await fetch(`${receiver.base}/hooks/999-nobody`, { method: 'POST', body: 'x' });
  assert.equal(receiver.strays.length, 1);
});

test('signatures: the shared test vectors', () => {
  const vectors = JSON.parse(readFileSync(new URL('../../fixtures/webhooks/signature-vectors.json', import.meta.url), 'utf8')) as {
    valid: Array<{ secret: string; timestamp: string; raw_body?: string; raw_body_base64?: string; expected_signature_header: string }>;
  };
  assert.ok(vectors.valid.length > 0);
  for (const v of vectors.valid) {
    const raw = v.raw_body_base64 !== undefined ? Buffer.from(v.raw_body_base64, 'base64') : Buffer.from(v.raw_body ?? '', 'utf8');
    assert.equal(signatureHeader(v.secret, v.timestamp, raw), v.expected_signature_header);
    assert.ok(verifySignature(v.secret, v.timestamp, raw, v.expected_signature_header));
    assert.ok(!verifySignature(v.secret, v.timestamp, Buffer.concat([raw, Buffer.from(' ')]), v.expected_signature_header));
  }
});
