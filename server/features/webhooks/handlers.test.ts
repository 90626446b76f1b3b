/**
 * Every /v1/webhooks rule through HTTP (supertest on createApp), with real
 * receivers on 127.0.0.1 allowlisted at "startup" (the harness restarts the
 * dependencies after changing the setting), approval through the Control
 * API, and signatures checked by the receiver side with verify().
 * Retries against fake timers are in server/features/webhooks/dispatcher.test.ts;
 * here a hand-driven scheduler checks the schedule at the HTTP level.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import sinon from 'sinon';
import request from 'supertest';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './dispatcher.ts';
import type { Scheduler } from './scheduler.ts';
import { verify } from './signature.ts';
import { CONTROL_AUTH, tableResolver, webhookTestApp, type WebhookTestApp } from '../../testing/webhook-app.ts';
import { closedPort, startReceiver, type Receiver } from '../../testing/webhook-receiver.ts';
import type { AttemptResult, Transport } from './transport.ts';
import { SUBSCRIBABLE_EVENTS } from './event-catalog.ts';

interface CorpusEntry {
  url: string;
  resolves_to?: string[];
}

function corpus(name: string): CorpusEntry[] {
  return (JSON.parse(readFileSync(new URL(`../../../fixtures/webhooks/${name}`, import.meta.url), 'utf8')) as { urls: CorpusEntry[] }).urls;
}

function resolverTable(entries: CorpusEntry[]): Record<string, string[]> {
  const table: Record<string, string[]> = { 'hooks.example': ['93.184.216.34'] };
  for (const e of entries) {
    if (e.resolves_to !== undefined) table[new URL(e.url).hostname.replace(/\.+$/, '')] = e.resolves_to;
  }
  return table;
}

const PUBLIC = 'https://hooks.example/receive';

function assertError(res: request.Response, status: number, code: string, message?: RegExp): void {
  assert.equal(res.status, status, `${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
  if (message !== undefined) assert.match(res.body.error.message, message);
}

async function create(h: WebhookTestApp, auth: string, body: Record<string, unknown>) {
  return request(h.app).post('/v1/webhooks').set('Authorization', auth).send(body);
}

async function approve(h: WebhookTestApp, id: string, state: 'allowed' | 'denied' = 'allowed') {
  const res = await request(h.control).post(`/control/webhooks/${id}/approval`).set('Authorization', CONTROL_AUTH).send({ state });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res;
}

/** Polls the delivery log until `done` says so. */
async function logUntil(h: WebhookTestApp, auth: string, id: string, done: (entries: Record<string, unknown>[]) => boolean) {
  const until = Date.now() + 8000;
  for (;;) {
    const res = await request(h.app).get(`/v1/webhooks/${id}/deliveries`).set('Authorization', auth);
    assert.equal(res.status, 200);
    const entries = res.body.deliveries as Record<string, unknown>[];
    if (done(entries)) return entries;
    if (Date.now() > until) assert.fail(`delivery log never got there: ${JSON.stringify(entries)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function withReceiver(run: (h: WebhookTestApp, r: Receiver) => Promise<void>, opts: Parameters<typeof webhookTestApp>[0] = {}) {
  const r = await startReceiver();
  const h = webhookTestApp({ ...opts, allowlist: [r.target, ...(opts.allowlist ?? [])] });
  try {
    await run(h, r);
  } finally {
    h.close();
    await r.close();
  }
  assert.deepEqual(h.gw.errors, []);
}

// ── Registration ──────────────────────────────────────────────────────────

test('201 with id, url, events, delivery_mode, created_at and a generated hmac_secret; never shown again', async () => {
  const h = webhookTestApp();
  try {
    const auth = h.bearer(['read']);
    const res = await create(h, auth, { url: PUBLIC, events: ['job.completed', 'summary.completed', 'job.completed'] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'delivery_mode', 'events', 'hmac_secret', 'id', 'url']);
    assert.equal(res.body.url, PUBLIC);
    assert.deepEqual(res.body.events, ['job.completed', 'summary.completed']);
    assert.equal(res.body.delivery_mode, 'at-least-once');
    assert.match(res.body.hmac_secret, /^whsec_[A-Za-z0-9_-]{43}$/);

    const got = await request(h.app).get(`/v1/webhooks/${res.body.id}`).set('Authorization', auth);
    assert.equal(got.status, 200);
    assert.equal(got.body.approval_state, 'pending');
    assert.equal(got.body.hmac_secret, undefined);
    assert.doesNotMatch(JSON.stringify(got.body), new RegExp(res.body.hmac_secret));
    const list = await request(h.app).get('/v1/webhooks').set('Authorization', auth);
    assert.doesNotMatch(JSON.stringify(list.body), new RegExp(res.body.hmac_secret));
    assert.doesNotMatch(
      JSON.stringify((await request(h.control).get('/control/webhooks').set('Authorization', CONTROL_AUTH)).body),
      new RegExp(res.body.hmac_secret),
    );

    const once = await create(h, auth, { url: PUBLIC, events: ['job.failed'], delivery_mode: 'at-most-once' });
    assert.equal(once.body.delivery_mode, 'at-most-once');
    assert.notEqual(once.body.hmac_secret, res.body.hmac_secret);
  } finally {
    h.close();
  }
});

test('a client-supplied secret is used as given, and signs the deliveries', () =>
  withReceiver(async (h, r) => {
    const auth = h.bearer(['read']);
    const secret = 'my-own-secret-0123456789';
    const res = await create(h, auth, { url: r.url, events: ['job.completed'], secret });
    assert.equal(res.status, 201);
    assert.equal(res.body.hmac_secret, secret);
    await approve(h, res.body.id);
    await request(h.app).post(`/v1/webhooks/${res.body.id}/test`).set('Authorization', auth).expect(202);
    const [got] = await r.waitFor(1);
    const check = (s: string) =>
      verify({
        secret: s,
        timestamp: got!.headers['x-service-timestamp'] as string,
        signatureHeader: got!.headers['x-service-signature'] as string,
        rawBody: got!.rawBody,
        now: new Date(),
      });
    assert.deepEqual(check(secret), { ok: true });
    assert.deepEqual(check(`${secret}x`), { ok: false, reason: 'signature_mismatch' });

    for (const bad of ['short', 'has a space in it!!', 'é'.repeat(20), 'x'.repeat(257)]) {
      assertError(await create(h, auth, { url: r.url, events: ['job.completed'], secret: bad }), 422, 'invalid_request', /secret/);
    }
  }));

test('the url must be http:// or https://: 400 bad_request', async () => {
  const h = webhookTestApp();
  try {
    const auth = h.bearer(['read']);
    for (const url of ['ftp://example.com/', 'example.com/hook', 'hooks.example', 'mailto:a@b.c', '']) {
      const res = await create(h, auth, { url, events: ['job.completed'] });
      if (url === '') assertError(res, 422, 'invalid_request');
      else assertError(res, 400, 'bad_request', /http:\/\/ or https:\/\//);
    }
    assertError(await create(h, auth, { url: 42, events: ['job.completed'] }), 422, 'invalid_request');
  } finally {
    h.close();
  }
});

test('events: non-empty (422); meeting.*, transcription.completed, webhook.test and unknown names 400', async () => {
  const h = webhookTestApp();
  try {
    const auth = h.bearer(['read', 'record']);
    assertError(await create(h, auth, { url: PUBLIC, events: [] }), 422, 'invalid_request');
    assertError(await create(h, auth, { url: PUBLIC }), 422, 'invalid_request');
    assertError(await create(h, auth, { url: PUBLIC, events: 'job.completed' }), 422, 'invalid_request');
    for (const name of ['meeting.created', 'meeting.updated', 'meeting.deleted', 'transcription.completed', 'meeting.anything']) {
      assertError(await create(h, auth, { url: PUBLIC, events: ['job.completed', name] }), 400, 'bad_request', /not subscribable/);
    }
    assertError(await create(h, auth, { url: PUBLIC, events: ['webhook.test'] }), 400, 'bad_request', /webhook\.test/);
    for (const name of ['job.complete', 'JOB.COMPLETED', 'job.*', 'admin']) {
      assertError(await create(h, auth, { url: PUBLIC, events: [name] }), 400, 'bad_request', /unknown event/);
    }
    // All 17, dormant ones included, are accepted.
    assert.equal(SUBSCRIBABLE_EVENTS.length, 17);
    const all = await create(h, auth, { url: PUBLIC, events: [...SUBSCRIBABLE_EVENTS] });
    assert.equal(all.status, 201);
    assert.deepEqual(all.body.events, [...SUBSCRIBABLE_EVENTS]);
  } finally {
    h.close();
  }
});

test('scopes: read floor for read events; recording.* needs record (403 insufficient_scope); delete-only is refused', async () => {
  const h = webhookTestApp();
  try {
    for (const scopes of [['read'], ['write'], ['record']]) {
      assert.equal((await create(h, h.bearer(scopes), { url: PUBLIC, events: ['job.completed'] })).status, 201, scopes.join());
    }
    assertError(await create(h, h.bearer(['delete']), { url: PUBLIC, events: ['job.completed'] }), 403, 'insufficient_scope');
    for (const scopes of [['read'], ['write'], ['read', 'write', 'delete']]) {
      for (const event of ['recording.started', 'recording.stopped', 'recording.paused']) {
        assertError(
          await create(h, h.bearer(scopes), { url: PUBLIC, events: ['job.completed', event] }),
          403,
          'insufficient_scope',
          /record/,
        );
      }
    }
    assert.equal((await create(h, h.bearer(['record']), { url: PUBLIC, events: ['recording.started', 'recording.stopped'] })).status, 201);
  } finally {
    h.close();
  }
});

test('the whole hostile corpus is refused at registration with 400; the legitimate corpus is accepted', async () => {
  const hostile = corpus('hostile-urls.json');
  const legitimate = corpus('legitimate-urls.json');
  const h = webhookTestApp({ webhooks: { resolver: tableResolver({ ...resolverTable(hostile), ...resolverTable(legitimate) }) } });
  try {
    const auth = h.bearer(['read']);
    for (const e of hostile) {
      const res = await create(h, auth, { url: e.url, events: ['job.completed'] });
      if (e.url === '' || e.url.length > 2048) assert.equal(res.status, 422);
      else assertError(res, 400, 'bad_request');
    }
    for (const e of legitimate) {
      const res = await create(h, auth, { url: e.url, events: ['job.completed'] });
      assert.equal(res.status, 201, `${e.url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.url, e.url);
    }
    assert.equal((await request(h.app).get('/v1/webhooks').set('Authorization', auth)).body.webhooks.length, legitimate.length);
  } finally {
    h.close();
  }
});

