/**
 * Keeps the error registry and the spec's Errors table in step (the registry
 * is closed: nothing else can be thrown), and checks the one writer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ApiError, ERROR_CODES, SUB_CODES, statusOf, toApiError } from './errors.ts';

const API_MD = readFileSync(new URL('../../docs/spec/API.md', import.meta.url), 'utf8');

function specErrorsTable(): Map<string, number> {
  const section = API_MD.split('## Errors')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, number>();
  for (const line of section.split('\n')) {
    const m = /^\| ([a-z_]+) \| (\d{3}) \|/.exec(line);
    if (m !== null) rows.set(m[1]!, Number(m[2]));
  }
  return rows;
}

function specSubCodes(): { conflict: string[]; tooMany: string[] } {
  const m409 = /Sub-codes in the code field for 409: ([a-z_, ]+)\./.exec(API_MD);
  const m429 = /For 429: ([a-z_, ]+)\./.exec(API_MD);
  const split = (s: string | undefined) =>
    (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  return { conflict: split(m409?.[1]), tooMany: split(m429?.[1]) };
}

test('the registry holds exactly the codes and statuses of the spec Errors table', () => {
  const spec = specErrorsTable();
  assert.equal(spec.size, 15, 'the spec table parsed');
  const registry = new Map(Object.entries(ERROR_CODES).map(([code, e]) => [code, e.status]));
  assert.deepEqual([...registry.entries()].sort(), [...spec.entries()].sort());
});

test('the sub-codes are the spec sub-codes, each bound to its parent status', () => {
  const spec = specSubCodes();
  const conflict = Object.entries(SUB_CODES)
    .filter(([, p]) => p === 'conflict')
    .map(([c]) => c);
  const tooMany = Object.entries(SUB_CODES)
    .filter(([, p]) => p === 'too_many_requests')
    .map(([c]) => c);
  assert.deepEqual(conflict.sort(), spec.conflict.sort());
  assert.deepEqual(tooMany.sort(), spec.tooMany.sort());
  for (const code of spec.conflict) assert.equal(statusOf(code as keyof typeof SUB_CODES), 409);
  assert.equal(statusOf('import_budget_full'), 429);
});

test('ApiError carries the status of its code', () => {
  assert.equal(new ApiError('not_prearmed', 'x').status, 403);
  assert.equal(new ApiError('source_gone', 'x').status, 409);
  assert.equal(new ApiError('license_required', 'x').status, 402);
});

test('unknown failures become 500 internal without their message', () => {
  const e = toApiError(new Error('ENOENT: /home/alice/secret/file'));
  assert.equal(e.code, 'internal');
  assert.doesNotMatch(e.message, /alice|ENOENT/);
});

test('client mistakes reported by Express as 4xx errors become bad_request or payload_too_large', () => {
  assert.equal(toApiError(Object.assign(new Error('x'), { status: 400 })).code, 'bad_request');
  assert.equal(toApiError(Object.assign(new Error('x'), { statusCode: 413 })).code, 'payload_too_large');
  assert.equal(toApiError(new URIError('URI malformed')).code, 'bad_request');
});

test('the spec copies in docs/spec and conformance/ match ../shared when it is beside the clone', () => {
  const shared = new URL('../../../shared/spec/', import.meta.url);
  let sharedApi: string;
  try {
    sharedApi = readFileSync(new URL('API.md', shared), 'utf8');
  } catch {
    return; // no ../shared here: nothing to compare against
  }
  assert.equal(API_MD, sharedApi, 'docs/spec/API.md drifted from ../shared/spec/API.md');
  assert.equal(
    readFileSync(new URL('../../docs/spec/CONTROL.md', import.meta.url), 'utf8'),
    readFileSync(new URL('CONTROL.md', shared), 'utf8'),
  );
  assert.deepEqual(
    JSON.parse(readFileSync(new URL('../../conformance/clauses.json', import.meta.url), 'utf8')),
    JSON.parse(readFileSync(new URL('clauses.json', shared), 'utf8')),
  );
});
