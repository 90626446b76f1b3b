/**
 * The gates and the scope rules, as a property: for every operation, random
 * settings and a random token (scopes, origin, kind, switched on or off,
 * known or not), the status the gateway gives is the one the spec's rules
 * predict. The prediction below is written from API.md (Authentication and
 * the endpoint tables), not from server/kernel/scopes.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import request from 'supertest';
import { OPERATIONS, type Operation } from '../operations.ts';
import { bearerToken } from './auth.ts';
import { testGateway } from '../testing/gateway.ts';
import type { TokenKind, TokenOrigin } from './store/tokens-repo.ts';

const SEED = Number(process.env['MAS_AUTH_SEED'] ?? 4242);
const RUNS = Number(process.env['MAS_AUTH_RUNS'] ?? 400);

type Gate = 'api_disabled' | 'license_required' | 'consumer_disabled' | 'unauthorized' | 'insufficient_scope' | 'pass';

/** API.md Authentication 2–4 and 9, and CONTROL.md Tokens (assistant baseline, paired never delete). */
function expectedGate(
  op: Operation,
  s: { api: boolean; license: 'pro' | 'none' | 'unverifiable' },
  t: null | { known: boolean; enabled: boolean; scopes: string[]; origin: TokenOrigin; kind: TokenKind },
): Gate {
  if (op.ungated === true) return 'pass';
  if (!s.api) return 'api_disabled';
  if (s.license === 'none') return 'license_required';
  if (op.scope === 'none') return 'pass';
  if (t === null || !t.known) return 'unauthorized';
  if (!t.enabled) return 'consumer_disabled';
  const held = new Set(t.scopes.filter((x) => ['read', 'record', 'write', 'delete'].includes(x)));
  if (t.kind === 'assistant') held.add('read').add('record');
  if (t.origin === 'paired') held.delete('delete');
  const grants = op.scope === 'read' ? held.has('read') || held.has('record') || held.has('write') : held.has(op.scope);
  return grants ? 'pass' : 'insufficient_scope';
}

const GATE_STATUS: Record<Exclude<Gate, 'pass'>, number> = {
  api_disabled: 403,
  license_required: 402,
  consumer_disabled: 403,
  unauthorized: 401,
  insufficient_scope: 403,
};

test('gates and scopes: the status matches the spec rules for every operation', async () => {
  const gw = testGateway();
  const ops = OPERATIONS as readonly Operation[];
  console.log(`auth property: seed ${SEED}, runs ${RUNS}`);
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ops),
        fc.record({ api: fc.boolean(), license: fc.constantFrom('pro' as const, 'none' as const, 'unverifiable' as const) }),
        fc.option(
          fc.record({
            known: fc.boolean(),
            enabled: fc.boolean(),
            scopes: fc.uniqueArray(fc.constantFrom('read', 'record', 'write', 'delete', 'admin', 'READ', ''), { maxLength: 5 }),
            origin: fc.constantFrom<TokenOrigin>('loopback', 'paired', 'lan'),
            kind: fc.constantFrom<TokenKind>('standard', 'first_party', 'assistant'),
          }),
          { nil: null },
        ),
        async (op, settings, tok) => {
          gw.deps.settings.update({ automation_api_enabled: settings.api, license: settings.license });
          let header: string | undefined;
          if (tok !== null) {
            if (tok.known) {
              const { token, record } = gw.deps.tokens.create(
                { name: 'prop', scopes: tok.scopes, origin: tok.origin, kind: tok.kind },
                new Date(),
              );
              if (!tok.enabled) gw.deps.tokens.setEnabled(record.id, false);
              header = `Bearer ${token}`;
            } else {
              header = 'Bearer mas_unknown-token-value';
            }
          }
          const path = op.path.replace('{section}', 'vad').replace(/\{[a-z_]+\}/g, 'missing-id');
          let req = request(gw.app)[op.method](path);
          if (header !== undefined) req = req.set('Authorization', header);
          const res = await req;
          const gate = expectedGate(op, settings, tok);
          const code = (res.body as { error?: { code?: string } }).error?.code;
          if (gate === 'pass') {
            assert.ok(
              !Object.keys(GATE_STATUS).includes(code ?? ''),
              `${op.method} ${path}: expected to pass the gates, got ${res.status} ${code}`,
            );
          } else {
            assert.equal(code, gate, `${op.method} ${path}: expected ${gate}, got ${res.status} ${code}`);
            assert.equal(res.status, GATE_STATUS[gate]);
          }
          // 503 is an answer too: recording start without any capture device.
          assert.ok(res.status < 500 || code === 'service_unavailable', `${op.method} ${path} → ${res.status}`);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    assert.deepEqual(gw.errors, []);
  } finally {
    gw.close();
  }
});

