/**
 * All SQL for jobs. State changes are written by JobsService only, after the
 * transition table allowed them.
 */
import { allRows, type Database } from '../../kernel/store/database.ts';
import type { JobKind, JobStage, JobState } from './states.ts';

export interface JobParams {
  /** Import: the file extension read from `filename`. */
  ext?: string;
  title?: string;
  language?: string;
  model?: string;
  provider?: string;
  /** Diarization: fixed speaker count, or absent for automatic. */
  speaker_count?: number;
}

export interface JobRecord {
  id: string;
  kind: JobKind;
  state: JobState;
  stage: JobStage;
  progress: number;
  meeting_id: string | null;
  is_retryable: boolean;
  error: string | null;
  params: JobParams;
  source_file: string | null;
  origin: 'api' | 'desktop';
  hold: boolean;
  attempts: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

interface JobRow {
  id: string;
  kind: JobKind;
  state: JobState;
  stage: JobStage;
  progress: number;
  meeting_id: string | null;
  is_retryable: number;
  error: string | null;
  params: string;
  source_file: string | null;
  origin: 'api' | 'desktop';
  hold: number;
  attempts: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export type NewJob = Omit<JobRecord, 'updated_at' | 'finished_at' | 'attempts'> & { finished_at?: string | null };

export class JobsRepo {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  insert(job: NewJob): JobRecord {
    this.#db
      .prepare(
        `INSERT INTO jobs (id, kind, state, stage, progress, meeting_id, is_retryable, error, params, source_file, origin, hold,
                           attempts, created_at, updated_at, finished_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
      )
      .run(
        job.id,
        job.kind,
        job.state,
        job.stage,
        job.progress,
        job.meeting_id,
        job.is_retryable ? 1 : 0,
        job.error,
        JSON.stringify(job.params),
        job.source_file,
        job.origin,
        job.hold ? 1 : 0,
        job.created_at,
        job.created_at,
        job.finished_at ?? null,
      );
    return this.get(job.id)!;
  }

  get(id: string): JobRecord | null {
    const row = this.#db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row === undefined ? null : toRecord(row);
  }

  /** Newest first. */
  list(): JobRecord[] {
    return allRows<JobRow>(this.#db.prepare('SELECT * FROM jobs ORDER BY seq DESC')).map(toRecord);
  }

  inStates(states: readonly JobState[]): JobRecord[] {
    const marks = states.map(() => '?').join(', ');
    return allRows<JobRow>(this.#db.prepare(`SELECT * FROM jobs WHERE state IN (${marks}) ORDER BY seq`), ...states).map(toRecord);
  }

  forMeeting(meetingId: string): JobRecord[] {
    return allRows<JobRow>(this.#db.prepare('SELECT * FROM jobs WHERE meeting_id = ? ORDER BY seq'), meetingId).map(toRecord);
  }

  update(
    id: string,
    fields: Partial<
      Pick<JobRecord, 'state' | 'stage' | 'progress' | 'meeting_id' | 'is_retryable' | 'error' | 'source_file' | 'finished_at' | 'attempts'>
    >,
    now: string,
  ): JobRecord {
    const sets: string[] = ['updated_at = ?'];
    const values: (string | number | null)[] = [now];
    for (const [key, value] of Object.entries(fields)) {
      sets.push(`${key} = ?`);
      values.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    }
    this.#db.prepare(`UPDATE jobs SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
    return this.get(id)!;
  }

  /** File names of uploads that some job still refers to. */
  referencedUploads(): Set<string> {
    const rows = this.#db.prepare('SELECT source_file FROM jobs WHERE source_file IS NOT NULL').all() as { source_file: string }[];
    return new Set(rows.map((r) => r.source_file));
  }

  deleteAll(): void {
    this.#db.exec('DELETE FROM jobs');
  }
}

function toRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    stage: row.stage,
    progress: row.progress,
    meeting_id: row.meeting_id,
    is_retryable: row.is_retryable === 1,
    error: row.error,
    params: JSON.parse(row.params) as JobParams,
    source_file: row.source_file,
    origin: row.origin,
    hold: row.hold === 1,
    attempts: row.attempts,
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}
