/**
 * The operations table, the routes really served, the spec's endpoint tables
 * and /openapi.json must agree. If one moves, this file fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OPERATIONS, type Operation } from './operations.ts';
import { wireHandlers } from './handlers.ts';
import type { ContextFor, HandlerFor, HandlersFor } from './http-types.ts';
import type { JobsDeps } from './features/jobs/handlers.ts';
import type { MeetingsDeps } from './features/meetings/handlers.ts';
import { ALL_SCOPES, testGateway } from './testing/gateway.ts';

const API_MD = readFileSync(new URL('../docs/spec/API.md', import.meta.url), 'utf8');
const ops = OPERATIONS as readonly Operation[];

/** Method, path and scope column of every row of the spec's endpoint tables. */
function specEndpoints(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of API_MD.split('\n')) {
    const m = /^\| (GET|POST|PUT|PATCH|DELETE) \| (\/[^ |]*) \| ([^|]+) \|/.exec(line);
    // "read floor" (webhook routes) is the read minimum plus per-route rules.
    if (m !== null) rows.set(`${m[1]} ${m[2]}`, m[3]!.trim().replace(/^read floor.*$/, 'read'));
  }
  return rows;
}

test('every table row has a handler, and there is no handler without a row', () => {
  const ids = ops.map((o) => o.operationId);
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  const gw = testGateway();
  try {
    assert.deepEqual(Object.keys(wireHandlers(gw.deps.features)).sort(), [...ids].sort());
  } finally {
    gw.close();
  }
});

test("a handler reaches its feature's services and nothing else: what its feature did not declare does not compile", () => {
  // Each @ts-expect-error below fails `npm run typecheck` if the line compiles.
  const jobs: Pick<HandlersFor<'getJob', JobsDeps>, 'getJob'> = {
    getJob: (ctx) => {
      // @ts-expect-error the jobs feature did not ask for the webhooks service
      // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the compile-time check is the statement itself
      ctx.deps.webhooks;
      // @ts-expect-error it asked for meetings.exists only, not the rest of the meetings service
      // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the compile-time check is the statement itself
      ctx.deps.meetings.delete;
      return { status: 200, json: jobDtoStandIn() };
    },
  };
  const meetings: HandlerFor<'getMeeting', MeetingsDeps> = (ctx) => {
    // @ts-expect-error the meetings feature did not ask for the jobs service
    // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the compile-time check is the statement itself
    ctx.deps.jobs;
    return { status: 200, json: ctx.deps.meetings.get(ctx.params.id) };
  };
  // The router hands each handler its own feature's object: at run time, too, there is nothing else in reach.
  const gw = testGateway();
  try {
    const wired = wireHandlers(gw.deps.features);
    assert.deepEqual(Object.keys(wired.getJob.deps as object).sort(), [
      'bus',
      'checkRecognizer',
      'importBudget',
      'jobs',
      'media',
      'meetings',
    ]);
    assert.deepEqual(Object.keys(wired.getMeeting.deps as object), ['meetings']);
  } finally {
    gw.close();
  }
  for (const f of [jobs.getJob, meetings]) assert.equal(typeof f, 'function');
});

/** A JobDto for the type checks above (never called). */
function jobDtoStandIn() {
  return {
    id: 'job_1',
    kind: 'import' as const,
    state: 'queued' as const,
    stage: 'waiting' as const,
    progress: 0,
    meeting_id: null,
    is_retryable: false,
    error: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    finished_at: null,
    attempts: 1,
  };
}