test('the allowlist is read at startup: a target added later is refused until a restart', async () => {
  const r = await startReceiver();
  const h = webhookTestApp();
  try {
    const auth = h.bearer(['read']);
    assertError(await create(h, auth, { url: r.url, events: ['job.completed'] }), 400, 'bad_request', /Local webhook targets/);
    const patched = await request(h.control)
      .patch('/control/settings')
      .set('Authorization', CONTROL_AUTH)
      .send({ local_webhook_targets: [r.target] });
    assert.equal(patched.status, 200);
    assertError(await create(h, auth, { url: r.url, events: ['job.completed'] }), 400, 'bad_request');
    await request(h.control).post('/control/restart').set('Authorization', CONTROL_AUTH).expect(204);
    assert.equal((await create(h, auth, { url: r.url, events: ['job.completed'] })).status, 201);
    // Another port of the same host is still refused: the entry is the exact host:port.
    assertError(await create(h, auth, { url: `http://127.0.0.1:${r.port + 1}/`, events: ['job.completed'] }), 400, 'bad_request');
  } finally {
    h.close();
    await r.close();
  }
});

test('link-local, metadata, unspecified and multicast stay refused even when allowlisted', async () => {
  const h = webhookTestApp({
    allowlist: [
      '169.254.169.254:80',
      '169.254.1.1:80',
      '0.0.0.0:80',
      '224.0.0.1:80',
      '[fe80::1]:80',
      '[::]:80',
      'metadata.google.internal:80',
    ],
  });
  try {
    const auth = h.bearer(['read']);
    for (const url of [
      'http://169.254.169.254/',
      'http://169.254.1.1/',
      'http://0.0.0.0/',
      'http://224.0.0.1/',
      'http://[fe80::1]/',
      'http://[::]/',
      'http://metadata.google.internal/',
    ]) {
      assertError(await create(h, auth, { url, events: ['job.completed'] }), 400, 'bad_request', /never allowed/);
    }
  } finally {
    h.close();
  }
});

