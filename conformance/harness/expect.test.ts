import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import * as x from './expect.ts';
import { HttpResult } from './http.ts';
import { lookalikeId } from './probes.ts';
import { curlLine, shellQuote } from './curl.ts';
import { Secrets } from './secrets.ts';

const res = (status: number, body: string, type = 'application/json'): HttpResult =>
  new HttpResult({
    status,
    headers: new Headers({ 'content-type': type }),
    text: body,
    bytes: body.length,
    exchange: {
      seq: 1,
      channel: 'api',
      startedAt: '',
      durationMs: 0,
      request: { method: 'GET', url: 'http://x/', headers: {} },
      curl: 'curl',
    },
  });

test('status, error and envelope verdicts name what was expected and what came', () => {
  assert.equal(x.status(res(200, '{}'), 200, 204).ok, true);
  const v = x.error(res(404, '{"error":{"code":"not_found","message":"m"}}'), 403, 'insufficient_scope');
  assert.equal(v.ok, false);
  assert.deepEqual(v.expected, ['403 {"error": {"code": "insufficient_scope", "message": …}}']);
  assert.match(v.actual, /^404 \(application\/json\) \{"error"/);
  assert.equal(x.envelope(res(500, '{"error":{"code":"internal"}}')).ok, false, 'message missing');
  assert.equal(x.envelope(res(500, 'oops', 'text/plain')).ok, false);
  assert.equal(x.refused(res(422, '{"error":{"code":"invalid_request","message":""}}')).ok, true);
  assert.equal(x.refused(res(500, '{"error":{"code":"internal","message":""}}')).ok, false);
  assert.equal(x.notAuthRefused(res(403, '{"error":{"code":"not_prearmed","message":""}}')).ok, true);
  assert.equal(x.notAuthRefused(res(403, '{"error":{"code":"insufficient_scope","message":""}}')).ok, false);
  assert.equal(x.json(res(200, '{}', 'application/problem+json')).ok, true);
  assert.equal(x.json(res(200, '{', 'application/json')).ok, false);
});

test('fields, timestamps and deep equality', () => {
  assert.equal(x.fields({ a: 'x', b: 2, c: null }, { a: 'string', b: 'integer', c: 'string?', d: 'number?' }).ok, true);
  const v = x.fields({ a: 1 }, { a: 'string', b: 'boolean' });
  assert.match(v.actual, /a is integer 1, not string; b missing/);
  assert.ok(x.isTimestamp('2026-11-20T09:00:00.000Z') && x.isTimestamp('2026-11-20T09:00:00+02:00') && !x.isTimestamp('yesterday'));
  assert.ok(x.deepEqual({ a: [1, { b: 2 }], c: undefined }, { a: [1, { b: 2 }] }));
  assert.ok(x.containsString({ a: [{ b: 'the text here' }] }, 'text'));
  assert.equal(x.firstDifference('abc', 'abd'), 2);
});

test('lookalike ids keep the form of an id and never equal it', () => {
  fc.assert(
    fc.property(fc.oneof(fc.uuid(), fc.stringMatching(/^[a-z]{3}_[A-Za-z0-9]{4,20}$/), fc.stringMatching(/^\d{1,9}$/)), (id) => {
      const l = lookalikeId(id);
      assert.notEqual(l, id);
      assert.equal(l.replace(/[0-9]/g, '0').replace(/[a-z]/g, 'a').replace(/[A-Z]/g, 'A').length, l.length);
      if (/^[0-9a-f-]{36}$/.test(id)) assert.match(l, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      if (/^[0-9a-f]{8}-[0-9a-f]{4}-4/.test(id)) assert.equal(l[14], '4');
    }),
  );
});

test('curl lines quote for the shell and keep secrets as variables', () => {
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  const secrets = new Secrets();
  secrets.add('s3cret', '$MAS_TOKEN');
  const line = curlLine({
    method: 'PUT',
    url: 'http://x/v1/a?b=c&d=e',
    headers: secrets.redactHeaders({ authorization: 'Bearer s3cret' }),
    body: { text: '{"a":"b c"}' },
  });
  assert.equal(line, `curl -sS -i -X PUT 'http://x/v1/a?b=c&d=e' -H "authorization: Bearer $MAS_TOKEN" --data-binary '{"a":"b c"}'`);
});
