/**
 * Pairing through HTTP: the two token-less routes, approval and rejection
 * through the Control API, the token shown once, the rate limits, and the
 * routes that must not exist. State machine details: server/features/pairing/service.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { CONTROL_AUTH, webhookTestApp, type WebhookTestApp } from '../../testing/webhook-app.ts';

function assertError(res: request.Response, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code);
}

async function pair(h: WebhookTestApp, body: unknown = { client_name: 'Pixel 9', scopes: ['read', 'record', 'delete'] }) {
  return request(h.app)
    .post('/v1/pair/request')
    .send(body as object);
}

async function withApp(run: (h: WebhookTestApp) => Promise<void>): Promise<void> {
  const h = webhookTestApp();
  try {
    await run(h);
  } finally {
    h.close();
  }
  assert.deepEqual(h.gw.errors, []);
}

test('POST /v1/pair/request needs no token: 202 with an unguessable pairing_id, pending, and where to poll', () =>
  withApp(async (h) => {
    const res = await pair(h);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['client_name', 'expires_at', 'pairing_id', 'poll_url', 'scopes', 'state']);
    assert.equal(res.body.state, 'pending');
    assert.equal(res.body.client_name, 'Pixel 9');
    assert.deepEqual(res.body.scopes, ['read', 'record'], 'delete is never granted to a paired device');
    assert.match(res.body.pairing_id, /^pair_[A-Za-z0-9_-]{32}$/);
    assert.equal(res.body.poll_url, `/v1/pair/${res.body.pairing_id}`);
    const ttl = Date.parse(res.body.expires_at) - Date.now();
    assert.ok(ttl > 9 * 60_000 && ttl <= 10 * 60_000);

    const poll = await request(h.app).get(res.body.poll_url);
    assert.equal(poll.status, 200);
    assert.equal(poll.body.state, 'pending');
    assert.equal(poll.body.token, undefined);
    assert.equal(poll.body.granted_scopes, null);
  }));

test('the body needs client_name (1..100 characters) and scopes (an array of strings): 422 otherwise', () =>
  withApp(async (h) => {
    for (const body of [
      undefined,
      {},
      { client_name: 'x' },
      { scopes: ['read'] },
      { client_name: '', scopes: ['read'] },
      { client_name: '   ', scopes: ['read'] },
      { client_name: 'x'.repeat(101), scopes: ['read'] },
      { client_name: 'bad\u0000name', scopes: ['read'] },
      { client_name: 'x', scopes: 'read' },
      { client_name: 'x', scopes: [1] },
      { client_name: 'x', scopes: ['read'], extra: true },
      { client_name: 'x', scopes: ['admin'] },
      { client_name: 'x', scopes: ['delete'] },
    ]) {
      const res = body === undefined ? await request(h.app).post('/v1/pair/request') : await pair(h, body);
      assertError(res, 422, 'invalid_request');
    }
    assert.equal((await pair(h, { client_name: '📱'.repeat(100), scopes: ['write', 'admin'] })).status, 202);
  }));

test('approval through the Control API: the first poll carries the raw token, later polls never; the token is paired and has no delete', () =>
  withApp(async (h) => {
    const { pairing_id } = (await pair(h)).body as { pairing_id: string };
    const list = await request(h.control).get('/control/pairings').set('Authorization', CONTROL_AUTH);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.pairings.map((p: Record<string, unknown>) => [p.id, p.client_name, p.scopes, p.state]),
      [[pairing_id, 'Pixel 9', ['read', 'record'], 'pending']],
    );

    const approved = await request(h.control).post(`/control/pairings/${pairing_id}/approve`).set('Authorization', CONTROL_AUTH);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.state, 'approved');
    assert.equal(approved.body.token, undefined, 'the application never sees the raw token');

    const first = await request(h.app).get(`/v1/pair/${pairing_id}`);
    assert.equal(first.status, 200);
    assert.equal(first.body.state, 'approved');
    assert.match(first.body.token, /^mas_/);
    assert.deepEqual(first.body.granted_scopes, ['read', 'record']);

    const second = await request(h.app).get(`/v1/pair/${pairing_id}`);
    assert.equal(second.status, 200);
    assert.equal(second.body.state, 'approved');
    assert.equal(second.body.token, undefined);
    assert.equal(second.body.token_id, first.body.token_id);

    const whoami = await request(h.app).get('/v1/whoami').set('Authorization', `Bearer ${first.body.token}`);
    assert.equal(whoami.status, 200);
    assert.deepEqual(whoami.body.scopes, ['read', 'record']);
    assert.equal(whoami.body.origin, 'paired');
    assert.equal(whoami.body.kind, 'standard');
    assert.equal(whoami.body.token_id, first.body.token_id);
    assert.equal(h.deps.tokens.get(first.body.token_id)?.name, 'Pixel 9');
  }));

test('approve may narrow the scopes; reject ends the request without a token; answering twice is 409', () =>
  withApp(async (h) => {
    const a = (await pair(h, { client_name: 'Tablet', scopes: ['read', 'write', 'record'] })).body.pairing_id as string;
    const narrowed = await request(h.control)
      .post(`/control/pairings/${a}/approve`)
      .set('Authorization', CONTROL_AUTH)
      .send({ scopes: ['write', 'delete'] });
    assert.equal(narrowed.status, 200);
    assert.deepEqual(narrowed.body.granted_scopes, ['write']);
    const token = (await request(h.app).get(`/v1/pair/${a}`)).body.token as string;
    assert.deepEqual((await request(h.app).get('/v1/whoami').set('Authorization', `Bearer ${token}`)).body.scopes, ['write']);

    const b = (await pair(h, { client_name: 'Laptop', scopes: ['read'] })).body.pairing_id as string;
    const rejected = await request(h.control).post(`/control/pairings/${b}/reject`).set('Authorization', CONTROL_AUTH);
    assert.equal(rejected.status, 200);
    assert.equal(rejected.body.state, 'rejected');
    const poll = await request(h.app).get(`/v1/pair/${b}`);
    assert.equal(poll.body.state, 'rejected');
    assert.equal(poll.body.token, undefined);

    for (const id of [a, b]) {
      assertError(await request(h.control).post(`/control/pairings/${id}/approve`).set('Authorization', CONTROL_AUTH), 409, 'conflict');
      assertError(await request(h.control).post(`/control/pairings/${id}/reject`).set('Authorization', CONTROL_AUTH), 409, 'conflict');
    }
    for (const path of ['/control/pairings/pair_nope/approve', '/control/pairings/pair_nope/reject']) {
      assertError(await request(h.control).post(path).set('Authorization', CONTROL_AUTH), 404, 'not_found');
    }
    const c = (await pair(h)).body.pairing_id as string;
    assertError(
      await request(h.control).post(`/control/pairings/${c}/approve`).set('Authorization', CONTROL_AUTH).send({ scopes: 'read' }),
      422,
      'invalid_request',
    );
    assertError(
      await request(h.control)
        .post(`/control/pairings/${c}/approve`)
        .set('Authorization', CONTROL_AUTH)
        .send({ scopes: ['delete'] }),
      422,
      'invalid_request',
    );
    assertError(
      await request(h.control).post(`/control/pairings/${c}/approve`).set('Authorization', CONTROL_AUTH).send({ other: 1 }),
      422,
      'invalid_request',
    );
    assertError(
      await request(h.control).post(`/control/pairings/${c}/reject`).set('Authorization', CONTROL_AUTH).send({ why: 'no' }),
      422,
      'invalid_request',
    );
    assertError(await request(h.control).get('/control/pairings'), 401, 'unauthorized');
  }));

test('unknown pairing id: 404 not_found', () =>
  withApp(async (h) => {
    assertError(await request(h.app).get('/v1/pair/pair_does-not-exist'), 404, 'not_found');
  }));

test('the API switch and the license still apply to the token-less pairing routes', () =>
  withApp(async (h) => {
    const id = (await pair(h)).body.pairing_id as string;
    h.deps.settings.update({ automation_api_enabled: false });
    assertError(await pair(h), 403, 'api_disabled');
    assertError(await request(h.app).get(`/v1/pair/${id}`), 403, 'api_disabled');
    h.deps.settings.update({ automation_api_enabled: true, license: 'none' });
    assertError(await pair(h), 402, 'license_required');
    assertError(await request(h.app).get(`/v1/pair/${id}`), 402, 'license_required');
    h.deps.settings.update({ license: 'pro' });
    // A bearer token is neither needed nor looked at.
    assert.equal((await request(h.app).get(`/v1/pair/${id}`).set('Authorization', 'Bearer nonsense')).status, 200);
  }));

test('more than 10 requests a minute from one address: 429 too_many_requests with Retry-After', () =>
  withApp(async (h) => {
    for (let i = 0; i < 10; i++) assert.equal((await pair(h, { client_name: `d${i}`, scopes: ['read'] })).status, 202);
    const res = await pair(h, { client_name: 'd10', scopes: ['read'] });
    assertError(res, 429, 'too_many_requests');
    assert.match(res.headers['retry-after'] ?? '', /^\d+$/);
    assert.ok(Number(res.headers['retry-after']) >= 1 && Number(res.headers['retry-after']) <= 60);
  }));

test('a restart forgets pairing requests (they live in memory)', () =>
  withApp(async (h) => {
    const id = (await pair(h)).body.pairing_id as string;
    await request(h.control).post('/control/restart').set('Authorization', CONTROL_AUTH).expect(204);
    assertError(await request(h.app).get(`/v1/pair/${id}`), 404, 'not_found');
  }));

test('the old routes /v1/pairings, /v1/pairings/{id} and /v1/mcp/client-token do not exist', () =>
  withApp(async (h) => {
    const auth = h.bearer(['read', 'record', 'write', 'delete'], { kind: 'first_party' });
    for (const path of ['/v1/pairings', '/v1/pairings/abc', '/v1/mcp/client-token']) {
      for (const method of ['get', 'post', 'delete', 'put', 'patch'] as const) {
        assertError(await request(h.app)[method](path).set('Authorization', auth), 404, 'not_found');
      }
    }
    const doc = await request(h.app).get('/openapi.json').set('Authorization', auth);
    const paths = Object.keys(doc.body.paths as object);
    assert.ok(paths.includes('/v1/pair/request') && paths.includes('/v1/pair/{id}'));
    for (const path of paths) assert.doesNotMatch(path, /\/v1\/pairings|client-token/);
  }));