test('handlers are typed by their row: what a row does not declare does not compile', () => {
  // Each @ts-expect-error below fails `npm run typecheck` if the line compiles.
  const typed: HandlerFor<'listMeetings', unknown> = (ctx) => {
    const limit: number = ctx.query.limit; // clampedInt parses to a number
    // @ts-expect-error listMeetings declares no path parameter
    // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the compile-time check is the statement itself
    ctx.params.id;
    return { status: 200, json: { meetings: [], total: 0, limit, offset: 0 } };
  };
  const body = (ctx: ContextFor<'renameMeeting', unknown>): string => ctx.body.title; // the body schema's output
  // @ts-expect-error a status the row does not document
  const created: HandlerFor<'listMeetings', unknown> = () => ({ status: 201, json: { meetings: [], total: 0, limit: 1, offset: 0 } });
  // @ts-expect-error a reply missing a field of the response schema
  const short: HandlerFor<'getJob', unknown> = () => ({ status: 200, json: { id: 'job_1' } });
  for (const f of [typed, body, created, short]) assert.equal(typeof f, 'function');
});

test('every row is an endpoint of API.md with the scope the spec states', () => {
  const spec = specEndpoints();
  assert.equal(spec.size, 43, 'the spec lists 43 operations');
  for (const op of ops) {
    const key = `${op.method.toUpperCase()} ${op.path}`;
    assert.ok(spec.has(key), `${key} is not an endpoint of API.md`);
    assert.equal(op.scope, spec.get(key), `scope of ${key}`);
  }
});

test('/openapi.json is a valid OpenAPI 3.1 document describing exactly the table', async () => {
  const gw = testGateway();
  try {
    const res = await request(gw.app)
      .get('/openapi.json')
      .set('Authorization', gw.bearer(['read']));
    assert.equal(res.status, 200);
    const doc = res.body as { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    const result = await new Validator().validate(doc);
    assert.deepEqual(result, { valid: true });

    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    assert.deepEqual(documented.sort(), ops.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort());
    for (const op of ops) {
      const entry = doc.paths[op.path]![op.method]!;
      assert.equal(entry['x-service-required-scope'], op.scope);
      assert.equal(entry['x-service-read-only'], op.readOnly);
      assert.equal(entry['x-service-idempotent'], op.idempotent);
      assert.equal(entry['x-service-destructive'], op.destructive);
    }
  } finally {
    gw.close();
  }
});

test('every row is served: no "no route" 404 for any method and path of the table', async () => {
  const gw = testGateway();
  try {
    const bearer = gw.bearer(ALL_SCOPES);
    for (const op of ops) {
      const path = op.path.replace('{section}', 'vad').replace(/\{[a-z_]+\}/g, 'does-not-exist');
      const res = await request(gw.app)[op.method](path).set('Authorization', bearer);
      const code = (res.body as { error?: { code?: string } }).error?.code;
      assert.ok(res.status < 500 || code === 'service_unavailable', `${op.method} ${path} → ${res.status}`);
      if (res.status === 404) assert.doesNotMatch((res.body as { error: { message: string } }).error.message, /^no route/);
    }
    assert.deepEqual(gw.errors, []);
  } finally {
    gw.close();
  }
});

test('an unknown path is 404 not_found in the envelope; a known path with another method lists Allow', async () => {
  const gw = testGateway();
  try {
    const bearer = gw.bearer(ALL_SCOPES);
    const unknown = await request(gw.app).get('/v1/nothing-here').set('Authorization', bearer);
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(unknown.body.error.code, 'not_found');

    const removed = await request(gw.app).post('/v1/meetings').set('Authorization', bearer).send({ title: 'x' });
    assert.equal(removed.status, 404, 'there is no meeting-create route');
    assert.equal(removed.headers['allow'], 'GET, HEAD, OPTIONS');

    const options = await request(gw.app).options('/v1/meetings/abc');
    assert.equal(options.status, 204);
    assert.equal(options.headers['allow'], 'GET, PATCH, DELETE, HEAD, OPTIONS');

    for (const path of ['/v1/pairings', '/v1/mcp/client-token', '/v1/config', '/v1/models/x', '/V1/meetings']) {
      const res = await request(gw.app).get(path).set('Authorization', bearer);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, 'not_found');
    }
  } finally {
    gw.close();
  }
});