test('license "unverifiable" lets requests through and counts them in /health', async () => {
  const gw = testGateway();
  try {
    gw.deps.settings.update({ license: 'unverifiable' });
    const bearer = gw.bearer(['read']);
    for (let i = 0; i < 3; i++) assert.equal((await request(gw.app).get('/v1/whoami').set('Authorization', bearer)).status, 200);
    const health = await request(gw.app).get('/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.license.fail_open_total, 3);
    const who = await request(gw.app).get('/v1/whoami').set('Authorization', bearer);
    assert.equal(who.body.license_tier, 'unverifiable');
  } finally {
    gw.close();
  }
});

test('/health answers 200 without a token even with the API off and no license', async () => {
  const gw = testGateway();
  try {
    gw.deps.settings.update({ automation_api_enabled: false, license: 'none' });
    const res = await request(gw.app).get('/health');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['license', 'status', 'version', 'webhooks']);
  } finally {
    gw.close();
  }
});

test('"admin" parses to nothing: a token asked with only admin has no scope', async () => {
  const gw = testGateway();
  try {
    const admin = gw.token(['admin']);
    const res = await request(gw.app).get('/v1/meetings').set('Authorization', `Bearer ${admin}`);
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'insufficient_scope');
    const who = await request(gw.app)
      .get('/v1/whoami')
      .set('Authorization', `Bearer ${gw.token(['read', 'admin'])}`);
    assert.deepEqual(who.body.scopes, ['read']);
  } finally {
    gw.close();
  }
});

test('whoami reflects the caller', async () => {
  const gw = testGateway();
  try {
    const a = gw.deps.tokens.create({ name: 'a', scopes: ['write'] }, new Date());
    const b = gw.deps.tokens.create({ name: 'b', scopes: ['record'], kind: 'assistant' }, new Date());
    const ra = await request(gw.app).get('/v1/whoami').set('Authorization', `Bearer ${a.token}`);
    const rb = await request(gw.app).get('/v1/whoami').set('Authorization', `Bearer ${b.token}`);
    assert.equal(ra.body.token_id, a.record.id);
    assert.deepEqual(ra.body.scopes, ['write']);
    assert.equal(rb.body.token_id, b.record.id);
    assert.deepEqual(rb.body.scopes, ['read', 'record'], 'assistant baseline adds read and record');
    assert.equal(typeof ra.body.server_version, 'string');
  } finally {
    gw.close();
  }
});

test('switching a token off, revoking it or minting its replacement counts from the very next request (the token cache is cleared)', async () => {
  const gw = testGateway();
  try {
    const whoami = (token: string) => request(gw.app).get('/v1/whoami').set('Authorization', `Bearer ${token}`);
    const t = gw.deps.tokens.create({ name: 'app', scopes: ['read'] }, new Date());
    assert.equal((await whoami(t.token)).status, 200); // now in the cache
    assert.equal((await whoami(t.token)).status, 200);

    gw.deps.tokens.setEnabled(t.record.id, false);
    const off = await whoami(t.token);
    assert.equal(off.status, 403);
    assert.equal(off.body.error.code, 'consumer_disabled');
    gw.deps.tokens.setEnabled(t.record.id, true);
    assert.equal((await whoami(t.token)).status, 200);

    // Rotation, as the gateway does with its startup token: the old one goes, a new one comes.
    gw.deps.tokens.deleteByName('app');
    const next = gw.deps.tokens.create({ name: 'app', scopes: ['read'] }, new Date());
    assert.equal((await whoami(t.token)).status, 401);
    assert.equal((await whoami(next.token)).status, 200);

    assert.equal(gw.deps.tokens.delete(next.record.id), true);
    assert.equal((await whoami(next.token)).status, 401);
  } finally {
    gw.close();
  }
});

test('bearer header parsing', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer abc'), 'abc');
  assert.equal(bearerToken('Bearer  abc  '), 'abc');
  assert.equal(bearerToken('Bearer'), null);
  assert.equal(bearerToken('Bearer '), null);
  assert.equal(bearerToken('Basic abc'), null);
  assert.equal(bearerToken('Bearer a b'), null);
  assert.equal(bearerToken(undefined), null);
  assert.equal(bearerToken(`Bearer ${'x'.repeat(513)}`), null);
});

test('tokens are stored hashed: the raw value is nowhere in the database', () => {
  const gw = testGateway();
  try {
    const raw = gw.token(['read']);
    const rows = gw.db.prepare('SELECT * FROM tokens').all();
    assert.ok(!JSON.stringify(rows).includes(raw));
  } finally {
    gw.close();
  }
});
