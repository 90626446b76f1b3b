/**
 * Delivery from the bus to the wire, through WebhooksService with an
 * in-memory store. The retry schedule runs on sinon's fake timers with a fake
 * transport (exact 1, 2, 4, 8, 16 s waits); one test runs in real time
 * against a real receiver for the first two waits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sinon from 'sinon';
import { systemClock } from '../../adapters/clock.ts';
import { WebhooksService } from './service.ts';
import { EventBus } from '../../kernel/events.ts';
import { HealthCounters } from '../../kernel/health-counters.ts';
import { openDatabase } from '../../kernel/store/database.ts';
import { RESET_SETTINGS, SettingsRepo } from '../../kernel/store/settings-repo.ts';
import { TokensRepo, type TokenRecord } from '../../kernel/store/tokens-repo.ts';
import type { DeliveryLogEntry, DeliveryMode } from './repo.ts';
import type { Resolver } from './destination.ts';
import { judge, MAX_ATTEMPTS, RETRY_DELAYS_MS } from './dispatcher.ts';
import { verify } from './signature.ts';
import { startReceiver } from '../../testing/webhook-receiver.ts';
import type { AttemptRequest, AttemptResult, Transport } from './transport.ts';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const PUBLIC_URL = 'https://hooks.example/receive';
const publicResolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];

interface Sent {
  at: number;
  request: AttemptRequest;
}

/** A transport that records each attempt and answers from a script (the last answer repeats). */
function fakeTransport(script: (AttemptResult | 'hang')[]): Transport & { sent: Sent[] } {
  const sent: Sent[] = [];
  const fn = (async (request: AttemptRequest) => {
    sent.push({ at: Date.now(), request });
    const answer = script[Math.min(sent.length - 1, script.length - 1)] ?? { kind: 'response', status: 200 };
    if (answer === 'hang') {
      return new Promise<AttemptResult>((resolve) =>
        request.signal?.addEventListener('abort', () => resolve({ kind: 'network', detail: 'aborted' })),
      );
    }
    return answer;
  }) as Transport & { sent: Sent[] };
  fn.sent = sent;
  return fn;
}

const status = (s: number): AttemptResult => ({ kind: 'response', status: s });

function harness(opts: { transport: Transport; resolver?: Resolver; queueLimit?: number; allowlist?: string[]; concurrency?: number }) {
  const db = openDatabase(':memory:');
  const settings = new SettingsRepo(db);
  settings.update(RESET_SETTINGS);
  const tokens = new TokensRepo(db);
  const bus = new EventBus(systemClock);
  const counters = new HealthCounters();
  const service = new WebhooksService({
    db,
    bus,
    clock: systemClock,
    counters,
    settings,
    allowlist: opts.allowlist ?? [],
    resolver: opts.resolver ?? publicResolver,
    transport: opts.transport,
    ...(opts.queueLimit !== undefined ? { queueLimit: opts.queueLimit } : {}),
    ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
  });
  service.start();
  const owner: TokenRecord = tokens.create({ name: 'owner', scopes: ['read', 'record'] }, new Date()).record;
  return {
    db,
    settings,
    tokens,
    bus,
    counters,
    service,
    owner,
    async hook(o: { url?: string; events?: string[]; mode?: DeliveryMode; approve?: 'allowed' | 'denied' | null } = {}) {
      const record = await service.register(owner, {
        url: o.url ?? PUBLIC_URL,
        events: o.events ?? ['job.completed'],
        delivery_mode: o.mode,
      });
      if (o.approve !== null) service.setApproval(record.id, o.approve ?? 'allowed');
      return record;
    },
    log(id: string): DeliveryLogEntry[] {
      return service.repo.deliveries(id);
    },
    close() {
      service.stop();
      db.close();
    },
  };
}

async function withFakeTime(run: (clock: sinon.SinonFakeTimers) => Promise<void>): Promise<void> {
  const clock = sinon.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  try {
    await run(clock);
  } finally {
    clock.restore();
  }
}

