/**
 * The rows of the operations table for summary regeneration and its operations (API.md, Summaries).
 * server/operations.ts assembles them with every other feature's rows; the
 * handlers are in handlers.ts beside this file.
 */
import { READ, type Operation, type PathParam } from '../../kernel/operation-types.ts';
import { clampedInt } from '../../kernel/http/query.ts';
import * as S from './schemas.ts';

const meetingId = { id: { description: 'meeting id' } } satisfies Record<string, PathParam>;

export const SUMMARY_OPERATIONS = [
  {
    operationId: 'regenerateSummary',
    method: 'post',
    path: '/v1/meetings/{id}/summary/regenerate',
    tag: 'meetings',
    summary: 'Start a regeneration of the summary; omitted fields fall back to the stored configuration',
    scope: 'write',
    readOnly: false,
    idempotent: false,
    destructive: false,
    pathParams: meetingId,
    body: { schema: S.RegenerateSummaryRequest, required: false },
    responses: { 202: { description: 'the operation, with its wait and status URLs', schema: S.RegenerateResponse } },
  },
  {
    operationId: 'getSummaryOperation',
    method: 'get',
    path: '/v1/meetings/{id}/summary/operations/{operation_id}',
    tag: 'meetings',
    summary: 'Status of a regeneration operation',
    scope: 'read',
    ...READ,
    pathParams: { ...meetingId, operation_id: { description: 'operation id from the regenerate response' } },
    responses: { 200: { description: 'the operation', schema: S.OperationStatus } },
  },
  {
    operationId: 'waitSummaryOperation',
    method: 'get',
    path: '/v1/meetings/{id}/summary/operations/{operation_id}/wait',
    tag: 'meetings',
    summary: 'SSE: one event when the operation ends (summary.completed or summary.failed), or timeout',
    scope: 'read',
    ...READ,
    pathParams: { ...meetingId, operation_id: { description: 'operation id from the regenerate response' } },
    query: {
      timeout_ms: clampedInt({
        min: 0,
        max: 3_600_000,
        default: 300_000,
        description: 'milliseconds before the timeout event; default 300000, capped at 3600000',
      }),
    },
    responses: { 200: { description: 'text/event-stream with exactly one event', contentTypes: ['text/event-stream'] } },
  },
] as const satisfies readonly Operation[];
