/**
 * The rows of the operations table for GET /v1/search (API.md, Search).
 * server/operations.ts assembles them with every other feature's rows; the
 * handlers are in handlers.ts beside this file.
 */
import { READ, type Operation } from '../../kernel/operation-types.ts';
import { paginationParams, stringParam } from '../../kernel/http/query.ts';
import * as S from './schemas.ts';

export const SEARCH_OPERATIONS = [
  {
    operationId: 'searchMeetings',
    method: 'get',
    path: '/v1/search',
    tag: 'search',
    summary: 'Full-text search over meeting titles and transcripts',
    scope: 'read',
    ...READ,
    query: {
      q: stringParam({ required: true, description: 'words to find', maxLength: 500, missingCode: 'bad_request' }),
      ...paginationParams,
    },
    responses: { 200: { description: 'matches, title hits first, then transcript hits; newest meetings first', schema: S.SearchResponse } },
  },
] as const satisfies readonly Operation[];
