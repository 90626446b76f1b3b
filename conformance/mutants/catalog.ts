/**
 * The mutants: each breaks one rule, and names the checks that must catch
 * it. `node conformance/mutants/run.ts` runs them against a conforming target.
 */
import { EventEmitter } from 'node:events';
import type { Mutant, ProxyRequest, ProxyResponse } from './proxy.ts';
import { answer, errorAnswer, jsonOf, withJson } from './proxy.ts';
import type { Relay } from './relay.ts';
import { deliveryRelay } from './relay.ts';

type Json = Record<string, unknown>;

const path = (req: ProxyRequest): string => req.url.pathname;
const isMeeting = (req: ProxyRequest): boolean => /^\/v1\/meetings\/[^/]+$/.test(path(req));

/** Edits the JSON body of 2xx answers on matching requests. */
function editJson(match: (req: ProxyRequest) => boolean, edit: (body: Json) => unknown): Mutant['response'] {
  return (req, res) => {
    if (!match(req) || res.status < 200 || res.status >= 300) return res;
    const body = jsonOf(res);
    if (body === null || typeof body !== 'object') return res;
    return withJson(res, edit(body as Json));
  };
}

/** Rewrites error answers: (status, code) → another status and code. */
function rewriteError(from: { status: number; code: string }, to: { status: number; code: string }): Mutant['response'] {
  return (_req, res) => {
    const code = (jsonOf(res) as { error?: { code?: string } } | undefined)?.error?.code;
    return res.status === from.status && code === from.code ? errorAnswer(to.status, to.code) : res;
  };
}

function renameKeys(value: unknown, map: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, map));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [map[k] ?? k, renameKeys(v, map)]));
  }
  return value;
}

function openapiEdit(edit: (doc: { openapi?: string; paths: Record<string, Record<string, Json>> }) => void): Mutant['response'] {
  return editJson(
    (req) => path(req) === '/openapi.json',
    (doc) => {
      edit(doc as { openapi?: string; paths: Record<string, Record<string, Json>> });
      return doc;
    },
  );
}

const pass = (req: ProxyRequest): ProxyRequest => req;

/** The hooks of a mutant that sends webhook deliveries through a relay (relay.ts). */
function relayed(relay: Relay): Pick<Mutant, 'request' | 'response'> {
  return { request: (req, tools) => relay.request(req, tools), response: (req, res) => relay.response(req, res) };
}

/** Pauses seen by the job-wait mutant (job id). */
const pauses = new EventEmitter();
/** Raw pairing tokens seen by the pairing mutant, by pairing id. */
const pairTokens = new Map<string, string>();

function sseAnswer(event: string, data: unknown): ProxyResponse {
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: Buffer.from(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
  };
}

