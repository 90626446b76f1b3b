/**
 * All SQL for meetings and what hangs off them: segments (the transcript),
 * speaker labels and summaries. Tables are defined in migrations.ts.
 *
 * The repository speaks in rows, not DTOs: it neither knows the HTTP shapes
 * nor throws HTTP errors. Transactions are opened by the caller (the domain
 * service) with `transaction()` from database.ts, so a multi-statement change
 * commits as one.
 *
 * Deleting a meeting row cascades to its segments, labels and summary through
 * the foreign keys (database.ts turns them on); the FTS triggers keep the
 * search indexes in step.
 */
import type { StatementSync } from 'node:sqlite';
import { allRows, type Database } from '../../kernel/store/database.ts';

export interface MeetingRow {
  seq: number;
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  source: string;
  language: string | null;
  /** The stored duration, else the end of the last segment, else null. */
  duration_seconds: number | null;
  recording_file: string | null;
}

/** A meeting as inserted: every column but the rowid the store assigns. */
export type NewMeetingRow = Omit<MeetingRow, 'seq'>;

export type LabelSource = 'user' | 'identified';

export interface SegmentRow {
  idx: number;
  speaker: string;
  start_s: number;
  end_s: number;
  text: string;
  /** JSON array text or null. */
  words: string | null;
}

export interface SummaryRow {
  meeting_id: string;
  status: string;
  /** JSON object text or null. */
  result: string | null;
  regeneration_failed: number;
  error: string | null;
  updated_at: string;
}

/**
 * duration_seconds falls back to the end of the last segment; the
 * UNIQUE (meeting_id, idx) index serves the subquery.
 */
const MEETING_COLUMNS = `
  m.seq, m.id, m.title, m.created_at, m.updated_at, m.source, m.language,
  COALESCE(m.duration_seconds, (SELECT MAX(s.end_s) FROM segments s WHERE s.meeting_id = m.id)) AS duration_seconds,
  m.recording_file`;

/** The hot reads' SQL, built once: #sql() finds its statement by this text, and a constant string keeps its hash. */
const PAGE_SQL = `SELECT ${MEETING_COLUMNS} FROM meetings m ORDER BY m.created_at DESC, m.id DESC LIMIT ? OFFSET ?`;
const GET_SQL = `SELECT ${MEETING_COLUMNS} FROM meetings m WHERE m.id = ?`;

export class MeetingsRepo {
  readonly #db: Database;
  readonly #stmts = new Map<string, StatementSync>();

  constructor(db: Database) {
    this.#db = db;
  }

