/** Webhook deliveries end to end, through the routes (registration and listing are in handlers.test.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sinon from 'sinon';
import request from 'supertest';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './dispatcher.ts';
import type { Scheduler } from './scheduler.ts';
import { verify } from './signature.ts';
import { CONTROL_AUTH, webhookTestApp } from '../../testing/webhook-app.ts';
import { closedPort } from '../../testing/webhook-receiver.ts';
import type { AttemptResult, Transport } from './transport.ts';
import { PUBLIC, approve, create, logUntil, withReceiver } from '../../testing/webhook-routes.ts';

// ── Delivery, end to end ──────────────────────────────────────────────────

test('test route: 202; an approved webhook gets one signed webhook.test POST; pending and denied get nothing', () =>
  withReceiver(async (h, r) => {
    const auth = h.bearer(['read']);
    const created = (await create(h, auth, { url: r.url, events: ['job.completed'] })).body as { id: string; hmac_secret: string };

    const pending = await request(h.app).post(`/v1/webhooks/${created.id}/test`).set('Authorization', auth);
    assert.equal(pending.status, 202);
    assert.equal(pending.body.approval_state, 'pending');
    assert.equal(pending.body.delivery_id, null);

    await approve(h, created.id);
    const sent = await request(h.app).post(`/v1/webhooks/${created.id}/test`).set('Authorization', auth);
    assert.equal(sent.status, 202);
    assert.equal(sent.body.event, 'webhook.test');
    const [got] = await r.waitFor(1);
    assert.equal(got!.method, 'POST');
    assert.equal(got!.url, '/hook');
    assert.equal(got!.headers['content-type'], 'application/json');
    assert.match(got!.headers['user-agent'] ?? '', /^MeetingAutomationService-Webhooks\//);
    assert.match(got!.headers['x-service-timestamp'] as string, /^\d+$/);
    assert.ok(Math.abs(Number(got!.headers['x-service-timestamp']) - Date.now() / 1000) < 5);
    assert.match(got!.headers['x-service-signature'] as string, /^sha256=[0-9a-f]{64}$/);
    assert.deepEqual(
      verify({
        secret: created.hmac_secret,
        timestamp: got!.headers['x-service-timestamp'] as string,
        signatureHeader: got!.headers['x-service-signature'] as string,
        rawBody: got!.rawBody,
        now: new Date(),
      }),
      { ok: true },
    );
    const envelope = JSON.parse(got!.rawBody.toString()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(envelope), ['schema_version', 'event_id', 'event', 'occurred_at', 'resource', 'delivery_id']);
    assert.deepEqual(
      { ...envelope, occurred_at: typeof envelope.occurred_at },
      {
        schema_version: 1,
        event_id: sent.body.event_id,
        event: 'webhook.test',
        occurred_at: 'string',
        resource: { kind: 'webhook', id: created.id },
        delivery_id: sent.body.delivery_id,
      },
    );
    const log = await logUntil(h, auth, created.id, (e) => e.length === 1);
    assert.deepEqual(
      { ...log[0], occurred_at: 'x' },
      {
        delivery_id: sent.body.delivery_id,
        event_id: sent.body.event_id,
        event: 'webhook.test',
        attempt: 1,
        delivered: true,
        reason: null,
        status_code: 200,
        detail: 'HTTP 200',
        occurred_at: 'x',
        next_attempt_at: null,
      },
    );

    await approve(h, created.id, 'denied');
    const denied = await request(h.app).post(`/v1/webhooks/${created.id}/test`).set('Authorization', auth);
    assert.equal(denied.status, 202);
    assert.equal(denied.body.approval_state, 'denied');
    const after = await logUntil(h, auth, created.id, (e) => e.length === 2);
    assert.equal(after[0]!.reason, 'denied');
    assert.equal(after[0]!.attempt, null);
    assert.equal(r.received.length, 1);
  }));

test('the test delivery is a single attempt, never retried, even when it fails', () =>
  withReceiver(async (h, r) => {
    r.answer = 500;
    const auth = h.bearer(['read']);
    const id = (await create(h, auth, { url: r.url, events: ['job.completed'] })).body.id as string;
    await approve(h, id);
    await request(h.app).post(`/v1/webhooks/${id}/test`).set('Authorization', auth).expect(202);
    const log = await logUntil(h, auth, id, (e) => e.length === 1);
    assert.deepEqual([log[0]!.attempt, log[0]!.reason, log[0]!.next_attempt_at], [1, 'handler_error', null]);
    assert.equal(h.deps.webhooks.dispatcher.held, 0, 'no retry is waiting');
    assert.equal(r.received.length, 1);
  }));

test('events reach allowed subscribers of any owner; pending ones stay silent; denied ones log denied', () =>
  withReceiver(async (h, r) => {
    const alice = h.bearer(['read']);
    const bob = h.bearer(['read', 'record']);
    const allowed = (await create(h, alice, { url: r.url, events: ['job.completed'], delivery_mode: 'at-most-once' })).body.id as string;
    const recording = (await create(h, bob, { url: r.url, events: ['recording.started'] })).body.id as string;
    const pending = (await create(h, bob, { url: r.url, events: ['job.completed'] })).body.id as string;
    const denied = (await create(h, bob, { url: r.url, events: ['job.completed'] })).body.id as string;
    await approve(h, allowed);
    await approve(h, recording);
    await approve(h, denied, 'denied');

    const event = h.deps.bus.publish('job.completed', { kind: 'job', id: 'job_42' });
    h.deps.bus.publish('recording.started', { kind: 'recording', id: 'rec_1' });
    await r.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(r.received.length, 2, 'only the allowed ones were posted to');
    const bodies = r.received.map((x) => JSON.parse(x.rawBody.toString()) as { event: string; event_id: string; resource: unknown });
    assert.deepEqual(bodies.map((b) => b.event).sort(), ['job.completed', 'recording.started']);
    assert.equal(bodies.find((b) => b.event === 'job.completed')!.event_id, event.event_id);
    for (const x of r.received) assert.doesNotMatch(x.rawBody.toString(), /transcript|summary_text|segments/);

    assert.equal((await logUntil(h, alice, allowed, (e) => e.length === 1))[0]!.delivered, true);
    assert.deepEqual(await logUntil(h, bob, pending, () => true), []);
    const deniedLog = await logUntil(h, bob, denied, (e) => e.length === 1);
    assert.deepEqual([deniedLog[0]!.reason, deniedLog[0]!.event_id, deniedLog[0]!.attempt], ['denied', event.event_id, null]);
  }));

test('reason codes in the log: a 500 receiver handler_error, a 400 receiver third_party_rejected, a closed port delivery_failed', async () => {
  const port = await closedPort();
  await withReceiver(
    async (h, r) => {
      const auth = h.bearer(['read']);
      const hook = async (url: string) => {
        const id = (await create(h, auth, { url, events: ['job.failed'], delivery_mode: 'at-most-once' })).body.id as string;
        await approve(h, id);
        return id;
      };
      const five = await hook(`${r.url}?answer=500`);
      const four = await hook(`${r.url}?answer=400`);
      const closed = await hook(`http://127.0.0.1:${port}/hook`);
      r.answer = (res) => {
        res.statusCode = Number(new URL(res.req.url ?? '/', 'http://x').searchParams.get('answer'));
        res.end();
      };
      h.deps.bus.publish('job.failed', { kind: 'job', id: 'job_1' });
      const expectations: [string, string, number | null][] = [
        [five, 'handler_error', 500],
        [four, 'third_party_rejected', 400],
        [closed, 'delivery_failed', null],
      ];
      for (const [id, reason, statusCode] of expectations) {
        const [entry] = await logUntil(h, auth, id, (e) => e.length === 1);
        assert.deepEqual([entry!.reason, entry!.status_code, entry!.delivered], [reason, statusCode, false], id);
      }
    },
    { allowlist: [`127.0.0.1:${port}`] },
  );
});

test('the delivery log keeps the most recent 100 entries, newest first', () =>
  withReceiver(async (h, r) => {
    const auth = h.bearer(['read']);
    const id = (await create(h, auth, { url: r.url, events: ['job.completed'] })).body.id as string;
    await approve(h, id);
    const eventIds: string[] = [];
    for (let i = 0; i < 101; i++) {
      const res = await request(h.app).post(`/v1/webhooks/${id}/test`).set('Authorization', auth).expect(202);
      eventIds.push(res.body.event_id as string);
      await r.waitFor(i + 1);
    }
    const log = await logUntil(h, auth, id, (e) => e.length === 100 && e[0]!.event_id === eventIds[100]);
    assert.deepEqual(
      log.map((e) => e.event_id),
      eventIds.slice(1).reverse(),
    );
  }));

test('at the HTTP level: 6 attempts on the 1, 2, 4, 8, 16 s schedule, exhausted, /health deliveries_failed + 1', async () => {
  const timers: { fn: () => void; ms: number }[] = [];
  const scheduler: Scheduler = {
    setTimeout: (fn, ms) => timers.push({ fn, ms }),
    clearTimeout: () => undefined,
  };
  const answers: AttemptResult[] = [];
  const transport: Transport = async () => {
    const result: AttemptResult = { kind: 'response', status: 502 };
    answers.push(result);
    return result;
  };
  const h = webhookTestApp({ webhooks: { scheduler, transport } });
  try {
    const auth = h.bearer(['read']);
    const id = (await create(h, auth, { url: PUBLIC, events: ['job.completed'] })).body.id as string;
    await approve(h, id);
    h.deps.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await logUntil(h, auth, id, (e) => e.filter((x) => x.attempt !== null).length === attempt);
      if (attempt < MAX_ATTEMPTS) {
        assert.equal(timers.length, attempt);
        assert.equal(timers[attempt - 1]!.ms, RETRY_DELAYS_MS[attempt - 1]);
        timers[attempt - 1]!.fn();
      }
    }
    const log = await logUntil(h, auth, id, (e) => e[0]?.reason === 'exhausted');
    assert.equal(log.length, 7);
    assert.equal(timers.length, MAX_ATTEMPTS - 1, 'no wait after the last attempt');
    assert.equal(answers.length, MAX_ATTEMPTS);
    const health = await request(h.app).get('/health');
    assert.deepEqual(health.body.webhooks, { events_dropped: 0, deliveries_failed: 1 });
  } finally {
    h.close();
  }
});

test('a full delivery queue drops the event before any attempt: /health events_dropped counts it', async () => {
  const transport: Transport = (req) =>
    new Promise((resolve) => req.signal?.addEventListener('abort', () => resolve({ kind: 'network', detail: 'aborted' })));
  const h = webhookTestApp({ webhooks: { transport, queueLimit: 1 } });
  try {
    const auth = h.bearer(['read']);
    const id = (await create(h, auth, { url: PUBLIC, events: ['job.completed'] })).body.id as string;
    await approve(h, id);
    h.deps.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
    h.deps.bus.publish('job.completed', { kind: 'job', id: 'job_2' });
    h.deps.bus.publish('job.completed', { kind: 'job', id: 'job_3' });
    const health = await request(h.app).get('/health');
    assert.deepEqual(health.body.webhooks, { events_dropped: 2, deliveries_failed: 0 });
  } finally {
    h.close();
  }
});

test('a restart drops undelivered events: the waiting retry never happens', async () => {
  // The dispatcher's retry wait runs on sinon's fake timers, installed on an
  // object of its own (the HTTP parts keep the real ones): "never" is shown by
  // the restart clearing the timer and by running every timer left, not by waiting.
  const timers = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, Date };
  // sinon passes `global` on to fake-timers' withGlobal; @types/sinon does not declare it.
  const config: Parameters<typeof sinon.useFakeTimers>[0] & { global: object } = { global: timers, toFake: ['setTimeout', 'clearTimeout'] };
  const clock = sinon.useFakeTimers(config);
  const scheduler: Scheduler = {
    setTimeout: (fn, ms) => timers.setTimeout(fn, ms),
    clearTimeout: (handle) => timers.clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
  try {
    await withReceiver(
      async (h, r) => {
        r.answer = 503;
        const auth = h.bearer(['read']);
        const id = (await create(h, auth, { url: r.url, events: ['job.completed'] })).body.id as string;
        await approve(h, id);
        const before = h.deps;
        h.deps.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
        await logUntil(h, auth, id, (e) => e.length === 1);
        assert.equal(before.webhooks.dispatcher.held, 1, 'a retry is waiting');
        assert.equal(clock.countTimers(), 1, 'on its timer');
        await request(h.control).post('/control/restart').set('Authorization', CONTROL_AUTH).expect(204);
        assert.equal(before.webhooks.dispatcher.held, 0);
        assert.equal(clock.countTimers(), 0, 'the restart cleared the retry timer');
        clock.runAll();
        assert.equal(r.received.length, 1, 'no attempt after the restart');
        assert.equal(h.deps.webhooks.dispatcher.held, 0, 'and nothing was replayed');
      },
      { webhooks: { scheduler } },
    );
  } finally {
    clock.uninstall();
  }
});
