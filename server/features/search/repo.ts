/**
 * The full-text queries behind GET /v1/search, over the two FTS5 indexes of
 * migrations.ts: titles_fts (rowid = meetings.seq) and segments_fts
 * (rowid = segments.id). See docs/decisions/006-search.md.
 *
 * Every query here takes an FTS5 expression built by `ftsQuery()` in
 * features/search/service.ts, never raw user text.
 *
 * Both hit lists come in descending rowid order, which FTS5 serves by walking
 * its doclists backwards and stopping at LIMIT + OFFSET rows; ranking with
 * bm25 (ORDER BY rank) would score every match first, which grows with the
 * size of the store instead of the size of the page.
 */
import type { StatementSync } from 'node:sqlite';
import { allRows, type Database } from '../../kernel/store/database.ts';

/** Tokens of context snippet() returns around a hit (its maximum is 64). */
const SNIPPET_TOKENS = 16;

export interface TitleHitRow {
  meeting_id: string;
  title: string;
  created_at: string;
  context: string;
}

export interface SegmentHitRow extends TitleHitRow {
  start_s: number;
}

/**
 * snippet(table, column, before, after, ellipsis, tokens): empty markers, so
 * the context is plain text a client can show as is.
 */
const snippet = (table: string) => `snippet(${table}, 0, '', '', '…', ${SNIPPET_TOKENS})`;

const SEGMENT_HITS_SQL = `
  SELECT s.meeting_id, m.title, m.created_at, s.start_s, ${snippet('segments_fts')} AS context
    FROM segments_fts
    JOIN segments s ON s.id = segments_fts.rowid
    JOIN meetings m ON m.id = s.meeting_id
   WHERE segments_fts MATCH ?
   ORDER BY segments_fts.rowid DESC
   LIMIT ? OFFSET ?`;

export class SearchRepo {
  readonly #countTitles: StatementSync;
  readonly #titleHits: StatementSync;
  readonly #segmentHits: StatementSync;

  constructor(db: Database) {
    this.#countTitles = db.prepare('SELECT COUNT(*) AS n FROM titles_fts WHERE titles_fts MATCH ?');
    this.#titleHits = db.prepare(
      `SELECT m.id AS meeting_id, m.title, m.created_at, ${snippet('titles_fts')} AS context
         FROM titles_fts JOIN meetings m ON m.seq = titles_fts.rowid
        WHERE titles_fts MATCH ?
        ORDER BY titles_fts.rowid DESC
        LIMIT ? OFFSET ?`,
    );
    this.#segmentHits = db.prepare(SEGMENT_HITS_SQL);
  }

  /** How many meetings have a title matching; at most one hit per meeting. */
  countTitleHits(match: string): number {
    return (this.#countTitles.get(match) as { n: number }).n;
  }

  /** Title hits, most recently stored meeting first. */
  titleHits(match: string, limit: number, offset: number): TitleHitRow[] {
    return allRows<TitleHitRow>(this.#titleHits, match, limit, offset);
  }

  /**
   * Transcript hits in descending segment id order: newest meeting first and,
   * because a meeting's segments are stored last-first, in transcript order
   * within one meeting.
   */
  segmentHits(match: string, limit: number, offset: number): SegmentHitRow[] {
    return allRows<SegmentHitRow>(this.#segmentHits, match, limit, offset);
  }

  /** The plan SQLite chooses for the transcript query (a test pins that it needs no sort). */
  static segmentHitsPlan(db: Database): string[] {
    const rows = allRows<{ detail: string }>(db.prepare(`EXPLAIN QUERY PLAN ${SEGMENT_HITS_SQL}`), '"x"', 1, 0);
    return rows.map((r) => r.detail);
  }
}