  /** Prepared statements are cached by their SQL text. */
  #sql(sql: string): StatementSync {
    let stmt = this.#stmts.get(sql);
    if (stmt === undefined) {
      stmt = this.#db.prepare(sql);
      this.#stmts.set(sql, stmt);
    }
    return stmt;
  }

  // ── Meetings ─────────────────────────────────────────────────────────────

  count(): number {
    const row = this.#sql('SELECT COUNT(*) AS n FROM meetings').get() as { n: number };
    return row.n;
  }

  /** Newest first: created_at DESC, then id DESC (the meetings_by_created index). */
  page(limit: number, offset: number): MeetingRow[] {
    return allRows<MeetingRow>(this.#sql(PAGE_SQL), limit, offset);
  }

  get(id: string): MeetingRow | undefined {
    return this.#sql(GET_SQL).get(id) as MeetingRow | undefined;
  }

  insert(row: NewMeetingRow): void {
    this.#sql(
      `INSERT INTO meetings (id, title, created_at, updated_at, source, language, duration_seconds, recording_file)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(row.id, row.title, row.created_at, row.updated_at, row.source, row.language, row.duration_seconds, row.recording_file);
  }

  /** Returns false when no meeting has this id. */
  rename(id: string, title: string, updatedAt: string): boolean {
    const result = this.#sql('UPDATE meetings SET title = ?, updated_at = ? WHERE id = ?').run(title, updatedAt, id);
    return result.changes > 0;
  }

  /**
   * Deletes one meeting (cascading to segments, labels and summary) and
   * returns its recording file name, or undefined when no meeting had the id.
   */
  delete(id: string): { recording_file: string | null } | undefined {
    const row = this.#sql('DELETE FROM meetings WHERE id = ? RETURNING recording_file').get(id) as
      { recording_file: string | null } | undefined;
    return row;
  }

  /**
   * Deletes every meeting. Children are removed table by table first, so the
   * cascade has nothing left to look up per meeting.
   */
  deleteAll(): void {
    this.#db.exec('DELETE FROM speaker_labels; DELETE FROM summaries; DELETE FROM segments; DELETE FROM meetings;');
  }

  // ── Segments ─────────────────────────────────────────────────────────────

  insertSegment(meetingId: string, seg: SegmentRow): void {
    this.#sql('INSERT INTO segments (meeting_id, idx, speaker, start_s, end_s, text, words) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      meetingId,
      seg.idx,
      seg.speaker,
      seg.start_s,
      seg.end_s,
      seg.text,
      seg.words,
    );
  }

  /** File names of every meeting's recording. */
  recordingFiles(): Set<string> {
    const rows = this.#sql('SELECT recording_file FROM meetings WHERE recording_file IS NOT NULL').all() as { recording_file: string }[];
    return new Set(rows.map((r) => r.recording_file));
  }

  deleteSegments(meetingId: string): void {
    this.#sql('DELETE FROM segments WHERE meeting_id = ?').run(meetingId);
  }

  touch(id: string, updatedAt: string): void {
    this.#sql('UPDATE meetings SET updated_at = ? WHERE id = ?').run(updatedAt, id);
  }

  /** The transcript in segment order. */
  segments(meetingId: string): SegmentRow[] {
    return allRows<SegmentRow>(
      this.#sql('SELECT idx, speaker, start_s, end_s, text, words FROM segments WHERE meeting_id = ? ORDER BY idx'),
      meetingId,
    );
  }

  // ── Speaker labels ───────────────────────────────────────────────────────

  labels(meetingId: string): Map<string, string> {
    const rows = allRows<{ speaker_key: string; label: string }>(
      this.#sql('SELECT speaker_key, label FROM speaker_labels WHERE meeting_id = ? ORDER BY speaker_key'),
      meetingId,
    );
    return new Map(rows.map((r) => [r.speaker_key, r.label]));
  }

  /** Who gave each label: 'user' (PUT speaker-labels) or 'identified' (speaker identification). */
  labelSources(meetingId: string): Map<string, LabelSource> {
    const rows = allRows<{ speaker_key: string; source: LabelSource }>(
      this.#sql('SELECT speaker_key, source FROM speaker_labels WHERE meeting_id = ?'),
      meetingId,
    );
    return new Map(rows.map((r) => [r.speaker_key, r.source]));
  }

  setLabel(meetingId: string, key: string, label: string, source: LabelSource = 'user'): void {
    this.#sql(
      `INSERT INTO speaker_labels (meeting_id, speaker_key, label, source) VALUES (?, ?, ?, ?)
       ON CONFLICT (meeting_id, speaker_key) DO UPDATE SET label = excluded.label, source = excluded.source`,
    ).run(meetingId, key, label, source);
  }

  /** Removes the identified labels of a meeting (all, or those giving `name`); a user's labels stay. */
  removeIdentified(meetingId: string, name?: string): void {
    if (name === undefined) this.#sql("DELETE FROM speaker_labels WHERE meeting_id = ? AND source = 'identified'").run(meetingId);
    else this.#sql("DELETE FROM speaker_labels WHERE meeting_id = ? AND source = 'identified' AND label = ?").run(meetingId, name);
  }

  removeLabel(meetingId: string, key: string): void {
    this.#sql('DELETE FROM speaker_labels WHERE meeting_id = ? AND speaker_key = ?').run(meetingId, key);
  }

  // ── Summaries ────────────────────────────────────────────────────────────

  summary(meetingId: string): SummaryRow | undefined {
    return this.#sql('SELECT meeting_id, status, result, regeneration_failed, error, updated_at FROM summaries WHERE meeting_id = ?').get(
      meetingId,
    ) as SummaryRow | undefined;
  }

  upsertSummary(row: SummaryRow): void {
    this.#sql(
      `INSERT INTO summaries (meeting_id, status, result, regeneration_failed, error, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (meeting_id) DO UPDATE SET
         status = excluded.status, result = excluded.result,
         regeneration_failed = excluded.regeneration_failed,
         error = excluded.error, updated_at = excluded.updated_at`,
    ).run(row.meeting_id, row.status, row.result, row.regeneration_failed, row.error, row.updated_at);
  }
}
