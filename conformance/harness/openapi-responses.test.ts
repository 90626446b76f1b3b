import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManifestResponses } from './openapi-responses.ts';

const manifest = {
  openapi: '3.1.1',
  paths: {
    '/v1/things/{id}': {
      get: {
        responses: {
          200: { description: 'a thing', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          404: { $ref: '#/components/responses/NotFound' },
        },
      },
      put: { responses: { '2XX': { description: 'ok' }, default: { description: 'any error' } } },
      delete: {},
    },
    '/v1/things/special': { get: { responses: { 200: { description: 'text', content: { 'text/plain': {} } } } } },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: { id: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
        required: ['id'],
        additionalProperties: false,
      },
      Error: { type: 'object', properties: { error: { type: 'object' } }, required: ['error'] },
    },
    responses: {
      NotFound: { description: 'not found', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  },
};

test('operations are found by method and path, literal segments before parameters', () => {
  const m = new ManifestResponses(manifest);
  assert.equal(m.find('GET', '/v1/things/special')?.template, '/v1/things/special');
  assert.equal(m.find('GET', '/v1/things/abc?x=1')?.template, '/v1/things/{id}');
  assert.equal(m.find('POST', '/v1/things/abc'), null);
  assert.ok(m.hasPath('/v1/things/abc'));
  assert.equal(m.find('GET', '/v1/other'), null);
});

test('statuses: exact, by range, by default, undeclared, and an operation without responses', () => {
  const m = new ManifestResponses(manifest);
  const get = m.find('GET', '/v1/things/a')!;
  assert.deepEqual(m.status(get, 200), { kind: 'declared', key: '200' });
  assert.deepEqual(m.status(get, 500), { kind: 'undeclared', declared: ['200', '404'] });
  const put = m.find('PUT', '/v1/things/a')!;
  assert.deepEqual(m.status(put, 204), { kind: 'declared', key: '2XX' });
  assert.deepEqual(m.status(put, 409), { kind: 'declared', key: 'default' });
  assert.deepEqual(m.status(m.find('DELETE', '/v1/things/a')!, 200), { kind: 'no-responses' });
});

test('bodies: validated against the declared schema through $refs, with formats; other media types and gaps', () => {
  const m = new ManifestResponses(manifest);
  const get = m.find('GET', '/v1/things/a')!;
  assert.deepEqual(m.body(get, '200', 'application/json; charset=utf-8', '{"id":"a","at":"2026-01-01T00:00:00Z"}'), { kind: 'valid' });
  const extra = m.body(get, '200', 'application/json', '{"id":"a","colour":"red"}');
  assert.equal(extra.kind, 'invalid');
  const badFormat = m.body(get, '200', 'application/json', '{"id":"a","at":"yesterday"}');
  assert.equal(badFormat.kind, 'invalid');
  assert.equal(m.body(get, '200', 'application/json', '{"id":').kind, 'invalid');
  assert.deepEqual(m.body(get, '404', 'application/json', '{"error":{}}'), { kind: 'valid' });
  assert.equal(m.body(get, '404', 'application/json', '{"message":"x"}').kind, 'invalid');
  assert.deepEqual(m.body(get, '200', 'text/html', '<p>'), { kind: 'media-type', mediaType: 'text/html', declared: ['application/json'] });
  assert.equal(m.body(m.find('GET', '/v1/things/special')!, '200', 'text/plain', 'hello').kind, 'unchecked');
  const gaps = m.gaps().map((g) => `${g.op.method} ${g.op.template}: ${g.why}`);
  assert.deepEqual(gaps.sort(), [
    'DELETE /v1/things/{id}: no responses declared',
    'GET /v1/things/special: 200 text/plain declares no schema',
    'PUT /v1/things/{id}: 2XX declares no content',
  ]);
});
