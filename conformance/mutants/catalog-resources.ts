/** Mutants of the resources: search, meetings, transcripts, export, summary, config, arming, openapi, models, devices, routes, error codes. */
import { editJson, isMeeting, openapiEdit, path, rewriteError, type Json } from './mutant-edits.ts';
import type { Mutant } from './proxy.ts';
import { answer, errorAnswer, jsonOf } from './proxy.ts';

export const RESOURCE_MUTANTS: Mutant[] = [
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
];
