/** Mutants of access and form: /health, tokens and scopes, the error envelope, JSON and snake_case, pagination. */
import { editJson, isMeeting, path, renameKeys, rewriteError, type Json } from './mutant-edits.ts';
import type { Mutant } from './proxy.ts';
import { answer, errorAnswer, jsonOf, withJson } from './proxy.ts';

export const ACCESS_MUTANTS: Mutant[] = [
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
];
