/**
 * API.md's Authentication rules as pure functions, so the expected answer of
 * any (operation, token) pair is computed from the spec:
 *
 * 2. four scopes; any other string (admin too) parses to nothing;
 *    record and write satisfy read; delete implies neither.
 * 3. record, write and delete each need their own literal scope.
 * 4. an assistant token's baseline adds read and record.
 * 5. a remote caller (paired or LAN) of POST /v1/recording/start gets
 *    403 not_prearmed unless remote_recording_prearmed is on.
 * 7. a valid token lacking scope gets 403 insufficient_scope.
 * Pairing: a paired device never holds delete.
 */
import { SCOPES, type Scope } from './constants.ts';
import type { Operation, OperationScope } from './operations.ts';

export type Origin = 'loopback' | 'paired' | 'lan';
type Kind = 'standard' | 'first_party' | 'assistant';

export interface TokenModel {
  /** The scope strings asked for when minting (may hold junk such as 'admin'). */
  requested: readonly string[];
  origin: Origin;
  kind: Kind;
}

export function parseScopes(requested: readonly string[]): Scope[] {
  return SCOPES.filter((s) => requested.includes(s));
}

/** The scopes a token really holds. */
export function effectiveScopes(t: TokenModel): Scope[] {
  const held = new Set(parseScopes(t.requested));
  if (t.kind === 'assistant') {
    held.add('read');
    held.add('record');
  }
  if (t.origin === 'paired') held.delete('delete');
  return SCOPES.filter((s) => held.has(s));
}

export function satisfies(required: OperationScope, held: readonly Scope[]): boolean {
  switch (required) {
    case 'none':
      return true;
    case 'read':
      return held.includes('read') || held.includes('record') || held.includes('write');
    default:
      return held.includes(required);
  }
}

function isRemote(origin: Origin): boolean {
  return origin !== 'loopback';
}

export type AuthExpectation = { kind: 'allowed' } | { kind: 'refused'; status: number; code: string; clause: string };

/**
 * What the spec expects of the auth gates for this operation and token, with
 * the API on and licensed. `allowed` means: no auth refusal (the handler may
 * still answer 4xx for the request itself).
 */
export function expectedAuth(
  op: Operation,
  token: TokenModel,
  settings: { remoteRecordingPrearmed: boolean } = { remoteRecordingPrearmed: false },
  scope: OperationScope = op.scope,
): AuthExpectation {
  const held = effectiveScopes(token);
  if (!satisfies(scope, held)) return { kind: 'refused', status: 403, code: 'insufficient_scope', clause: 'auth.missing-scope.403' };
  if (op.method === 'POST' && op.path === '/v1/recording/start' && isRemote(token.origin) && !settings.remoteRecordingPrearmed) {
    return { kind: 'refused', status: 403, code: 'not_prearmed', clause: 'recording.start.remote.403-not_prearmed' };
  }
  return { kind: 'allowed' };
}

/**
 * The general clauses a wrong answer breaks, besides the operation's own
 * scope clause: e.g. a record-only token refused on a read route breaks
 * auth.scope.record-satisfies-read.
 */
export function implicatedClauses(op: Operation, token: TokenModel): string[] {
  const held = effectiveScopes(token);
  const out: string[] = [];
  const s = op.scope;
  if (s === 'read' && satisfies('read', held)) {
    if (!held.includes('read') && held.includes('record')) out.push('auth.scope.record-satisfies-read');
    if (!held.includes('read') && held.includes('write')) out.push('auth.scope.write-satisfies-read');
  }
  if (!satisfies(s, held)) {
    out.push('auth.missing-scope.403', 'errors.code.insufficient_scope.403');
    const only = (x: Scope[]): boolean => held.length > 0 && held.every((h) => x.includes(h));
    if (s === 'read' && only(['delete'])) out.push('auth.scope.delete-implies-no-read');
    if (s === 'write' && held.includes('delete')) out.push('auth.scope.delete-implies-no-write');
    if (s === 'delete' && held.includes('write')) out.push('auth.scope.delete-not-implied-by-write');
    if (s === 'record' && held.includes('write')) out.push('auth.scope.record-not-implied-by-write');
    if (s === 'write' && held.includes('record')) out.push('auth.scope.write-not-implied-by-record');
  }
  if (requestedAdmin(token)) out.push('auth.scope.admin-parses-to-nothing');
  return out;
}

function requestedAdmin(t: TokenModel): boolean {
  return t.requested.includes('admin');
}
