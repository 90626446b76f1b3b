/**
 * Handler of GET /v1/search. The query descriptor has already refused a
 * missing or blank q (400 bad_request) and clamped limit; the rules of the
 * search itself are in docs/decisions/006-search.md.
 */
import type { Handler } from '../../app.ts';

export const searchHandlers: Record<'searchMeetings', Handler> = {
  searchMeetings(ctx) {
    const q = ctx.query.q as string;
    const results = ctx.deps.search.search(q, { limit: ctx.query.limit as number, offset: ctx.query.offset as number });
    return { status: 200, json: { results } };
  },
};
