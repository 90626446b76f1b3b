import { test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { RESET_SETTINGS } from '../kernel/store/settings-repo.ts';
import { AUTH, SECRET, assertEnvelope, withControl } from '../testing/control-app.ts';

// ── Security ────────────────────────────────────────────────────────────────

test('no secret, a wrong secret, or an API token: 401 in the API envelope, on every path', () =>
  withControl(async ({ gw, control }) => {
    for (const path of ['/control', '/control/settings', '/control/no-such-route']) {
      const none = await request(control).get(path);
      assertEnvelope(none, 401, 'unauthorized');
      assert.match(String(none.headers['www-authenticate']), /^Bearer /);
      assertEnvelope(await request(control).get(path).set('Authorization', `Bearer ${SECRET}x`), 401, 'unauthorized');
      assertEnvelope(
        await request(control)
          .get(path)
          .set('Authorization', gw.bearer(['read', 'write'])),
        401,
        'unauthorized',
      );
      assertEnvelope(await request(control).get(path).set('Authorization', SECRET), 401, 'unauthorized');
    }
  }));

test('the control secret is not an Automation API token', () =>
  withControl(async ({ gw }) => {
    assertEnvelope(await request(gw.app).get('/v1/whoami').set('Authorization', AUTH), 401, 'unauthorized');
  }));

// ── Discovery and routing ───────────────────────────────────────────────────

test('GET /control lists version 1 and exactly the implemented capabilities', () =>
  withControl(async ({ control }) => {
    const res = await request(control).get('/control').set('Authorization', AUTH);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      version: 1,
      capabilities: [
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
        'meeting-apps',
      ],
    });
  }));

test('unknown routes and methods: 404 envelope', () =>
  withControl(async ({ control }) => {
    assertEnvelope(await request(control).get('/nowhere').set('Authorization', AUTH), 404, 'not_found');
    assertEnvelope(await request(control).delete('/control/settings').set('Authorization', AUTH), 404, 'not_found');
  }));

test('bodies: malformed JSON and a wrong content type are 400, a missing body 422', () =>
  withControl(async ({ control }) => {
    const malformed = await request(control)
      .patch('/control/settings')
      .set('Authorization', AUTH)
      .set('Content-Type', 'application/json')
      .send('{"license":');
    assertEnvelope(malformed, 400, 'bad_request');
    const text = await request(control)
      .patch('/control/settings')
      .set('Authorization', AUTH)
      .set('Content-Type', 'text/plain')
      .send('license=pro');
    assertEnvelope(text, 400, 'bad_request');
    assertEnvelope(await request(control).patch('/control/settings').set('Authorization', AUTH), 422, 'invalid_request');
    assertEnvelope(await request(control).post('/control/tokens').set('Authorization', AUTH), 422, 'invalid_request');
  }));

// ── Settings ────────────────────────────────────────────────────────────────

test('settings: GET returns the whole object; PATCH a subset returns the whole object after it', () =>
  withControl(async ({ gw, control }) => {
    const got = await request(control).get('/control/settings').set('Authorization', AUTH);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, RESET_SETTINGS);

    const patched = await request(control)
      .patch('/control/settings')
      .set('Authorization', AUTH)
      .send({ license: 'none', local_webhook_targets: ['127.0.0.1:9000'] });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body, { ...RESET_SETTINGS, license: 'none', local_webhook_targets: ['127.0.0.1:9000'] });
    assert.equal(gw.deps.settings.get().license, 'none');

    const empty = await request(control).patch('/control/settings').set('Authorization', AUTH).send({});
    assert.equal(empty.status, 200);
    assert.equal(empty.body.license, 'none');
  }));

test('settings take effect on the API: switch off → 403 api_disabled, license none → 402', () =>
  withControl(async ({ gw, control }) => {
    const bearer = gw.bearer(['read']);
    await request(control).patch('/control/settings').set('Authorization', AUTH).send({ automation_api_enabled: false }).expect(200);
    assertEnvelope(await request(gw.app).get('/v1/whoami').set('Authorization', bearer), 403, 'api_disabled');
    assert.equal((await request(gw.app).get('/health')).status, 200);
    await request(control)
      .patch('/control/settings')
      .set('Authorization', AUTH)
      .send({ automation_api_enabled: true, license: 'none' })
      .expect(200);
    assertEnvelope(await request(gw.app).get('/v1/whoami').set('Authorization', bearer), 402, 'license_required');
  }));

test('settings: an unknown key or a wrong type is 422 and changes nothing', () =>
  withControl(async ({ gw, control }) => {
    for (const body of [
      { automation_api_enabled: 'yes' },
      { license: 'enterprise' },
      { lan_enabled: 1 },
      { local_webhook_targets: 'x:1' },
      { local_webhook_targets: ['no port'] },
      { unknown_setting: true },
      { license: 'pro', extra: 1 },
      [],
      'pro',
      null,
    ]) {
      const res = await request(control).patch('/control/settings').set('Authorization', AUTH).type('json').send(JSON.stringify(body));
      assertEnvelope(res, 422, 'invalid_request');
    }
    assert.deepEqual(gw.deps.settings.get(), RESET_SETTINGS);
  }));