// ── Listing, ownership, all=true ──────────────────────────────────────────

test("GET /v1/webhooks lists the caller's own; all=true needs delete and a first-party token", async () => {
  const h = webhookTestApp();
  try {
    const alice = h.bearer(['read', 'delete']);
    const bob = h.bearer(['read']);
    const a = (await create(h, alice, { url: PUBLIC, events: ['job.completed'] })).body.id as string;
    const b = (await create(h, bob, { url: PUBLIC, events: ['job.failed'] })).body.id as string;

    const own = await request(h.app).get('/v1/webhooks').set('Authorization', bob);
    assert.deepEqual(
      own.body.webhooks.map((w: { id: string }) => w.id),
      [b],
    );
    assert.equal(own.body.webhooks[0].approval_state, 'pending');
    assert.deepEqual(
      (await request(h.app).get('/v1/webhooks?all=false').set('Authorization', alice)).body.webhooks.map((w: { id: string }) => w.id),
      [a],
    );

    assertError(await request(h.app).get('/v1/webhooks?all=true').set('Authorization', bob), 403, 'insufficient_scope', /delete/);
    assertError(await request(h.app).get('/v1/webhooks?all=true').set('Authorization', alice), 403, 'forbidden', /first-party/);
    assertError(
      await request(h.app)
        .get('/v1/webhooks?all=true')
        .set('Authorization', h.bearer(['read'], { kind: 'first_party' })),
      403,
      'insufficient_scope',
    );
    assertError(
      await request(h.app)
        .get('/v1/webhooks?all=true')
        .set('Authorization', h.bearer(['delete'], { kind: 'first_party' })),
      403,
      'insufficient_scope',
    );
    assertError(await request(h.app).get('/v1/webhooks?all=maybe').set('Authorization', alice), 422, 'invalid_request');

    const everyone = await request(h.app)
      .get('/v1/webhooks?all=true')
      .set('Authorization', h.bearer(['read', 'delete'], { kind: 'first_party' }));
    assert.equal(everyone.status, 200);
    assert.deepEqual(everyone.body.webhooks.map((w: { id: string }) => w.id).sort(), [a, b].sort());
  } finally {
    h.close();
  }
});

