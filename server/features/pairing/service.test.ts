/**
 * The pairing state machine and its limits, with a hand-driven clock and an
 * in-memory token store. The HTTP side is in server/features/pairing/handlers.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../kernel/errors.ts';
import { openDatabase } from '../../kernel/store/database.ts';
import { TokensRepo } from '../../kernel/store/tokens-repo.ts';
import { tableOf } from '../../kernel/state-machine.ts';
import { PAIRING_LIMITS, PAIRING_MACHINE, PairingService, pairableScopes } from './service.ts';

function setup() {
  let now = Date.parse('2026-11-20T09:00:00.000Z');
  const db = openDatabase(':memory:');
  const tokens = new TokensRepo(db);
  const service = new PairingService({ clock: { now: () => new Date(now) }, tokens });
  return {
    service,
    tokens,
    advance(ms: number) {
      now += ms;
    },
    close: () => db.close(),
  };
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err.code;
  }
  assert.fail('no error');
}

test('the pairing table, pair by pair: only pending moves (null: refused, 409 conflict)', () => {
  const ended = { approve: null, reject: null, expire: null };
  assert.deepEqual(tableOf(PAIRING_MACHINE), {
    pending: { approve: 'approved', reject: 'rejected', expire: 'expired' },
    approved: ended,
    rejected: ended,
    expired: ended,
  });
});

test('scopes parse like tokens: unknown names drop, delete is never granted', () => {
  assert.deepEqual(pairableScopes(['write', 'admin', 'read', 'delete', 'read', 7]), ['read', 'write']);
  assert.deepEqual(pairableScopes(['delete']), []);
});

test('request → pending; unguessable ids; approve mints a paired standard token shown on the first poll only', () => {
  const s = setup();
  try {
    const r = s.service.request({ client_name: 'Phone', scopes: ['read', 'record', 'delete', 'admin'] }, '192.168.1.7');
    assert.equal(r.state, 'pending');
    assert.deepEqual(r.scopes, ['read', 'record']);
    assert.match(r.id, /^pair_[A-Za-z0-9_-]{32}$/); // 24 random bytes = 192 bits
    assert.notEqual(s.service.request({ client_name: 'Phone', scopes: ['read'] }, '192.168.1.7').id, r.id);

    assert.equal(s.service.poll(r.id).token, null);
    const approved = s.service.approve(r.id);
    assert.equal(approved.state, 'approved');
    const first = s.service.poll(r.id);
    assert.ok(first.token !== null);
    const record = s.tokens.authenticate(first.token);
    assert.deepEqual(record && { name: record.name, scopes: record.scopes, origin: record.origin, kind: record.kind }, {
      name: 'Phone',
      scopes: ['read', 'record'],
      origin: 'paired',
      kind: 'standard',
    });
    assert.equal(first.record.token_id, record?.id);
    assert.equal(s.service.poll(r.id).token, null);
    assert.equal(s.service.poll(r.id).record.state, 'approved');
  } finally {
    s.close();
  }
});

test('approve may narrow, never widen, and never grants delete; nothing left is 422', () => {
  const s = setup();
  try {
    const r = s.service.request({ client_name: 'Tablet', scopes: ['read', 'write'] }, '10.0.0.2');
    assert.equal(
      code(() => s.service.approve(r.id, ['record', 'delete'])),
      'invalid_request',
    );
    const approved = s.service.approve(r.id, ['write', 'record', 'delete']);
    assert.deepEqual(approved.granted, ['write']);
    assert.deepEqual(s.tokens.authenticate(s.service.poll(r.id).token!)?.scopes, ['write']);
  } finally {
    s.close();
  }
});

test('a request whose scopes parse to nothing is 422', () => {
  const s = setup();
  try {
    assert.equal(
      code(() => s.service.request({ client_name: 'x', scopes: ['admin', 'delete'] }, '10.0.0.1')),
      'invalid_request',
    );
    assert.equal(
      code(() => s.service.request({ client_name: 'x', scopes: [] }, '10.0.0.1')),
      'invalid_request',
    );
  } finally {
    s.close();
  }
});

test('reject, and answering twice: 409 conflict; unknown ids 404', () => {
  const s = setup();
  try {
    const r = s.service.request({ client_name: 'Laptop', scopes: ['read'] }, '10.0.0.3');
    assert.equal(s.service.reject(r.id).state, 'rejected');
    assert.equal(s.service.poll(r.id).record.state, 'rejected');
    assert.equal(s.service.poll(r.id).token, null);
    assert.equal(
      code(() => s.service.approve(r.id)),
      'conflict',
    );
    assert.equal(
      code(() => s.service.reject(r.id)),
      'conflict',
    );
    assert.equal(
      code(() => s.service.poll('pair_nope')),
      'not_found',
    );
    assert.equal(
      code(() => s.service.approve('pair_nope')),
      'not_found',
    );
    assert.equal(
      code(() => s.service.reject('pair_nope')),
      'not_found',
    );
  } finally {
    s.close();
  }
});

test('pending requests expire after 10 minutes; ended ones are forgotten an hour later', () => {
  const s = setup();
  try {
    const r = s.service.request({ client_name: 'Phone', scopes: ['read'] }, '10.0.0.4');
    s.advance(PAIRING_LIMITS.pendingTtlMs - 1);
    assert.equal(s.service.poll(r.id).record.state, 'pending');
    s.advance(1);
    assert.equal(s.service.poll(r.id).record.state, 'expired');
    assert.equal(
      code(() => s.service.approve(r.id)),
      'conflict',
    );
    assert.deepEqual(s.service.list(), [], 'the application list leaves expired requests out');
    s.advance(PAIRING_LIMITS.endedRetentionMs);
    assert.equal(
      code(() => s.service.poll(r.id)),
      'not_found',
    );
  } finally {
    s.close();
  }
});

test('a token nobody collected is deleted when its request is forgotten', () => {
  const s = setup();
  try {
    const r = s.service.request({ client_name: 'Phone', scopes: ['read'] }, '10.0.0.5');
    const approved = s.service.approve(r.id);
    assert.ok(s.tokens.get(approved.token_id!) !== null);
    s.advance(PAIRING_LIMITS.endedRetentionMs);
    s.service.list();
    assert.equal(s.tokens.get(approved.token_id!), null);

    const collected = s.service.request({ client_name: 'Phone 2', scopes: ['read'] }, '10.0.0.5');
    const id = s.service.approve(collected.id).token_id!;
    s.service.poll(collected.id);
    s.advance(PAIRING_LIMITS.endedRetentionMs);
    s.service.list();
    assert.ok(s.tokens.get(id) !== null, 'a collected token stays');
  } finally {
    s.close();
  }
});

test('rate limits: 10 a minute per address (IPv4-mapped folded), 20 pending in all; 429 with Retry-After', () => {
  const s = setup();
  try {
    for (let i = 0; i < 10; i++)
      s.service.request({ client_name: `d${i}`, scopes: ['read'] }, i % 2 === 0 ? '10.0.0.9' : '::ffff:10.0.0.9');
    let err: unknown;
    try {
      s.service.request({ client_name: 'd10', scopes: ['read'] }, '10.0.0.9');
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'too_many_requests');
    assert.equal(err.status, 429);
    assert.equal(err.headers['Retry-After'], '60');

    s.advance(30_000);
    assert.equal(
      code(() => s.service.request({ client_name: 'x', scopes: ['read'] }, '10.0.0.9')),
      'too_many_requests',
    );
    s.advance(30_000);
    s.service.request({ client_name: 'again', scopes: ['read'] }, '10.0.0.9'); // the window has moved

    // 11 pending so far; 9 more from other addresses fill the 20.
    for (let i = 0; i < 9; i++) s.service.request({ client_name: `o${i}`, scopes: ['read'] }, `10.0.1.${i}`);
    try {
      s.service.request({ client_name: 'one too many', scopes: ['read'] }, '10.0.2.1');
      assert.fail('accepted a 21st pending request');
    } catch (e) {
      assert.ok(e instanceof ApiError && e.code === 'too_many_requests');
      // The oldest pending request expires 10 minutes after it was made, 1 minute ago.
      assert.equal(e.headers['Retry-After'], String(PAIRING_LIMITS.pendingTtlMs / 1000 - 60));
    }
    // Answering one frees a place.
    s.service.reject(s.service.list()[0]!.id);
    s.service.request({ client_name: 'now fits', scopes: ['read'] }, '10.0.2.1');
  } finally {
    s.close();
  }
});