// ── Tokens ──────────────────────────────────────────────────────────────────

test('tokens: create → 201 {token, token_id, scopes}; the token works on the API', () =>
  withControl(async ({ gw, control }) => {
    const res = await request(control)
      .post('/control/tokens')
      .set('Authorization', AUTH)
      .send({ scopes: ['read', 'write'], name: 'ci' });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['scopes', 'token', 'token_id']);
    assert.deepEqual(res.body.scopes, ['read', 'write']);
    const who = await request(gw.app).get('/v1/whoami').set('Authorization', `Bearer ${res.body.token}`);
    assert.equal(who.status, 200);
    assert.equal(who.body.token_id, res.body.token_id);
    assert.deepEqual(who.body.scopes, ['read', 'write']);
    const record = gw.deps.tokens.get(res.body.token_id as string);
    assert.equal(record?.name, 'ci');
    assert.equal(record?.origin, 'loopback');
    assert.equal(record?.kind, 'standard');
  }));

test('tokens: scopes parse as the API parses them', () =>
  withControl(async ({ control }) => {
    const create = async (body: object) =>
      (await request(control).post('/control/tokens').set('Authorization', AUTH).send(body).expect(201)).body.scopes;
    assert.deepEqual(await create({ scopes: ['admin'] }), []);
    assert.deepEqual(await create({ scopes: [] }), []);
    assert.deepEqual(await create({ scopes: ['delete', 'read', 'read', 'READ'] }), ['read', 'delete']);
    assert.deepEqual(await create({ scopes: ['read', 'delete'], origin: 'paired' }), ['read']);
    assert.deepEqual(await create({ scopes: ['write'], kind: 'assistant' }), ['read', 'record', 'write']);
    assert.deepEqual(await create({ scopes: ['read'], origin: 'lan', kind: 'first_party' }), ['read']);
  }));

test('tokens: a malformed create body is 422', () =>
  withControl(async ({ control }) => {
    for (const body of [
      {},
      { scopes: 'read' },
      { scopes: [1] },
      { scopes: ['read'], origin: 'internet' },
      { scopes: ['read'], kind: 'root' },
      { scopes: ['read'], name: '' },
      { scopes: ['read'], name: 5 },
      { scopes: ['read'], expires: 10 },
    ]) {
      assertEnvelope(await request(control).post('/control/tokens').set('Authorization', AUTH).send(body), 422, 'invalid_request');
    }
  }));

test('tokens: disabled → 403 consumer_disabled, re-enabled → works, deleted → 401; unknown ids → 404', () =>
  withControl(async ({ gw, control }) => {
    const created = (
      await request(control)
        .post('/control/tokens')
        .set('Authorization', AUTH)
        .send({ scopes: ['read'] })
        .expect(201)
    ).body;
    const bearer = `Bearer ${created.token}`;

    const off = await request(control).patch(`/control/tokens/${created.token_id}`).set('Authorization', AUTH).send({ enabled: false });
    assert.equal(off.status, 200);
    assert.equal(off.body.id, created.token_id);
    assert.equal(off.body.enabled, false);
    assert.equal('hash' in off.body, false);
    assertEnvelope(await request(gw.app).get('/v1/whoami').set('Authorization', bearer), 403, 'consumer_disabled');

    await request(control).patch(`/control/tokens/${created.token_id}`).set('Authorization', AUTH).send({ enabled: true }).expect(200);
    await request(gw.app).get('/v1/whoami').set('Authorization', bearer).expect(200);

    assertEnvelope(
      await request(control).patch(`/control/tokens/${created.token_id}`).set('Authorization', AUTH).send({ enabled: 'no' }),
      422,
      'invalid_request',
    );
    assertEnvelope(
      await request(control).patch(`/control/tokens/${created.token_id}`).set('Authorization', AUTH).send({ enabled: false, name: 'x' }),
      422,
      'invalid_request',
    );

    const del = await request(control).delete(`/control/tokens/${created.token_id}`).set('Authorization', AUTH);
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    assertEnvelope(await request(gw.app).get('/v1/whoami').set('Authorization', bearer), 401, 'unauthorized');

    assertEnvelope(await request(control).delete(`/control/tokens/${created.token_id}`).set('Authorization', AUTH), 404, 'not_found');
    assertEnvelope(
      await request(control).patch('/control/tokens/tok_nope').set('Authorization', AUTH).send({ enabled: false }),
      404,
      'not_found',
    );
  }));