test('owner only: another token gets 403 forbidden on get, delete, deliveries and test; unknown ids 404', async () => {
  const h = webhookTestApp();
  try {
    const owner = h.bearer(['read']);
    const other = h.bearer(['read', 'record', 'write', 'delete'], { kind: 'first_party' });
    const id = (await create(h, owner, { url: PUBLIC, events: ['job.completed'] })).body.id as string;
    const routes = [
      (auth: string, wid: string) => request(h.app).get(`/v1/webhooks/${wid}`).set('Authorization', auth),
      (auth: string, wid: string) => request(h.app).delete(`/v1/webhooks/${wid}`).set('Authorization', auth),
      (auth: string, wid: string) => request(h.app).get(`/v1/webhooks/${wid}/deliveries`).set('Authorization', auth),
      (auth: string, wid: string) => request(h.app).post(`/v1/webhooks/${wid}/test`).set('Authorization', auth),
    ];
    for (const call of routes) {
      assertError(await call(other, id), 403, 'forbidden', /another token/);
      assertError(await call(owner, 'whk_does-not-exist'), 404, 'not_found');
    }
    assert.equal((await request(h.app).get(`/v1/webhooks/${id}`).set('Authorization', owner)).status, 200);
  } finally {
    h.close();
  }
});

test('DELETE needs only the read floor: the owner deletes, then the webhook is 404', async () => {
  const h = webhookTestApp();
  try {
    const owner = h.bearer(['read']);
    const id = (await create(h, owner, { url: PUBLIC, events: ['job.completed'] })).body.id as string;
    const res = await request(h.app).delete(`/v1/webhooks/${id}`).set('Authorization', owner);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id, deleted: true });
    assertError(await request(h.app).get(`/v1/webhooks/${id}`).set('Authorization', owner), 404, 'not_found');
    assertError(await request(h.app).delete(`/v1/webhooks/${id}`).set('Authorization', owner), 404, 'not_found');
  } finally {
    h.close();
  }
});