test('at-least-once: 6 attempts, waits of exactly 1, 2, 4, 8, 16 s, then exhausted, counted once', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([status(500)]);
    const h = harness({ transport });
    try {
      const hook = await h.hook();
      const event = h.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
      await clock.tickAsync(0);
      assert.equal(transport.sent.length, 1);

      // Just before each wait ends nothing happens; at its end the next attempt goes.
      for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
        await clock.tickAsync(delay - 1);
        assert.equal(transport.sent.length, i + 1, `no attempt ${i + 2} before ${delay} ms`);
        await clock.tickAsync(1);
        assert.equal(transport.sent.length, i + 2, `attempt ${i + 2} after ${delay} ms`);
      }
      await clock.tickAsync(120_000);
      assert.equal(transport.sent.length, MAX_ATTEMPTS);
      assert.deepEqual(
        transport.sent.map((s) => s.at - T0),
        [0, 1000, 3000, 7000, 15000, 31000],
      );

      // One body (same event_id and delivery_id); a fresh timestamp and a valid signature each time.
      const bodies = new Set(transport.sent.map((s) => s.request.body));
      assert.equal(bodies.size, 1);
      const envelope = JSON.parse([...bodies][0]!) as Record<string, unknown>;
      assert.equal(envelope.event_id, event.event_id);
      const timestamps = transport.sent.map((s) => s.request.headers['X-Service-Timestamp']);
      assert.equal(new Set(timestamps).size, MAX_ATTEMPTS);
      for (const s of transport.sent) {
        const ts = s.request.headers['X-Service-Timestamp'];
        assert.equal(ts, String(Math.floor(s.at / 1000)));
        assert.deepEqual(
          verify({
            secret: hook.secret,
            timestamp: ts,
            signatureHeader: s.request.headers['X-Service-Signature'],
            rawBody: s.request.body,
            now: s.at / 1000,
          }),
          { ok: true },
        );
      }

      const log = h.log(hook.id);
      assert.deepEqual(
        log.map((e) => [e.attempt, e.reason, e.status_code]),
        [
          [null, 'exhausted', null],
          [6, 'handler_error', 500],
          [5, 'handler_error', 500],
          [4, 'handler_error', 500],
          [3, 'handler_error', 500],
          [2, 'handler_error', 500],
          [1, 'handler_error', 500],
        ],
      );
      assert.ok(log.every((e) => e.delivery_id === envelope.delivery_id && e.event_id === event.event_id && !e.delivered));
      // next_attempt_at says when the following attempt is due; the last attempt has none.
      const attempts = log.filter((e) => e.attempt !== null).reverse();
      for (const [i, e] of attempts.entries()) {
        const due = RETRY_DELAYS_MS[i];
        assert.equal(e.next_attempt_at, due === undefined ? null : new Date(transport.sent[i]!.at + due).toISOString());
        assert.equal(e.occurred_at, new Date(transport.sent[i]!.at).toISOString());
      }
      assert.equal(h.counters.deliveriesFailed, 1);
      assert.equal(h.counters.eventsDropped, 0);
      assert.equal(h.service.dispatcher.held, 0);
    } finally {
      h.close();
    }
  }));

test('a 2xx ends the delivery: no more attempts, no exhausted, nothing counted', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([
      status(503),
      { kind: 'network', detail: 'connection refused (ECONNREFUSED)' },
      status(202),
      status(500),
    ]);
    const h = harness({ transport });
    try {
      const hook = await h.hook();
      h.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
      await clock.tickAsync(60_000);
      assert.equal(transport.sent.length, 3);
      assert.deepEqual(
        h.log(hook.id).map((e) => [e.attempt, e.delivered, e.reason, e.status_code]),
        [
          [3, true, null, 202],
          [2, false, 'delivery_failed', null],
          [1, false, 'handler_error', 503],
        ],
      );
      assert.equal(h.counters.deliveriesFailed, 0);
    } finally {
      h.close();
    }
  }));

