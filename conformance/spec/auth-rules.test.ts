import assert from 'node:assert/strict';
import { test } from 'node:test';
import { effectiveScopes, expectedAuth, implicatedClauses, parseScopes, satisfies } from './auth-rules.ts';
import { OPERATIONS, PROTECTED_OPERATIONS, fillPath, routeKey } from './operations.ts';

const op = (m: string, p: string) => OPERATIONS.find((o) => o.method === m && o.path === p)!;
const tok = (
  requested: string[],
  origin: 'loopback' | 'paired' | 'lan' = 'loopback',
  kind: 'standard' | 'first_party' | 'assistant' = 'standard',
) => ({ requested, origin, kind });

test("API.md's endpoint tables: 43 operations over 37 paths, 3 public", () => {
  assert.equal(OPERATIONS.length, 43);
  assert.equal(new Set(OPERATIONS.map((o) => o.path)).size, 37);
  assert.equal(OPERATIONS.length - PROTECTED_OPERATIONS.length, 3);
  assert.equal(new Set(OPERATIONS.map((o) => routeKey(o.method, o.path))).size, 43);
  assert.equal(routeKey('get', '/v1/meetings/{meeting_id}'), 'GET /v1/meetings/{}');
  assert.equal(
    fillPath('/v1/meetings/{id}/summary/operations/{operation_id}', { id: 'a b', operation_id: 'o' }),
    '/v1/meetings/a%20b/summary/operations/o',
  );
});

test('scope parsing, satisfaction and the assistant and paired rules', () => {
  assert.deepEqual(parseScopes(['admin', 'READ', 'write']), ['write']);
  assert.ok(satisfies('read', ['record']) && satisfies('read', ['write']) && !satisfies('read', ['delete']));
  assert.ok(!satisfies('delete', ['write', 'record', 'read']) && !satisfies('record', ['write']) && !satisfies('write', ['record']));
  assert.deepEqual(effectiveScopes(tok([], 'loopback', 'assistant')), ['read', 'record']);
  assert.deepEqual(effectiveScopes(tok(['read', 'delete'], 'paired')), ['read']);
  assert.deepEqual(effectiveScopes(tok(['read', 'delete'], 'lan')), ['read', 'delete']);
});

test('expected answers of the gates', () => {
  assert.deepEqual(expectedAuth(op('GET', '/v1/meetings'), tok(['delete'])), {
    kind: 'refused',
    status: 403,
    code: 'insufficient_scope',
    clause: 'auth.missing-scope.403',
  });
  assert.deepEqual(expectedAuth(op('GET', '/v1/meetings'), tok(['record'])), { kind: 'allowed' });
  assert.deepEqual(expectedAuth(op('DELETE', '/v1/meetings/{id}'), tok(['read', 'delete'], 'paired')).kind, 'refused');
  assert.deepEqual(expectedAuth(op('POST', '/v1/recording/start'), tok(['record'], 'lan')), {
    kind: 'refused',
    status: 403,
    code: 'not_prearmed',
    clause: 'recording.start.remote.403-not_prearmed',
  });
  assert.deepEqual(expectedAuth(op('POST', '/v1/recording/start'), tok(['record'], 'lan'), { remoteRecordingPrearmed: true }), {
    kind: 'allowed',
  });
  assert.deepEqual(expectedAuth(op('POST', '/v1/recording/start'), tok(['record'])), { kind: 'allowed' });
  assert.deepEqual(expectedAuth(op('DELETE', '/v1/webhooks/{id}'), tok(['read'])), { kind: 'allowed' }, 'the read floor');
});

test('a wrong answer names the general clauses it breaks', () => {
  assert.ok(implicatedClauses(op('GET', '/v1/meetings'), tok(['record'])).includes('auth.scope.record-satisfies-read'));
  assert.ok(implicatedClauses(op('GET', '/v1/meetings'), tok(['delete'])).includes('auth.scope.delete-implies-no-read'));
  assert.ok(implicatedClauses(op('DELETE', '/v1/meetings/{id}'), tok(['write'])).includes('auth.scope.delete-not-implied-by-write'));
  assert.ok(implicatedClauses(op('POST', '/v1/recording/start'), tok(['write'])).includes('auth.scope.record-not-implied-by-write'));
  assert.ok(implicatedClauses(op('PATCH', '/v1/meetings/{id}'), tok(['record'])).includes('auth.scope.write-not-implied-by-record'));
  assert.ok(implicatedClauses(op('GET', '/v1/meetings'), tok(['admin'])).includes('auth.scope.admin-parses-to-nothing'));
});