export const MUTANTS: Mutant[] = [
  {
    name: 'health-requires-token',
    description: 'GET /health without a token answers 401',
    expect: { 'health/no-auth': 'FAIL' },
    request: (req) => (path(req) === '/health' && req.headers['authorization'] === undefined ? errorAnswer(401, 'unauthorized') : req),
  },
  {
    name: 'health-version-missing',
    description: 'the health body has no version',
    expect: { 'health/body-fields': 'FAIL', 'versioning/version-strings': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/health',
      ({ version: _v, ...rest }) => rest,
    ),
  },
  {
    name: 'health-counter-string',
    description: 'webhooks.events_dropped is a string',
    expect: { 'health/counters-integer': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/health',
      (b) => ({ ...b, webhooks: { ...(b.webhooks as Json), events_dropped: '0' } }),
    ),
  },
  {
    name: 'no-token-403',
    description: '401 unauthorized becomes 403 forbidden',
    expect: { 'auth/no-token': 'FAIL', 'auth/unknown-token': 'FAIL', 'openapi/scope-read': 'FAIL' },
    response: rewriteError({ status: 401, code: 'unauthorized' }, { status: 403, code: 'forbidden' }),
  },
  {
    name: 'scope-leak-404',
    description: '403 insufficient_scope becomes 404 not_found',
    expect: {
      'auth/scope-matrix': 'FAIL',
      'openapi/scope-read': 'FAIL',
      'auth/admin-parses-to-nothing': 'FAIL',
      'openapi/canonical': 'FAIL',
    },
    response: rewriteError({ status: 403, code: 'insufficient_scope' }, { status: 404, code: 'not_found' }),
  },
  {
    name: 'record-does-not-satisfy-read',
    description: 'a record-only token is refused on GET routes',
    expect: { 'auth/scope-matrix': 'FAIL', 'openapi/scope-read': 'FAIL' },
    request: async (req, t) => {
      if (
        req.method !== 'GET' ||
        path(req) === '/health' ||
        path(req).startsWith('/v1/pair/') ||
        req.headers['authorization'] === undefined
      )
        return req;
      const s = await t.scopesOf(req);
      return s.length === 1 && s[0] === 'record' ? errorAnswer(403, 'insufficient_scope') : req;
    },
  },
  {
    name: 'write-grants-delete',
    description: 'DELETE /v1/meetings/{id} succeeds for a token with write but no delete (nothing is deleted)',
    expect: { 'auth/scope-matrix': 'FAIL' },
    request: async (req, t) => {
      if (req.method !== 'DELETE' || !isMeeting(req)) return req;
      const s = await t.scopesOf(req);
      return s.includes('write') && !s.includes('delete') ? answer(200, { deleted: true }) : req;
    },
  },
  {
    name: 'assistant-without-record',
    description: 'whoami hides record from tokens that hold it without write (an assistant token asked for with [])',
    expect: { 'auth/assistant-baseline': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/whoami',
      (b) => ({ ...b, scopes: (b.scopes as string[]).filter((s) => s !== 'record' || (b.scopes as string[]).includes('write')) }),
    ),
  },
  {
    name: 'api-disabled-as-forbidden',
    description: '403 api_disabled is sent as 403 forbidden',
    expect: { 'auth/api-disabled': 'FAIL' },
    response: rewriteError({ status: 403, code: 'api_disabled' }, { status: 403, code: 'forbidden' }),
  },
  {
    name: 'license-as-403',
    description: '402 license_required is sent as 403',
    expect: { 'auth/license-required': 'FAIL' },
    response: rewriteError({ status: 402, code: 'license_required' }, { status: 403, code: 'license_required' }),
  },
  {
    name: 'consumer-disabled-as-401',
    description: '403 consumer_disabled is sent as 401 unauthorized',
    expect: { 'auth/consumer-disabled': 'FAIL' },
    response: rewriteError({ status: 403, code: 'consumer_disabled' }, { status: 401, code: 'unauthorized' }),
  },
  {
    name: 'whoami-admin',
    description: 'whoami lists an admin scope',
    expect: { 'auth/scope-four-only': 'FAIL', 'auth/admin-parses-to-nothing': 'FAIL', 'identity/whoami-reflects-caller': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/whoami',
      (b) => ({ ...b, scopes: [...(b.scopes as string[]), 'admin'] }),
    ),
  },
  {
    name: 'whoami-no-token-id',
    description: 'whoami has no token_id',
    expect: { 'identity/whoami-fields': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/whoami',
      ({ token_id: _t, ...rest }) => rest,
    ),
  },
  {
    name: 'envelope-without-message',
    description: 'error bodies lack error.message',
    expect: { 'errors/envelope-on-every-error': 'FAIL', 'errors/not-found-404': 'FAIL' },
    response: (_req, res) => {
      if (res.status < 400) return res;
      const b = jsonOf(res) as { error?: Json } | undefined;
      if (b?.error === undefined) return res;
      const { message: _m, ...rest } = b.error;
      return withJson(res, { error: rest });
    },
  },
  {
    name: 'json-as-text',
    description: 'JSON answers are labelled text/plain',
    expect: { 'format/json-content-type': 'FAIL' },
    response: (req, res) =>
      path(req).startsWith('/v1/meetings') && res.status === 200 && (res.headers['content-type'] ?? '').includes('json')
        ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' } }
        : res,
  },
  {
    name: 'camel-case',
    description: 'created_at and updated_at are createdAt and updatedAt',
    expect: { 'meetings/dto-fields': 'FAIL', 'format/snake-case-keys': 'FAIL' },
    response: editJson(
      (r) => path(r).startsWith('/v1/meetings'),
      (b) => renameKeys(b, { created_at: 'createdAt', updated_at: 'updatedAt' }),
    ),
  },
  {
    name: 'limit-unclamped',
    description: 'limit outside 1..200 is refused with 422',
    expect: { 'pagination/clamping': 'FAIL' },
    request: (req) => {
      const l = req.url.searchParams.get('limit');
      return (path(req) === '/v1/meetings' || path(req) === '/v1/search') && l !== null && (Number(l) > 200 || Number(l) < 1)
        ? errorAnswer(422, 'invalid_request')
        : req;
    },
  },
  {
    name: 'offset-ignored',
    description: 'offset is ignored',
    expect: { 'pagination/params': 'FAIL', 'pagination/clamping': 'FAIL' },
    request: (req) => {
      if (path(req) !== '/v1/meetings' && path(req) !== '/v1/search') return req;
      const url = new URL(req.url);
      url.searchParams.delete('offset');
      return { ...req, url };
    },
  },
  {
    name: 'default-limit-20',
    description: 'the default page size is 20',
    expect: { 'pagination/default-50': 'FAIL' },
    request: (req) => {
      if (path(req) !== '/v1/meetings' || req.url.searchParams.has('limit')) return req;
      const url = new URL(req.url);
      url.searchParams.set('limit', '20');
      return { ...req, url };
    },
  },
  {
    name: 'search-total',
    description: 'search answers carry a total',
    expect: { 'search/no-total': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/search',
      (b) => ({ ...b, total: (b.results as unknown[]).length }),
    ),
  },
  {
    name: 'search-empty-q-422',
    description: 'an empty q is 422',
    expect: { 'search/q-empty': 'FAIL', 'errors/bad-request-400': 'FAIL' },
    request: (req) => (path(req) === '/v1/search' && req.url.searchParams.get('q') === '' ? errorAnswer(422, 'invalid_request') : req),
  },
  {
    name: 'search-missing-q-200',
    description: 'a search without q answers 200 with no results',
    expect: { 'search/q-missing': 'FAIL' },
    request: (req) => (path(req) === '/v1/search' && !req.url.searchParams.has('q') ? answer(200, { results: [] }) : req),
  },
  {
    name: 'search-no-match-context',
    description: 'search results lack match_context',
    expect: { 'search/results-fields': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/search',
      (b) => ({ ...b, results: (b.results as Json[]).map(({ match_context: _m, ...rest }) => rest) }),
    ),
  },
  {
    name: 'list-without-total',
    description: 'the meeting list has no total',
    expect: { 'meetings/list-shape': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/meetings',
      ({ total: _t, ...rest }) => rest,
    ),
  },
  {
    name: 'title-501-truncated',
    description: 'a title over 500 characters is cut to 500 and accepted',
    expect: { 'meetings/rename-title-max-500': 'FAIL' },
    request: (req) => {
      if (req.method !== 'PATCH' || !isMeeting(req)) return req;
      const b = JSON.parse(req.body.toString('utf8')) as { title?: unknown };
      if (typeof b.title !== 'string' || b.title.length <= 500) return req;
      return { ...req, body: Buffer.from(JSON.stringify({ ...b, title: b.title.slice(0, 500) })) };
    },
  },
  {
    name: 'rename-ignored',
    description: 'PATCH /v1/meetings/{id} answers 200 but renames nothing',
    expect: { 'meetings/rename-applies': 'FAIL' },
    request: async (req, t) =>
      req.method === 'PATCH' && isMeeting(req) ? t.forward({ ...req, method: 'GET', body: Buffer.alloc(0) }) : req,
  },
  {
    name: 'title-optional',
    description: 'PATCH without a title answers 200',
    expect: { 'meetings/rename-title-required': 'FAIL' },
    request: (req) => (req.method === 'PATCH' && isMeeting(req) && !req.body.toString().includes('"title"') ? answer(200, {}) : req),
  },
  {
    name: 'delete-soft',
    description: 'DELETE /v1/meetings/{id} answers 200 and deletes nothing',
    expect: { 'meetings/delete-irreversible': 'FAIL', 'meetings/delete-cascade': 'FAIL' },
    request: (req) => (req.method === 'DELETE' && isMeeting(req) ? answer(200, { deleted: true }) : req),
  },
  {
    name: 'delete-files-refused',
    description: 'delete_files is refused with 422',
    expect: { 'meetings/delete-files-param': 'FAIL' },
    request: (req) => (req.method === 'DELETE' && req.url.searchParams.has('delete_files') ? errorAnswer(422, 'invalid_request') : req),
  },
  {
    name: 'transcript-drops-last-segment',
    description: 'the transcript loses its last segment',
    expect: { 'meetings/transcript-shape': 'FAIL' },
    response: editJson(
      (r) => path(r).endsWith('/transcript'),
      (b) => ({ ...b, segments: (b.segments as unknown[]).slice(0, -1) }),
    ),
  },
  {
    name: 'labels-optional',
    description: 'PUT speaker-labels without labels answers 200',
    expect: { 'meetings/speaker-labels-required': 'FAIL' },
    request: (req) => (path(req).endsWith('/speaker-labels') && !req.body.toString().includes('"labels"') ? answer(200, {}) : req),
  },
  {
    name: 'labels-refused',
    description: 'PUT speaker-labels is refused with 422',
    expect: { 'meetings/speaker-labels-accepts-map': 'FAIL' },
    request: (req) => (req.method === 'PUT' && path(req).endsWith('/speaker-labels') ? errorAnswer(422, 'invalid_request') : req),
  },
  {
    name: 'export-default-md',
    description: 'an export without format is the Markdown document',
    expect: { 'meetings/export-default-json': 'FAIL' },
    request: (req) => {
      if (!path(req).endsWith('/export') || req.url.searchParams.has('format')) return req;
      const url = new URL(req.url);
      url.searchParams.set('format', 'md');
      return { ...req, url };
    },
  },
  {
    name: 'export-without-summary',
    description: 'the JSON export leaves out the summary',
    expect: { 'meetings/export-json-shape': 'FAIL' },
    response: editJson(
      (r) => path(r).endsWith('/export'),
      ({ summary: _s, ...rest }) => rest,
    ),
  },
  {
    name: 'export-md-is-json',
    description: 'format=md answers the JSON export',
    expect: { 'meetings/export-md': 'FAIL' },
    request: (req) => {
      if (!path(req).endsWith('/export') || req.url.searchParams.get('format') !== 'md') return req;
      const url = new URL(req.url);
      url.searchParams.set('format', 'json');
      return { ...req, url };
    },
  },
  {
    name: 'export-txt-is-json',
    description: 'format=txt answers the JSON export',
    expect: { 'meetings/export-txt': 'FAIL' },
    request: (req) => {
      if (!path(req).endsWith('/export') || req.url.searchParams.get('format') !== 'txt') return req;
      const url = new URL(req.url);
      url.searchParams.set('format', 'json');
      return { ...req, url };
    },
  },
  {
    name: 'markdown-alias-refused',
    description: 'format=markdown is refused',
    expect: { 'meetings/export-alias-markdown': 'FAIL' },
    request: (req) =>
      path(req).endsWith('/export') && req.url.searchParams.get('format') === 'markdown' ? errorAnswer(422, 'invalid_request') : req,
  },
  {
    name: 'text-alias-is-md',
    description: 'format=text answers the Markdown document',
    expect: { 'meetings/export-alias-text': 'FAIL' },
    request: (req) => {
      if (!path(req).endsWith('/export') || req.url.searchParams.get('format') !== 'text') return req;
      const url = new URL(req.url);
      url.searchParams.set('format', 'md');
      return { ...req, url };
    },
  },
  {
    name: 'summary-without-flag',
    description: 'the summary lacks regeneration_failed',
    expect: { 'summary/get-fields': 'FAIL' },
    response: editJson(
      (r) => path(r).endsWith('/summary'),
      ({ regeneration_failed: _f, ...rest }) => rest,
    ),
  },
  {
    name: 'summary-overwrite-ignored',
    description: 'PUT summary answers 200 and stores nothing',
    expect: { 'summary/overwrite-replaces': 'FAIL' },
    request: (req) => (req.method === 'PUT' && path(req).endsWith('/summary') ? answer(200, {}) : req),
  },
  {
    name: 'summary-text-optional',
    description: 'PUT summary without text answers 200',
    expect: { 'summary/overwrite-text-required': 'FAIL' },
    request: (req) =>
      req.method === 'PUT' && path(req).endsWith('/summary') && !req.body.toString().includes('"text"') ? answer(200, {}) : req,
  },
  {
    name: 'config-section-missing',
    description: 'GET /v1/config/custom-words answers 404',
    expect: { 'config/sections-valid': 'FAIL' },
    request: (req) => (path(req) === '/v1/config/custom-words' ? errorAnswer(404, 'not_found') : req),
  },
  {
    name: 'config-no-withheld',
    description: 'ConfigDto lacks withheld',
    expect: { 'config/dto-shape': 'FAIL' },
    response: editJson(
      (r) => path(r).startsWith('/v1/config/'),
      ({ withheld: _w, ...rest }) => rest,
    ),
  },
  {
    name: 'config-put-merges',
    description: 'PUT /v1/config/{section} keeps fields the body leaves out',
    expect: { 'config/put-replaces-section': 'FAIL' },
    request: async (req, t) => {
      if (req.method !== 'PUT' || !path(req).startsWith('/v1/config/')) return req;
      const current = jsonOf(await t.forward({ ...req, method: 'GET', body: Buffer.alloc(0) })) as { config?: Json } | undefined;
      let body: unknown;
      try {
        body = JSON.parse(req.body.toString('utf8'));
      } catch {
        return req;
      }
      if (current?.config === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return req;
      return { ...req, body: Buffer.from(JSON.stringify({ ...current.config, ...(body as Json) })) };
    },
  },
  {
    name: 'config-put-stale-answer',
    description: 'PUT /v1/config/{section} answers the section as it was before',
    expect: { 'config/put-immediate': 'FAIL' },
    request: async (req, t) => {
      if (req.method !== 'PUT' || !path(req).startsWith('/v1/config/')) return req;
      const before = await t.forward({ ...req, method: 'GET', body: Buffer.alloc(0) });
      await t.forward(req);
      return before;
    },
  },
  {
    name: 'whole-config-route',
    description: 'GET /v1/config answers every section',
    expect: { 'config/no-whole-config-route': 'FAIL' },
    request: (req) => (/^\/v1\/config\/?$/.test(path(req)) ? answer(200, { sections: {} }) : req),
  },
  {
    name: 'unknown-section-400',
    description: 'an unknown config section is 400',
    expect: { 'config/unknown-section': 'FAIL' },
    response: (req, res) => (path(req).startsWith('/v1/config/') && res.status === 404 ? errorAnswer(400, 'bad_request') : res),
  },
  {
    name: 'arming-without-record',
    description: 'arming auto-record needs no record scope',
    expect: { 'config/auto-record-needs-record': 'FAIL' },
    request: async (req, t) => {
      if (req.method !== 'PUT' || path(req) !== '/v1/config/meeting-detection' || !/"auto_?record"\s*:\s*true/.test(req.body.toString()))
        return req;
      const s = await t.scopesOf(req);
      return s.includes('record')
        ? req
        : answer(200, { section: 'meeting-detection', config: JSON.parse(req.body.toString()) as unknown, withheld: [] });
    },
  },
  {
    name: 'arming-without-prearm',
    description: 'arming auto-record is accepted without pre-arming (answers 200, stores nothing)',
    expect: { 'config/auto-record-needs-prearm': 'FAIL' },
    response: (req, res) =>
      req.method === 'PUT' &&
      path(req) === '/v1/config/meeting-detection' &&
      res.status === 403 &&
      (jsonOf(res) as { error?: { code?: string } } | undefined)?.error?.code === 'not_prearmed'
        ? answer(200, {})
        : res,
  },
  {
    name: 'openapi-drops-export',
    description: 'the manifest leaves out GET /v1/meetings/{id}/export',
    expect: { 'openapi/covers-every-route': 'FAIL' },
    response: openapiEdit((doc) => {
      doc.paths = Object.fromEntries(Object.entries(doc.paths).filter(([k]) => !k.endsWith('/export')));
    }),
  },
  {
    name: 'openapi-no-destructive',
    description: 'manifest operations lack x-service-destructive',
    expect: { 'openapi/annotations-four': 'FAIL' },
    response: openapiEdit((doc) => {
      for (const item of Object.values(doc.paths))
        for (const o of Object.values(item)) if (o !== null && typeof o === 'object') delete o['x-service-destructive'];
    }),
  },
  {
    name: 'openapi-wrong-scope',
    description: 'the manifest says GET /v1/meetings needs write',
    expect: { 'openapi/canonical': 'FAIL' },
    response: openapiEdit((doc) => {
      const get = doc.paths['/v1/meetings']?.get;
      if (get !== undefined) get['x-service-required-scope'] = 'write';
    }),
  },
  {
    name: 'openapi-3-0',
    description: 'the manifest says openapi 3.0.3',
    expect: { 'openapi/version-3-1': 'FAIL' },
    response: openapiEdit((doc) => {
      doc.openapi = '3.0.3';
    }),
  },
  {
    name: 'openapi-public',
    description: 'GET /openapi.json answers 200 without a token',
    expect: { 'openapi/scope-read': 'FAIL' },
    request: (req) =>
      path(req) === '/openapi.json' && req.headers['authorization'] === undefined
        ? answer(200, { openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: {} })
        : req,
  },
  {
    name: 'models-delete-route',
    description: 'DELETE /v1/models/{name} answers 204',
    expect: { 'models/read-only': 'FAIL' },
    request: (req) =>
      req.method === 'DELETE' && path(req).startsWith('/v1/models/') ? { status: 204, headers: {}, body: Buffer.alloc(0) } : req,
  },
  {
    name: 'models-list-field-missing',
    description: 'model items lack is_custom (the list gets one item when empty)',
    expect: { 'models/list-fields': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/models',
      (b) => ({
        ...b,
        models: [
          ...((b.models as Json[]).length === 0
            ? [{ name: 'x', size_mb: 1, accuracy: 'a', speed: 's', status: 'ready', description: 'd' }]
            : (b.models as Json[]).map(({ is_custom: _c, ...rest }) => rest)),
        ],
      }),
    ),
  },
  {
    name: 'devices-without-type',
    description: 'device items lack device_type',
    expect: { 'devices/list-fields': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/devices',
      (b) => ({ ...b, devices: (b.devices as Json[]).map(({ device_type: _d, ...rest }) => rest) }),
    ),
  },
  {
    name: 'meeting-create-route',
    description: 'POST /v1/meetings answers 201',
    expect: { 'service/no-meeting-create-route': 'FAIL' },
    request: (req) => (req.method === 'POST' && path(req) === '/v1/meetings' ? answer(201, { id: 'created' }) : req),
  },
  {
    name: 'unprefixed-routes',
    description: 'GET /meetings is served like /v1/meetings',
    expect: { 'versioning/prefix-v1': 'FAIL' },
    request: (req) => (path(req) === '/meetings' ? { ...req, url: new URL(`/v1/meetings${req.url.search}`, req.url) } : req),
  },
  {
    name: 'pairing-needs-token',
    description: 'the pairing routes answer 401 without a token',
    expect: { 'pairing/request-no-auth': 'FAIL', 'pairing/poll-no-auth': 'FAIL' },
    request: (req) =>
      path(req).startsWith('/v1/pair/') && req.headers['authorization'] === undefined ? errorAnswer(401, 'unauthorized') : req,
  },
  {
    name: 'pairing-accepts-anything',
    description: 'a pairing request without client_name is accepted',
    expect: { 'pairing/request-body-required': 'FAIL' },
    request: (req) => (path(req) === '/v1/pair/request' && !req.body.toString().includes('client_name') ? answer(201, { id: 'p' }) : req),
  },
  {
    name: 'removed-routes-present',
    description: 'GET /v1/pairings answers 200',
    expect: { 'pairing/removed-routes-absent': 'FAIL' },
    request: (req) => (path(req) === '/v1/pairings' ? answer(200, { pairings: [] }) : req),
  },
  {
    name: 'recording-wait-needs-record',
    description: 'the recording wait needs the record scope',
    expect: { 'recording/wait-scope-read': 'NON_STRICT' },
    request: async (req, t) =>
      path(req) === '/v1/recording/wait' && !(await t.scopesOf(req)).includes('record') ? errorAnswer(403, 'insufficient_scope') : req,
  },
  {
    name: 'conflict-without-subcode',
    description: '409 answers carry the plain code conflict',
    expect: { 'errors/conflict-subcodes': 'FAIL' },
    response: (_req, res) => (res.status === 409 ? errorAnswer(409, 'conflict') : res),
  },
  {
    name: 'invalid-as-400',
    description: 'validation failures answer 400 bad_request',
    expect: { 'errors/invalid-request-422': 'FAIL' },
    response: rewriteError({ status: 422, code: 'invalid_request' }, { status: 400, code: 'bad_request' }),
  },
  {
    name: 'not-found-as-410',
    description: 'unknown meetings answer 410',
    expect: { 'errors/not-found-404': 'FAIL', 'meetings/delete-irreversible': 'FAIL' },
    response: (req, res) => (path(req).startsWith('/v1/meetings/') && res.status === 404 ? errorAnswer(410, 'not_found') : res),
  },
  // ---------------------------------------------------------------- jobs, SSE, summary, recording, webhooks, pairing (second pass)
  {
    name: 'job-wait-resolves-on-pause',
    description: 'an open job wait resolves with job.paused when the job is paused',
    expect: { 'sse/pause-resume-no-resolve': 'FAIL' },
    request: (req, tools) => {
      const pause = /^\/v1\/jobs\/([^/]+)\/pause$/.exec(path(req));
      if (req.method === 'POST' && pause !== null) {
        pauses.emit('pause', pause[1]);
        return req;
      }
      const wait = /^\/v1\/jobs\/([^/]+)\/wait$/.exec(path(req));
      if (req.method !== 'GET' || wait === null) return req;
      return new Promise((resolve) => {
        const onPause = (id: string): void => {
          if (id !== wait[1]) return;
          pauses.off('pause', onPause);
          resolve(sseAnswer('job.paused', { job_id: id, state: 'pausing' }));
        };
        pauses.on('pause', onPause);
        tools.forward(req).then(
          (res) => {
            pauses.off('pause', onPause);
            resolve(res);
          },
          () => resolve(errorAnswer(502, 'internal')),
        );
      });
    },
  },
  {
    name: 'sse-two-events',
    description: 'wait streams send a second event before closing',
    expect: { 'sse/job-wait': 'FAIL' },
    response: (req, res) =>
      path(req).endsWith('/wait') && res.status === 200 && (res.headers['content-type'] ?? '').startsWith('text/event-stream')
        ? { ...res, body: Buffer.concat([res.body, Buffer.from('event: done\ndata: {}\n\n')]) }
        : res,
  },
  {
    name: 'job-state-completed',
    description: 'a succeeded job reports state completed',
    expect: { 'jobs/lifecycle-model': 'FAIL' },
    response: editJson(
      (r) => /^\/v1\/jobs(\/[^/]+)?$/.test(path(r)),
      (b) => JSON.parse(JSON.stringify(b).replace(/"state":"succeeded"/g, '"state":"completed"')) as unknown,
    ),
  },
  {
    name: 'pause-import-allowed',
    description: 'pausing an import job is accepted',
    expect: { 'jobs/pause-import-409': 'FAIL' },
    response: (req, res) =>
      /\/pause$/.test(path(req)) && (jsonOf(res) as { error?: { code?: string } } | undefined)?.error?.code === 'import_not_pausable'
        ? answer(200, { ok: true })
        : res,
  },
  {
    name: 'retry-any-state',
    description: 'retry of a job that is not failed and retryable is accepted',
    expect: { 'jobs/retry': 'FAIL' },
    response: (req, res) =>
      /\/retry$/.test(path(req)) &&
      res.status === 409 &&
      (jsonOf(res) as { error?: { code?: string } } | undefined)?.error?.code !== 'source_gone'
        ? answer(202, { ok: true })
        : res,
  },
  {
    name: 'diarization-duplicate-accepted',
    description: 'a second diarization for a meeting with one running is accepted',
    expect: { 'jobs/diarization': 'FAIL' },
    response: (req, res) => (path(req) === '/v1/jobs/diarization' && res.status === 409 ? answer(202, { job_id: 'job_duplicate' }) : res),
  },
  {
    name: 'job-error-unredacted',
    description: 'job errors show home paths in full',
    expect: { 'jobs/error-redaction': 'FAIL' },
    response: editJson(
      (r) => /^\/v1\/jobs\/[^/]+$/.test(path(r)),
      (b) => (typeof b.error === 'string' ? { ...b, error: b.error.replace(/~\//g, '/home/someone/') } : b),
    ),
  },
  {
    name: 'size-cap-400',
    description: 'an import above 2 GB answers 400 instead of 413',
    expect: { 'jobs/import-size-cap': 'FAIL' },
    upload: (status, headers) => (status === 413 ? { status: 400, headers } : { status, headers }),
  },
  {
    name: 'budget-429-without-retry-after',
    description: '429 import_budget_full without a Retry-After header',
    expect: { 'jobs/import-budget': 'FAIL' },
    upload: (status, headers) => {
      const { 'retry-after': _r, ...rest } = headers;
      return { status, headers: status === 429 ? rest : headers };
    },
  },
  {
    name: 'summary-process-id',
    description: 'regenerate names the operation id process_id',
    expect: { 'summary/regenerate-id-name': 'NON_STRICT' },
    response: editJson(
      (r) => /\/summary\/regenerate$/.test(path(r)),
      (b) => renameKeys(b, { operation_id: 'process_id' }),
    ),
  },
  {
    name: 'consent-false-accepted',
    description: 'consent_attested false is ignored and the recording starts',
    expect: { 'recording/consent-false': 'NON_STRICT' },
    request: (req) => {
      if (req.method !== 'POST' || path(req) !== '/v1/recording/start') return req;
      const body = (() => {
        try {
          return JSON.parse(req.body.toString('utf8')) as Json;
        } catch {
          return null;
        }
      })();
      if (body === null || body.consent_attested !== false) return req;
      const { consent_attested: _c, ...rest } = body;
      return { ...req, body: Buffer.from(JSON.stringify(rest)) };
    },
  },
  {
    name: 'recording-start-waits',
    description: 'recording start answers only once capture runs (state recording)',
    expect: { 'recording/lifecycle': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/recording/start',
      (b) => ({ ...b, state: 'recording' }),
    ),
  },
  {
    name: 'webhook-other-owner-readable',
    description: 'a webhook of another owner can be read',
    expect: { 'webhooks/owner-only': 'FAIL' },
    response: (req, res) =>
      req.method === 'GET' && /^\/v1\/webhooks\/[^/]+$/.test(path(req)) && res.status === 403
        ? answer(200, {
            id: path(req).split('/').pop(),
            url: 'https://93.184.216.34/',
            events: ['job.completed'],
            approval_state: 'pending',
          })
        : res,
  },
  {
    name: 'webhook-secret-readable',
    description: 'GET /v1/webhooks/{id} returns hmac_secret again',
    expect: { 'webhooks/create': 'FAIL' },
    response: editJson(
      (r) => r.method === 'GET' && /^\/v1\/webhooks\/[^/]+$/.test(path(r)),
      (b) => ({ ...b, hmac_secret: 'whsec_leaked' }),
    ),
  },
  {
    name: 'webhook-signing-key-differs',
    description: 'the hmac_secret returned at registration is not the key deliveries are signed with',
    expect: { 'webhooks/delivery-basics': 'FAIL' },
    response: editJson(
      (r) => r.method === 'POST' && path(r) === '/v1/webhooks',
      (b) => (typeof b.hmac_secret === 'string' ? { ...b, hmac_secret: `${b.hmac_secret}x` } : b),
    ),
  },
  {
    name: 'webhook-decimal-loopback-accepted',
    description: 'the private-address check misses numeric host spellings (http://2130706433/)',
    expect: { 'webhooks/url-hostile': 'FAIL' },
    request: (req) => {
      if (req.method !== 'POST' || path(req) !== '/v1/webhooks') return req;
      try {
        const url = (JSON.parse(req.body.toString('utf8')) as { url?: string }).url ?? '';
        const host = /^[a-z]+:\/\/([^/:?#]+)/i.exec(url)?.[1] ?? '';
        if (!/^\d+(\.\d+){3}$/.test(host) && !host.startsWith('[') && /^(0x[0-9a-f]+|\d+)([.](0x[0-9a-f]+|\d+))*$/i.test(host)) {
          return answer(201, {
            id: 'wh_mutant',
            url,
            events: ['job.completed'],
            delivery_mode: 'at-least-once',
            created_at: new Date().toISOString(),
            hmac_secret: 'whsec_mutant_0123456789',
          });
        }
      } catch {
        return req;
      }
      return req;
    },
  },
  {
    name: 'webhook-meeting-events-accepted',
    description: 'meeting.* events are silently dropped from a registration instead of refused',
    expect: { 'webhooks/create': 'FAIL' },
    request: (req) => {
      if (req.method !== 'POST' || path(req) !== '/v1/webhooks') return req;
      try {
        const body = JSON.parse(req.body.toString('utf8')) as { events?: unknown };
        if (!Array.isArray(body.events)) return req;
        const events = body.events.filter((e) => !/^(meeting\.|transcription\.completed$)/.test(String(e)));
        if (events.length === 0 || events.length === body.events.length) return req;
        return { ...req, body: Buffer.from(JSON.stringify({ ...body, events })) };
      } catch {
        return req;
      }
    },
  },
  {
    name: 'webhooks-all-for-any-token',
    description: 'all=true is ignored for tokens that may not use it (own list, 200)',
    expect: { 'webhooks/list-all': 'FAIL' },
    response: (req, res, tools) => {
      if (req.method !== 'GET' || path(req) !== '/v1/webhooks' || req.url.searchParams.get('all') !== 'true' || res.status !== 403)
        return res;
      const url = new URL(req.url.toString());
      url.searchParams.delete('all');
      return tools.forward({ ...req, url });
    },
  },
  {
    name: 'pairing-token-every-poll',
    description: 'the raw pairing token is returned on every poll after approval',
    expect: { 'pairing/token-once': 'FAIL' },
    response: (req, res) => {
      const id = /^\/v1\/pair\/([^/]+)$/.exec(path(req))?.[1];
      if (id === undefined || res.status !== 200) return res;
      const body = jsonOf(res) as Json | undefined;
      if (body === undefined || body === null) return res;
      if (typeof body.token === 'string') {
        pairTokens.set(id, body.token);
        return res;
      }
      const token = pairTokens.get(id);
      return token === undefined ? res : withJson(res, { ...body, token });
    },
  },
  // ---------------------------------------------------------------- the webhook retry schedule (through a delivery relay)
  {
    name: 'webhook-retry-waits-doubled',
    description: 'at-least-once retries wait 2, 4, 8, 16 and 32 s instead of 1, 2, 4, 8 and 16 s',
    expect: { 'webhooks/retry-schedule-start': 'FAIL' },
    ...relayed(deliveryRelay((k) => (k < 6 ? [0, 2, 6, 14, 30, 62][k]! * 1000 : null))),
  },
  {
    name: 'webhook-retry-three-attempts',
    description: 'an at-least-once delivery that keeps failing is given up after 3 attempts instead of 6',
    expect: { 'webhooks/retry-schedule-start': 'FAIL' },
    ...relayed(deliveryRelay((k, atMs) => (k < 3 ? atMs : null))),
  },
  {
    name: 'identity',
    description: 'changes nothing: the proxy itself must be transparent, so every check keeps its outcome',
    expect: {},
    request: pass,
  },
];

export function mutantByName(name: string): Mutant | undefined {
  return MUTANTS.find((m) => m.name === name);
}