test('at-most-once: one attempt even when it fails; no exhausted entry, nothing counted', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([status(500)]);
    const h = harness({ transport });
    try {
      const hook = await h.hook({ mode: 'at-most-once' });
      h.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
      await clock.tickAsync(120_000);
      assert.equal(transport.sent.length, 1);
      assert.deepEqual(
        h.log(hook.id).map((e) => [e.attempt, e.reason, e.next_attempt_at]),
        [[1, 'handler_error', null]],
      );
      assert.equal(h.counters.deliveriesFailed, 0);
    } finally {
      h.close();
    }
  }));

test('reason codes: 2xx delivered, 5xx handler_error, 3xx/4xx/1xx third_party_rejected, no answer delivery_failed', () => {
  assert.equal(judge(status(200)).reason, null);
  assert.equal(judge(status(299)).reason, null);
  assert.equal(judge(status(500)).reason, 'handler_error');
  assert.equal(judge(status(599)).reason, 'handler_error');
  for (const s of [101, 301, 302, 304, 307, 400, 401, 404, 410, 429, 499, 600])
    assert.equal(judge(status(s)).reason, 'third_party_rejected', String(s));
  assert.match(judge(status(302)).detail, /redirects are not followed/);
  assert.deepEqual(judge({ kind: 'network', detail: 'connection reset (ECONNRESET)' }), {
    reason: 'delivery_failed',
    status: null,
    detail: 'connection reset (ECONNRESET)',
  });
});

test('pending webhooks get nothing and log nothing; denied ones log denied and get no attempt', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([status(200)]);
    const h = harness({ transport });
    try {
      const pending = await h.hook({ approve: null });
      const denied = await h.hook({ approve: 'denied' });
      const event = h.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
      await clock.tickAsync(60_000);
      assert.equal(transport.sent.length, 0);
      assert.deepEqual(h.log(pending.id), []);
      const [entry, ...rest] = h.log(denied.id);
      assert.deepEqual(rest, []);
      assert.equal(entry!.reason, 'denied');
      assert.equal(entry!.attempt, null);
      assert.equal(entry!.event_id, event.event_id);
      assert.equal(entry!.delivered, false);
      assert.equal(h.counters.deliveriesFailed, 0);
      assert.equal(h.counters.eventsDropped, 0);
    } finally {
      h.close();
    }
  }));

test('denied between retries: the next attempt is not made, denied is logged; deleted: silently dropped', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([status(500)]);
    const h = harness({ transport });
    try {
      const a = await h.hook();
      const b = await h.hook();
      h.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
      await clock.tickAsync(0);
      assert.equal(transport.sent.length, 2);
      h.service.setApproval(a.id, 'denied');
      h.service.repo.delete(b.id);
      await clock.tickAsync(60_000);
      assert.equal(transport.sent.length, 2);
      assert.deepEqual(
        h.log(a.id).map((e) => [e.attempt, e.reason]),
        [
          [null, 'denied'],
          [1, 'handler_error'],
        ],
      );
      assert.equal(h.counters.deliveriesFailed, 0);
      assert.equal(h.service.dispatcher.held, 0);
    } finally {
      h.close();
    }
  }));

test('only subscribed events, only while webhooks are switched on, only for owners still switched on', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([status(200)]);
    const h = harness({ transport });
    try {
      await h.hook({ events: ['job.failed', 'recording.started'] });
      h.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
      h.bus.publish('webhook.test', { kind: 'webhook', id: 'x' });
      await clock.tickAsync(10);
      assert.equal(transport.sent.length, 0);

      h.bus.publish('recording.started', { kind: 'recording', id: 'rec_1' });
      await clock.tickAsync(10);
      assert.equal(transport.sent.length, 1);

      h.settings.update({ webhooks_enabled: false });
      h.bus.publish('job.failed', { kind: 'job', id: 'job_2' });
      await clock.tickAsync(10);
      assert.equal(transport.sent.length, 1);

      h.settings.update({ webhooks_enabled: true });
      h.tokens.setEnabled(h.owner.id, false);
      h.bus.publish('job.failed', { kind: 'job', id: 'job_3' });
      await clock.tickAsync(10);
      assert.equal(transport.sent.length, 1);
      assert.equal(h.counters.eventsDropped, 0);
    } finally {
      h.close();
    }
  }));

