/**
 * Handler of GET /v1/search. The query descriptor has already refused a
 * missing or blank q (400 bad_request) and clamped limit; the rules of the
 * search itself are in docs/decisions/006-search.md.
 */
import type { HandlersFor } from '../../http-types.ts';
import type { SearchService } from './service.ts';

/** The services the search route uses, and nothing else (built by server/deps.ts). */
export interface SearchDeps {
  search: SearchService;
}

export const searchHandlers = {
  searchMeetings(ctx) {
    const { q, limit, offset } = ctx.query;
    const results = ctx.deps.search.search(q, { limit, offset });
    return { status: 200, json: { results } };
  },
} satisfies HandlersFor<'searchMeetings', SearchDeps>;
