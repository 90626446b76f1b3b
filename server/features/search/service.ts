/**
 * GET /v1/search: full-text search over meeting titles and transcripts.
 * docs/decisions/006-search.md explains every choice made here.
 *
 * The result list is one sequence, title hits first, then transcript hits,
 * each newest meeting first, paged with limit and offset over the whole
 * sequence. There is no total (API.md, SearchResponse).
 */
import type { z } from 'zod';
import type { SearchResult } from './schemas.ts';
import type { Database } from '../../kernel/store/database.ts';
import { SearchRepo } from './repo.ts';

export type SearchResultDto = z.infer<typeof SearchResult>;

/**
 * A word token: a letter or digit, then letters, digits or combining marks
 * (so a decomposed "é" stays part of its word). Everything else (quotes,
 * parentheses, *, :, ^, +, -, operators' punctuation) separates words.
 */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * Turns user text into a safe FTS5 expression: each word becomes an FTS5
 * string ("..." with any " doubled), and the strings are joined with spaces,
 * which FTS5 reads as AND. Quoting is what makes words such as NEAR, AND, OR,
 * NOT or a "text:" column filter plain words. Returns null when the text holds
 * no word at all (the search then finds nothing).
 */
export function ftsQuery(q: string): string | null {
  const words = q.normalize('NFC').match(WORD);
  if (words === null) return null;
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
}

export interface SearchPage {
  limit: number;
  offset: number;
}

export class SearchService {
  readonly #repo: SearchRepo;

  constructor(opts: { db: Database }) {
    this.#repo = new SearchRepo(opts.db);
  }

  search(q: string, page: SearchPage): SearchResultDto[] {
    const match = ftsQuery(q);
    if (match === null) return [];
    const { limit, offset } = page;

    // Titles first. Counting title hits is cheap (at most one per meeting)
    // and tells how far into the transcript hits the page starts.
    const titleCount = this.#repo.countTitleHits(match);
    const results: SearchResultDto[] = [];
    if (offset < titleCount) {
      for (const hit of this.#repo.titleHits(match, limit, offset)) {
        results.push({
          meeting_id: hit.meeting_id,
          title: hit.title,
          match_context: hit.context,
          timestamp: hit.created_at,
        });
      }
    }

    const remaining = limit - results.length;
    if (remaining > 0) {
      const segmentOffset = Math.max(0, offset - titleCount);
      for (const hit of this.#repo.segmentHits(match, remaining, segmentOffset)) {
        results.push({
          meeting_id: hit.meeting_id,
          title: hit.title,
          match_context: hit.context,
          timestamp: hit.created_at,
          audio_start_time: hit.start_s,
        });
      }
    }
    return results;
  }
}