test('the envelope is the bus event plus a delivery_id per webhook, and carries no content', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([status(200)]);
    const h = harness({ transport });
    try {
      await h.hook({ events: ['summary.completed'] });
      await h.hook({ events: ['summary.completed'] });
      const event = h.bus.publish('summary.completed', { kind: 'meeting', id: 'mtg_1' }, { operation_id: 'op_1' });
      await clock.tickAsync(0);
      assert.equal(transport.sent.length, 2);
      const envelopes = transport.sent.map((s) => JSON.parse(s.request.body) as Record<string, unknown>);
      for (const e of envelopes) {
        assert.deepEqual(Object.keys(e), ['schema_version', 'event_id', 'event', 'occurred_at', 'resource', 'delivery_id', 'operation_id']);
        const { delivery_id, ...rest } = e;
        assert.match(String(delivery_id), /^dlv_/);
        assert.deepEqual(rest, { ...event });
      }
      assert.notEqual(envelopes[0]!.delivery_id, envelopes[1]!.delivery_id);
      assert.equal(transport.sent[0]!.request.headers['Content-Type'], 'application/json');
    } finally {
      h.close();
    }
  }));

test('DNS rebinding: each attempt connects to the address its own check approved, never to a later answer', () =>
  withFakeTime(async (clock) => {
    const answers = ['93.184.216.34', '93.184.216.34', '127.0.0.1'];
    const asked: string[] = [];
    const resolver: Resolver = async (host) => {
      asked.push(host);
      const address = answers[Math.min(asked.length - 1, answers.length - 1)]!;
      return [{ address, family: 4 }];
    };
    const transport = fakeTransport([status(500)]);
    const h = harness({ transport, resolver });
    try {
      const hook = await h.hook(); // registration: check 1 → public
      h.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
      await clock.tickAsync(0); // attempt 1: check 2 → public, pinned
      assert.equal(transport.sent.length, 1);
      assert.deepEqual(transport.sent[0]!.request.destination.addresses, [{ address: '93.184.216.34', family: 4 }]);
      assert.equal(transport.sent[0]!.request.destination.hostname, 'hooks.example');

      await clock.tickAsync(1000); // attempt 2: check 3 → loopback, not allowlisted → refused before any connection
      assert.equal(transport.sent.length, 1);
      const [latest] = h.log(hook.id);
      assert.equal(latest!.attempt, 2);
      assert.equal(latest!.reason, 'delivery_failed');
      assert.match(latest!.detail ?? '', /destination refused: .*Local webhook targets/);
      assert.equal(asked.length, 3);
    } finally {
      h.close();
    }
  }));

test('a full queue drops the delivery before any attempt and counts it in events_dropped', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport(['hang']);
    const h = harness({ transport, queueLimit: 3, concurrency: 1 });
    try {
      const a = await h.hook();
      const b = await h.hook();
      h.bus.publish('job.completed', { kind: 'job', id: 'job_1' }); // 2 deliveries: 1 running, 1 queued
      h.bus.publish('job.completed', { kind: 'job', id: 'job_2' }); // 1 fits, 1 dropped
      await clock.tickAsync(0);
      assert.equal(h.service.dispatcher.held, 3);
      assert.equal(h.counters.eventsDropped, 1);
      assert.equal(transport.sent.length, 1);
      const test = h.service.test(h.owner, a.id); // the test route meets the same bound
      assert.equal(test.delivery_id, null);
      assert.equal(h.counters.eventsDropped, 2);
      assert.deepEqual(h.log(b.id), []);
    } finally {
      h.close();
    }
  }));

test('concurrency: at most 8 attempts on the wire at once; the rest wait their turn', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport(['hang']);
    const h = harness({ transport });
    try {
      await h.hook();
      for (let i = 0; i < 12; i++) h.bus.publish('job.completed', { kind: 'job', id: `job_${i}` });
      await clock.tickAsync(0);
      assert.equal(transport.sent.length, 8);
      assert.equal(h.service.dispatcher.held, 12);
    } finally {
      h.close();
    }
  }));

