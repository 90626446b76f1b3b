/**
 * The typed client against the real reference gateway: typed calls, errors
 * as the envelope with the sub-code, an import uploaded from a file and from
 * a stream with progress, an aborted upload, a wait stream to its event and
 * to its timeout, and a real signed webhook delivery verified on receipt.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { MasClient, TransportError, type UploadProgress } from './client.ts';
import { verifyWebhookDelivery, type WebhookDelivery } from './webhook.ts';
import { healthy, startStage, type Stage } from './test-support.ts';

let stage: Stage;
let mas: MasClient;

before(async () => {
  stage = await startStage();
  mas = new MasClient({
    baseUrl: stage.ref.baseUrl,
    token: await stage.token(['read', 'write', 'record', 'delete'], { kind: 'first_party' }),
  });
});

after(async () => {
  await stage?.stop();
});

test('typed calls: data on 2xx, the error envelope with its code otherwise', async () => {
  const who = await mas.call('getWhoami');
  assert.ok(who.ok);
  assert.deepEqual(who.data.scopes, ['read', 'record', 'write', 'delete']);

  const missing = await mas.call('getJob', { path: { id: 'job_nope' } });
  assert.equal(missing.ok, false);
  if (!missing.ok) {
    assert.equal(missing.status, 404);
    assert.equal(missing.error.code, 'not_found');
    assert.match(missing.error.message, /job_nope/);
  }

  const anonymous = new MasClient({ baseUrl: stage.ref.baseUrl });
  const denied = await anonymous.call('listMeetings');
  assert.ok(!denied.ok && denied.status === 401 && denied.error.code === 'unauthorized');
  const health = await anonymous.call('getHealth');
  assert.ok(health.ok && health.data.status === 'ok');
});

test('a sub-code comes back in error.code: pausing an import is conflict/import_not_pausable', async () => {
  const job = await stage.control('POST', '/control/jobs', { kind: 'import', state: 'running', hold: true });
  const id = (job.json as { id: string }).id;
  const paused = await mas.call('pauseJob', { path: { id } });
  assert.ok(!paused.ok);
  if (!paused.ok) {
    assert.equal(paused.status, 409);
    assert.equal(paused.error.code, 'import_not_pausable');
  }
  // The wait stream's timeout event, not an HTTP error.
  const timedOut = await mas.wait('waitJob', { path: { id }, query: { timeout: 0 } });
  assert.ok(timedOut.ok);
  if (timedOut.ok) assert.deepEqual(timedOut.data, { event: 'timeout', data: { job_id: id, timeout_seconds: 0 } });
  assert.equal((await stage.control('POST', `/control/jobs/${id}/finish`, { outcome: 'succeeded' })).status, 200);
});

test('an import from a file reports progress up to its size, and the wait stream resolves with job.completed', async () => {
  const seen: UploadProgress[] = [];
  const started = await mas.importAudio(stage.audio, { title: 'Tiny check-in', onProgress: (p) => seen.push(p) });
  assert.ok(started.ok, JSON.stringify(started));
  const total = seen[0]!.total!;
  assert.ok(total > 0);
  assert.deepEqual(seen.at(-1), { sent: total, total });
  for (let i = 1; i < seen.length; i += 1) assert.ok(seen[i]!.sent >= seen[i - 1]!.sent, 'progress never goes back');

  const ended = await mas.wait('waitJob', { path: { id: started.data.job_id }, query: { timeout: 3600 } });
  assert.ok(ended.ok);
  if (ended.data.event === 'timeout') assert.fail('the job did not end within the wait');
  else {
    assert.equal(ended.data.event, 'job.completed');
    assert.equal(ended.data.data.state, 'succeeded');
    const meeting = await mas.call('getMeeting', { path: { id: ended.data.data.meeting_id! } });
    assert.ok(meeting.ok && meeting.data.title === 'Tiny check-in');
  }
});

test('an import from a stream names its format by filename; aborting an upload rejects and imports nothing', async () => {
  const fromStream = await mas.importAudio(createReadStream(stage.audio), { filename: 'call.mp3' });
  assert.ok(fromStream.ok);

  const before = await mas.call('listJobs');
  assert.ok(before.ok);
  const body = new PassThrough();
  const abort = new AbortController();
  const upload = mas.importAudio(body, {
    filename: 'endless.wav',
    signal: abort.signal,
    onProgress: (p) => {
      if (p.sent > 0) abort.abort();
    },
  });
  body.write(Buffer.alloc(64 * 1024)); // the stream never ends: only the abort can finish this upload
  await assert.rejects(upload, (err: Error) => err.name === 'AbortError');
  const afterwards = await mas.call('listJobs');
  assert.ok(afterwards.ok);
  assert.deepEqual(
    afterwards.data.jobs.map((j) => j.id),
    before.data.jobs.map((j) => j.id),
    'no job was created by the aborted upload',
  );
});

test('nothing listening is a TransportError, not an API result', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  await assert.rejects(new MasClient({ baseUrl: `http://127.0.0.1:${port}` }).call('getHealth'), TransportError);
});

test('a real webhook delivery verifies with its secret; a changed body or secret does not', async () => {
  const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  let arrived: () => void = () => undefined;
  const delivery = new Promise<void>((r) => (arrived = r));
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = 204;
      res.end();
      arrived();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const port = (receiver.address() as AddressInfo).port;
    // The local-targets allowlist is read at startup: set it, then restart.
    await stage.control('PATCH', '/control/settings', { webhooks_enabled: true, local_webhook_targets: [`127.0.0.1:${port}`] });
    await stage.control('POST', '/control/restart');
    await healthy(stage.ref.baseUrl);

    const created = await mas.call('createWebhook', { body: { url: `http://127.0.0.1:${port}/hook`, events: ['job.completed'] } });
    assert.ok(created.ok, JSON.stringify(created));
    const { id, hmac_secret: secret } = created.data;
    assert.equal((await stage.control('POST', `/control/webhooks/${id}/approval`, { state: 'allowed' })).status, 200);
    const sent = await mas.call('testWebhook', { path: { id } });
    assert.ok(sent.ok && sent.status === 202);
    await delivery;

    const { headers, body } = received[0]!;
    assert.deepEqual(verifyWebhookDelivery({ secret, headers, rawBody: body }), { ok: true });
    const event = JSON.parse(body.toString('utf8')) as WebhookDelivery<'webhook.test'>;
    assert.equal(event.event, 'webhook.test');
    assert.equal(event.resource.id, id);

    const tampered = Buffer.from(body.toString('utf8').replace('webhook.test', 'webhook.tesT'));
    assert.deepEqual(verifyWebhookDelivery({ secret, headers, rawBody: tampered }), { ok: false, reason: 'signature_mismatch' });
    assert.deepEqual(verifyWebhookDelivery({ secret: `${secret}x`, headers, rawBody: body }), { ok: false, reason: 'signature_mismatch' });
    const late = Number(headers['x-service-timestamp']) + 301;
    assert.deepEqual(verifyWebhookDelivery({ secret, headers, rawBody: body, now: late }), {
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    const fetchStyle = new Headers({
      'X-Service-Signature': String(headers['x-service-signature']),
      'X-Service-Timestamp': String(headers['x-service-timestamp']),
    });
    assert.deepEqual(verifyWebhookDelivery({ secret, headers: fetchStyle, rawBody: body }), { ok: true });
  } finally {
    await new Promise<void>((r) => receiver.close(() => r()));
  }
});
