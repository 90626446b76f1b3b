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
import request from 'supertest';
import { verify } from './signature.ts';
import { CONTROL_AUTH, tableResolver, webhookTestApp } from '../../testing/webhook-app.ts';
import { startReceiver } from '../../testing/webhook-receiver.ts';
import { SUBSCRIBABLE_EVENTS } from './event-catalog.ts';
import { PUBLIC, approve, assertError, corpus, create, resolverTable, withReceiver } from '../../testing/webhook-routes.ts';

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
