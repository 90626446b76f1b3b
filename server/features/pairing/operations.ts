/**
 * The rows of the operations table for pairing (API.md, Pairing). Both routes
 * take no token (scope none): the API switch and license gates still apply
 * (docs/decisions/001-auth-gate-order.md). Decisions: docs/decisions/015-pairing.md.
 */
import { CREATE, type Operation } from '../../kernel/operation-types.ts';
import * as P from './schemas.ts';

export const PAIRING_OPERATIONS = [
  {
    operationId: 'requestPairing',
    method: 'post',
    path: '/v1/pair/request',
    tag: 'pairing',
    summary: 'Ask for a token from another device, without a token; a person approves it in the application',
    scope: 'none',
    ...CREATE,
    body: { schema: P.PairRequestBody, required: true },
    responses: { 202: { description: 'the pending request and where to poll it', schema: P.PairRequestResponse } },
  },
  {
    operationId: 'getPairing',
    method: 'get',
    path: '/v1/pair/{id}',
    tag: 'pairing',
    summary: 'Poll a pairing request, without a token; the first poll after approval carries the raw token, later ones never',
    scope: 'none',
    // Not read-only: the first poll after approval hands out the token, and
    // the next poll no longer does.
    readOnly: false,
    idempotent: false,
    destructive: false,
    pathParams: { id: { description: 'pairing_id from the request response' } },
    responses: { 200: { description: 'the state of the request', schema: P.PairStatusResponse } },
  },
] as const satisfies readonly Operation[];
