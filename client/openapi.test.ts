/**
 * The committed OpenAPI document and the client's generated types must be
 * exactly what the gateway serves and what openapi-typescript makes of it.
 * On failure: npm run openapi:generate, then review the diff.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { testGateway } from '../server/testing/gateway.ts';
import { SUBSCRIBABLE_EVENTS } from '../server/features/webhooks/event-catalog.ts';
import {
  DOCUMENT_PATH,
  ROUTES_PATH,
  SPEC_VALUES_PATH,
  TYPES_PATH,
  documentText,
  routesText,
  specValuesText,
  typesText,
} from './generate.ts';

const committed = readFileSync(DOCUMENT_PATH, 'utf8');

test('docs/openapi.json is what GET /openapi.json serves', async () => {
  assert.equal(committed, documentText(), 'docs/openapi.json is stale: run npm run openapi:generate');
  const gw = testGateway();
  try {
    const res = await request(gw.app)
      .get('/openapi.json')
      .set('Authorization', gw.bearer(['read']));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, JSON.parse(committed));
  } finally {
    gw.close();
  }
});

test('client/openapi-types.ts is what openapi-typescript generates from the committed document', async () => {
  assert.equal(
    readFileSync(TYPES_PATH, 'utf8'),
    await typesText(committed),
    'client/openapi-types.ts is stale: run npm run openapi:generate',
  );
  assert.equal(readFileSync(ROUTES_PATH, 'utf8'), routesText(committed), 'client/routes.ts is stale: run npm run openapi:generate');
  assert.equal(
    readFileSync(SPEC_VALUES_PATH, 'utf8'),
    specValuesText(committed),
    'client/spec-values.ts is stale: run npm run openapi:generate',
  );
});

interface Doc {
  servers: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  info: { license?: unknown; contact?: unknown };
  paths: Record<
    string,
    Record<
      string,
      { description?: string; tags: string[]; responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> }
    >
  >;
  webhooks: Record<string, { post: { parameters: { name: string; in: string }[] } }>;
}

test('the document carries what tools need: servers, tags, descriptions, error code enums, SSE waits, webhooks', () => {
  const doc = JSON.parse(committed) as Doc;
  assert.deepEqual(
    doc.servers.map((s) => s.url),
    ['http://127.0.0.1:8420', 'https://{host}:8421'],
  );
  assert.ok(doc.info.license !== undefined && doc.info.contact !== undefined);
  const tagNames = new Set(doc.tags.map((t) => t.name));
  let waits = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      assert.ok((op.description ?? '').length > 20, `${method} ${path} has a description`);
      for (const tag of op.tags) assert.ok(tagNames.has(tag), `tag ${tag} is declared`);
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const schema = response.content!['application/json']!.schema as {
          allOf: { properties?: { error: { properties: { code: { enum: string[] } } } } }[];
        };
        assert.ok(schema.allOf[1]!.properties!.error.properties.code.enum.length > 0, `${method} ${path} ${status} names its codes`);
      }
      if (path.endsWith('/wait')) {
        waits += 1;
        assert.ok(op.responses['200']!.content!['text/event-stream'] !== undefined, `${path} is text/event-stream`);
      }
    }
  }
  assert.equal(waits, 3);
  const pause = doc.paths['/v1/jobs/{id}/pause']!['post']!.responses['409']!.content!['application/json']!.schema as {
    allOf: { properties?: { error: { properties: { code: { enum: string[] } } } } }[];
  };
  assert.ok(pause.allOf[1]!.properties!.error.properties.code.enum.includes('import_not_pausable'));
  for (const event of SUBSCRIBABLE_EVENTS) {
    const hook = doc.webhooks[event];
    assert.ok(hook !== undefined, `webhooks has ${event}`);
    assert.deepEqual(
      hook.post.parameters.map((p) => `${p.in}:${p.name}`),
      ['header:X-Service-Signature', 'header:X-Service-Timestamp'],
    );
  }
});