test('stop (restart, quit): waiting retries and running attempts are dropped, never replayed', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([status(500)]);
    const h = harness({ transport });
    try {
      const hook = await h.hook();
      h.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
      await clock.tickAsync(0);
      assert.equal(h.service.dispatcher.held, 1);
      h.service.stop();
      assert.equal(h.service.dispatcher.held, 0);
      await clock.tickAsync(120_000);
      assert.equal(transport.sent.length, 1);
      h.bus.publish('job.completed', { kind: 'job', id: 'job_2' });
      await clock.tickAsync(0);
      assert.equal(transport.sent.length, 1, 'a stopped service no longer listens');
      assert.equal(h.log(hook.id).length, 1);
      assert.equal(h.counters.deliveriesFailed, 0);
    } finally {
      h.close();
    }
  }));

test('webhook.test: one attempt, never retried, whatever the webhook subscribes to', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([status(500)]);
    const h = harness({ transport });
    try {
      const hook = await h.hook({ events: ['job.failed'] });
      const { delivery_id, event_id } = h.service.test(h.owner, hook.id);
      await clock.tickAsync(120_000);
      assert.equal(transport.sent.length, 1);
      const envelope = JSON.parse(transport.sent[0]!.request.body) as Record<string, unknown>;
      assert.deepEqual(
        { event: envelope.event, event_id: envelope.event_id, delivery_id: envelope.delivery_id, resource: envelope.resource },
        { event: 'webhook.test', event_id, delivery_id, resource: { kind: 'webhook', id: hook.id } },
      );
      assert.deepEqual(
        h.log(hook.id).map((e) => [e.event, e.attempt, e.reason]),
        [['webhook.test', 1, 'handler_error']],
      );
      assert.equal(h.counters.deliveriesFailed, 0);
    } finally {
      h.close();
    }
  }));

test('the log keeps the newest 100 entries per webhook', () =>
  withFakeTime(async (clock) => {
    const transport = fakeTransport([status(200)]);
    const h = harness({ transport });
    try {
      const hook = await h.hook();
      const other = await h.hook();
      const ids: string[] = [];
      for (let i = 0; i < 101; i++) {
        ids.push(h.service.test(h.owner, hook.id).event_id);
        await clock.tickAsync(0);
      }
      h.service.test(h.owner, other.id);
      await clock.tickAsync(0);
      const log = h.log(hook.id);
      assert.equal(log.length, 100);
      assert.deepEqual(
        log.map((e) => e.event_id),
        ids.slice(1).reverse(),
      );
      assert.equal(h.log(other.id).length, 1);
      const rows = h.db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get() as { n: number };
      assert.equal(rows.n, 101);
    } finally {
      h.close();
    }
  }));

test('real time, real receiver: the first two waits are about 1 s and 2 s, each attempt signed', async () => {
  const receiver = await startReceiver();
  receiver.answer = 500;
  const h = harness({
    transport: (await import('./transport.ts')).createHttpTransport({ userAgent: 'test' }),
    allowlist: [receiver.target],
  });
  try {
    const hook = await h.hook({ url: receiver.url });
    const event = h.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
    const got = await receiver.waitFor(3, 8000);
    const gaps = [got[1]!.at - got[0]!.at, got[2]!.at - got[1]!.at];
    assert.ok(gaps[0]! >= 950 && gaps[0]! < 1900, `first wait ${gaps[0]} ms`);
    assert.ok(gaps[1]! >= 1950 && gaps[1]! < 2900, `second wait ${gaps[1]} ms`);
    for (const r of got.slice(0, 3)) {
      assert.equal(JSON.parse(r.rawBody.toString()).event_id, event.event_id);
      const result = verify({
        secret: hook.secret,
        timestamp: r.headers['x-service-timestamp'] as string,
        signatureHeader: r.headers['x-service-signature'] as string,
        rawBody: r.rawBody,
        now: new Date(),
      });
      assert.deepEqual(result, { ok: true });
    }
  } finally {
    h.close();
    await receiver.close();
  }
});