test('the read floor on every route: read, record or write pass; delete-only gets 403 insufficient_scope', async () => {
  const h = webhookTestApp();
  try {
    for (const scopes of [['read'], ['record'], ['write']]) {
      const auth = h.bearer(scopes);
      const id = (await create(h, auth, { url: PUBLIC, events: ['job.completed'] })).body.id as string;
      assert.equal((await request(h.app).get('/v1/webhooks').set('Authorization', auth)).status, 200);
      assert.equal((await request(h.app).get(`/v1/webhooks/${id}`).set('Authorization', auth)).status, 200);
      assert.equal((await request(h.app).get(`/v1/webhooks/${id}/deliveries`).set('Authorization', auth)).status, 200);
      assert.equal((await request(h.app).post(`/v1/webhooks/${id}/test`).set('Authorization', auth)).status, 202);
      assert.equal((await request(h.app).delete(`/v1/webhooks/${id}`).set('Authorization', auth)).status, 200);
    }
    const del = h.bearer(['delete']);
    for (const [method, path] of [
      ['get', '/v1/webhooks'],
      ['get', '/v1/webhooks/x'],
      ['delete', '/v1/webhooks/x'],
      ['get', '/v1/webhooks/x/deliveries'],
      ['post', '/v1/webhooks/x/test'],
    ] as const) {
      assertError(await request(h.app)[method](path).set('Authorization', del), 403, 'insufficient_scope', undefined);
    }
  } finally {
    h.close();
  }
});

test('the feature switch: with webhooks_enabled off every webhook route is 403 forbidden, after the auth gates', async () => {
  const h = webhookTestApp();
  try {
    const auth = h.bearer(['read', 'record', 'write', 'delete'], { kind: 'first_party' });
    const id = (await create(h, auth, { url: PUBLIC, events: ['job.completed'] })).body.id as string;
    h.deps.settings.update({ webhooks_enabled: false });
    const calls = [
      () =>
        request(h.app)
          .post('/v1/webhooks')
          .send({ url: PUBLIC, events: ['job.completed'] }),
      () => request(h.app).get('/v1/webhooks'),
      () => request(h.app).get('/v1/webhooks?all=true'),
      () => request(h.app).get(`/v1/webhooks/${id}`),
      () => request(h.app).delete(`/v1/webhooks/${id}`),
      () => request(h.app).get(`/v1/webhooks/${id}/deliveries`),
      () => request(h.app).post(`/v1/webhooks/${id}/test`),
    ];
    for (const call of calls) {
      assertError(await call().set('Authorization', auth), 403, 'forbidden', /webhooks are switched off/);
      assertError(await call(), 401, 'unauthorized');
    }
    h.deps.settings.update({ automation_api_enabled: false });
    assertError(await calls[1]!().set('Authorization', auth), 403, 'api_disabled');
    h.deps.settings.update({ automation_api_enabled: true, webhooks_enabled: true });
    assert.equal((await request(h.app).get(`/v1/webhooks/${id}`).set('Authorization', auth)).status, 200, 'the webhook survived');
  } finally {
    h.close();
  }
});

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
