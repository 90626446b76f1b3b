/**
 * The operations of API.md's endpoint tables, written down from the spec (not
 * read from the target): method, path, the enforced minimum scope, and the
 * clause that states that scope. 43 operations over 37 paths; the three
 * public ones (scope none) are GET /health and the two pairing routes.
 *
 * Where the spec chose one scope over another reference's (recording wait,
 * webhook delete and test), `alternative` names the other reading, so the
 * suite can grade it NON_STRICT rather than FAIL.
 */

export type OperationScope = 'none' | 'read' | 'record' | 'write' | 'delete';

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template, parameters in braces. */
  path: string;
  scope: OperationScope;
  /** The clause stating the scope (null for public routes). */
  scopeClause: string | null;
  /** The scope other references list, where the spec's choice is a documented conflict. */
  alternative?: { scope: OperationScope; clause: string };
  area: string;
  /** An SSE wait stream. */
  stream?: boolean;
}

const op = (
  method: Operation['method'],
  path: string,
  scope: OperationScope,
  scopeClause: string | null,
  area: string,
  extra: Partial<Operation> = {},
): Operation => ({ method, path, scope, scopeClause, area, ...extra });

export const OPERATIONS: readonly Operation[] = [
  // Health, identity, search, devices, models
  op('GET', '/health', 'none', null, 'health'),
  op('GET', '/v1/whoami', 'read', 'identity.whoami.scope-read', 'identity'),
  op('GET', '/openapi.json', 'read', 'openapi.scope-read', 'openapi'),
  op('GET', '/v1/search', 'read', 'search.scope-read', 'search'),
  op('GET', '/v1/devices', 'read', 'devices.scope-read', 'devices'),
  op('GET', '/v1/models', 'read', 'models.scope-read', 'models'),
  // Meetings
  op('GET', '/v1/meetings', 'read', 'meetings.list.scope-read', 'meetings'),
  op('GET', '/v1/meetings/{id}', 'read', 'meetings.get.scope-read', 'meetings'),
  op('PATCH', '/v1/meetings/{id}', 'write', 'meetings.rename.scope-write', 'meetings'),
  op('DELETE', '/v1/meetings/{id}', 'delete', 'meetings.delete.scope-delete', 'meetings'),
  op('GET', '/v1/meetings/{id}/transcript', 'read', 'meetings.transcript.scope-read', 'meetings'),
  op('GET', '/v1/meetings/{id}/summary', 'read', 'summary.get.scope-read', 'summary'),
  op('PUT', '/v1/meetings/{id}/summary', 'write', 'summary.overwrite.scope-write', 'summary'),
  op('POST', '/v1/meetings/{id}/summary/regenerate', 'write', 'summary.regenerate.scope-write', 'summary'),
  op('GET', '/v1/meetings/{id}/summary/operations/{operation_id}', 'read', 'summary.operation.scope-read', 'summary'),
  op('GET', '/v1/meetings/{id}/summary/operations/{operation_id}/wait', 'read', 'summary.operation.wait.scope-read', 'summary', {
    stream: true,
  }),
  op('PUT', '/v1/meetings/{id}/speaker-labels', 'write', 'meetings.speaker-labels.scope-write', 'meetings'),
  op('GET', '/v1/meetings/{id}/export', 'read', 'meetings.export.scope-read', 'meetings'),
  // Config
  op('GET', '/v1/config/{section}', 'read', 'config.get.scope-read', 'config'),
  op('PUT', '/v1/config/{section}', 'write', 'config.put.scope-write', 'config'),
  // Jobs
  op('GET', '/v1/jobs', 'read', 'jobs.list.scope-read', 'jobs'),
  op('GET', '/v1/jobs/{id}', 'read', 'jobs.get.scope-read', 'jobs'),
  op('POST', '/v1/jobs/diarization', 'write', 'jobs.diarization.scope-write', 'jobs'),
  op('POST', '/v1/jobs/import', 'write', 'jobs.import.scope-write', 'jobs'),
  op('POST', '/v1/jobs/{id}/cancel', 'write', 'jobs.cancel.scope-write', 'jobs'),
  op('POST', '/v1/jobs/{id}/pause', 'write', 'jobs.pause.scope-write', 'jobs'),
  op('POST', '/v1/jobs/{id}/resume', 'write', 'jobs.resume.scope-write', 'jobs'),
  op('POST', '/v1/jobs/{id}/retry', 'write', 'jobs.retry.scope-write', 'jobs'),
  op('GET', '/v1/jobs/{id}/wait', 'read', 'jobs.wait.scope-read', 'jobs', { stream: true }),
  // Recording
  op('GET', '/v1/recording', 'read', 'recording.get.scope-read', 'recording'),
  op('POST', '/v1/recording/start', 'record', 'recording.start.scope-record', 'recording'),
  op('POST', '/v1/recording/stop', 'record', 'recording.stop.scope-record', 'recording'),
  op('POST', '/v1/recording/pause', 'record', 'recording.pause.scope-record', 'recording'),
  op('POST', '/v1/recording/resume', 'record', 'recording.resume.scope-record', 'recording'),
  op('GET', '/v1/recording/wait', 'read', 'recording.wait.scope-read', 'recording', {
    stream: true,
    alternative: { scope: 'record', clause: 'recording.wait.scope-read' },
  }),
  // Webhooks
  op('POST', '/v1/webhooks', 'read', 'webhooks.create.scope-read-floor', 'webhooks'),
  op('GET', '/v1/webhooks', 'read', 'webhooks.list.scope-read', 'webhooks'),
  op('GET', '/v1/webhooks/{id}', 'read', 'webhooks.get.scope-read', 'webhooks'),
  op('DELETE', '/v1/webhooks/{id}', 'read', 'webhooks.delete.scope-read-floor', 'webhooks', {
    alternative: { scope: 'write', clause: 'webhooks.delete.scope-read-floor' },
  }),
  op('GET', '/v1/webhooks/{id}/deliveries', 'read', 'webhooks.deliveries.scope-read', 'webhooks'),
  op('POST', '/v1/webhooks/{id}/test', 'read', 'webhooks.test.scope-read-floor', 'webhooks', {
    alternative: { scope: 'write', clause: 'webhooks.test.scope-read-floor' },
  }),
  // Pairing
  op('POST', '/v1/pair/request', 'none', null, 'pairing'),
  op('GET', '/v1/pair/{id}', 'none', null, 'pairing'),
];

/** Operations that need a bearer token (all but the three public ones). */
export const PROTECTED_OPERATIONS: readonly Operation[] = OPERATIONS.filter((o) => o.scope !== 'none');

/** Routes an older index listed and the current surface does not serve (API.md, Pairing). */
export const REMOVED_ROUTES: ReadonlyArray<{ method: Operation['method']; path: string }> = [
  { method: 'GET', path: '/v1/pairings' },
  { method: 'GET', path: '/v1/pairings/{id}' },
  { method: 'DELETE', path: '/v1/pairings/{id}' },
  { method: 'POST', path: '/v1/mcp/client-token' },
];

/** "GET /v1/meetings/{}": a key that ignores the names of path parameters. */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}').replace(/:[A-Za-z_][A-Za-z0-9_]*/g, '{}')}`;
}

/** Fills the path parameters: {id: 'm1'} → /v1/meetings/m1 (values are URL-encoded). */
export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`no value for path parameter {${name}} of ${path}`);
    return encodeURIComponent(v);
  });
}
