/**
 * The Control API's webhook-approval and pairing side: capabilities, the
 * approval transitions (nothing leaves denied), listing without secrets,
 * delivery logs, and reset erasing webhooks, logs and pairings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { CONTROL_AUTH, webhookTestApp, type WebhookTestApp } from '../testing/webhook-app.ts';
import { APPROVAL_MACHINE } from '../features/webhooks/service.ts';
import { outcomes } from '../kernel/state-machine.ts';

function assertError(res: request.Response, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code);
}

async function withApp(run: (h: WebhookTestApp) => Promise<void>): Promise<void> {
  const h = webhookTestApp();
  try {
    await run(h);
  } finally {
    h.close();
  }
}

async function register(h: WebhookTestApp, auth: string): Promise<string> {
  const res = await request(h.app)
    .post('/v1/webhooks')
    .set('Authorization', auth)
    .send({ url: 'https://hooks.example/x', events: ['job.completed'] });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id as string;
}

function approval(h: WebhookTestApp, id: string, body: unknown) {
  return request(h.control)
    .post(`/control/webhooks/${id}/approval`)
    .set('Authorization', CONTROL_AUTH)
    .send(body as object);
}

test("GET /control lists pairings and webhook-approval, in CONTROL.md's order, then the reference's own", () =>
  withApp(async (h) => {
    const res = await request(h.control).get('/control').set('Authorization', CONTROL_AUTH);
    const caps = res.body.capabilities as string[];
    const order = [
      'reset',
      'settings',
      'restart',
      'tokens',
      'meetings',
      'jobs',
      'pairings',
      'webhook-approval',
      'devices',
      'recording-fault',
      // docs/spec/CONTROL-EXTENSIONS.md
      'meeting-apps',
    ];
    assert.ok(caps.includes('pairings') && caps.includes('webhook-approval'));
    assert.deepEqual(
      caps,
      order.filter((c) => caps.includes(c)),
    );
  }));

test('approval transitions: pending → allowed → denied; nothing leaves denied (409); same state is a no-op', () =>
  withApp(async (h) => {
    // The table, pair by pair (null: refused, 409 conflict).
    assert.deepEqual(
      outcomes(APPROVAL_MACHINE).map(({ state, event, to }) => `${state} ${event} → ${to ?? 'refused'}`),
      [
        'pending allow → allowed',
        'pending deny → denied',
        'allowed allow → allowed',
        'allowed deny → denied',
        'denied allow → refused',
        'denied deny → denied',
      ],
    );
    const auth = h.bearer(['read']);
    const a = await register(h, auth);
    const allowed = await approval(h, a, { state: 'allowed' });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.body.approval_state, 'allowed');
    assert.equal((await request(h.app).get(`/v1/webhooks/${a}`).set('Authorization', auth)).body.approval_state, 'allowed');
    assert.equal((await approval(h, a, { state: 'allowed' })).status, 200);
    assert.equal((await approval(h, a, { state: 'denied' })).body.approval_state, 'denied');
    assertError(await approval(h, a, { state: 'allowed' }), 409, 'conflict');
    assert.equal((await approval(h, a, { state: 'denied' })).status, 200);
    assert.equal((await request(h.app).get(`/v1/webhooks/${a}`).set('Authorization', auth)).body.approval_state, 'denied');

    const b = await register(h, auth);
    assert.equal((await approval(h, b, { state: 'denied' })).body.approval_state, 'denied', 'pending → denied');
  }));

test('approval: 404 unknown id, 422 bad body; it works while the Automation API and webhooks are off', () =>
  withApp(async (h) => {
    const id = await register(h, h.bearer(['read']));
    assertError(await approval(h, 'whk_nope', { state: 'allowed' }), 404, 'not_found');
    for (const body of [{}, { state: 'pending' }, { state: 'ALLOWED' }, { state: 'allowed', extra: 1 }, { state: true }]) {
      assertError(await approval(h, id, body), 422, 'invalid_request');
    }
    assertError(
      await request(h.control).post(`/control/webhooks/${id}/approval`).set('Authorization', CONTROL_AUTH),
      422,
      'invalid_request',
    );
    h.deps.settings.update({ automation_api_enabled: false, webhooks_enabled: false });
    assert.equal((await approval(h, id, { state: 'denied' })).status, 200);
    assertError(await request(h.control).post(`/control/webhooks/${id}/approval`).send({ state: 'denied' }), 401, 'unauthorized');
  }));

test("GET /control/webhooks lists every owner's webhooks with their owner, never a secret; deliveries per webhook", () =>
  withApp(async (h) => {
    const alice = h.gw.token(['read']);
    const bob = h.gw.token(['read']);
    const a = await register(h, `Bearer ${alice}`);
    const b = await register(h, `Bearer ${bob}`);
    const res = await request(h.control).get('/control/webhooks').set('Authorization', CONTROL_AUTH);
    assert.equal(res.status, 200);
    const rows = res.body.webhooks as Record<string, unknown>[];
    assert.deepEqual(rows.map((w) => w.id).sort(), [a, b].sort());
    for (const w of rows) {
      assert.deepEqual(Object.keys(w).sort(), [
        'approval_state',
        'created_at',
        'delivery_mode',
        'events',
        'id',
        'owner_token_id',
        'updated_at',
        'url',
      ]);
    }
    assert.notEqual(rows[0]!.owner_token_id, rows[1]!.owner_token_id);

    await approval(h, a, { state: 'denied' });
    h.deps.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
    const log = await request(h.control).get(`/control/webhooks/${a}/deliveries`).set('Authorization', CONTROL_AUTH);
    assert.equal(log.status, 200);
    assert.equal(log.body.webhook_id, a);
    assert.deepEqual(
      log.body.deliveries.map((e: { reason: string }) => e.reason),
      ['denied'],
    );
    assertError(await request(h.control).get('/control/webhooks/whk_nope/deliveries').set('Authorization', CONTROL_AUTH), 404, 'not_found');
  }));

test('reset erases webhooks, their delivery logs and pairing requests', () =>
  withApp(async (h) => {
    const id = await register(h, h.bearer(['read']));
    await approval(h, id, { state: 'denied' });
    h.deps.bus.publish('job.completed', { kind: 'job', id: 'job_1' });
    const pairing = (
      await request(h.app)
        .post('/v1/pair/request')
        .send({ client_name: 'Phone', scopes: ['read'] })
    ).body.pairing_id as string;

    await request(h.control).post('/control/reset').set('Authorization', CONTROL_AUTH).expect(204);
    assert.deepEqual((await request(h.control).get('/control/webhooks').set('Authorization', CONTROL_AUTH)).body, { webhooks: [] });
    assert.equal((h.gw.db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get() as { n: number }).n, 0);
    assert.deepEqual((await request(h.control).get('/control/pairings').set('Authorization', CONTROL_AUTH)).body, { pairings: [] });
    assertError(await request(h.app).get(`/v1/pair/${pairing}`), 404, 'not_found');
  }));

test('deleting a token deletes its webhooks: a revoked key receives nothing more', () =>
  withApp(async (h) => {
    const created = await request(h.control)
      .post('/control/tokens')
      .set('Authorization', CONTROL_AUTH)
      .send({ scopes: ['read'] });
    const id = await register(h, `Bearer ${created.body.token}`);
    await request(h.control).delete(`/control/tokens/${created.body.token_id}`).set('Authorization', CONTROL_AUTH).expect(204);
    assertError(await approval(h, id, { state: 'allowed' }), 404, 'not_found');
  }));
