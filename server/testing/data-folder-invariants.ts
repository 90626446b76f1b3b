/**
 * What must hold in a data folder after any crash, checked by the fault
 * tests (docs/decisions/024-faults.md):
 *
 * - the SQLite file passes `PRAGMA integrity_check` (and foreign_key_check);
 * - no orphan files: every file in uploads/ belongs to a job, every file in
 *   recordings/ to a meeting, no temporary (dot) file is left but the
 *   recorder's pending markers of meetings that exist;
 * - no meeting without its transcript: a meeting's segments are numbered
 *   0..n-1 without a gap (written in one transaction), an imported meeting
 *   has at least one segment or the summary saying its audio held no speech
 *   (decision 031, saved in the same transaction), and a recorded meeting with no segment still
 *   has its pending marker (it is transcribed at the next start) unless it
 *   was processed and failed (then its transcript is empty, as decision 017
 *   documents);
 * - every job is in a documented state, and once a restart has run its
 *   recovery no job is left mid-flight (running, pausing, paused, resuming,
 *   cancelling) unless it is a held fixture or was started after that
 *   restart;
 * - an import job that still names an upload has that file.
 *
 * The folder is read directly (a second, read-only connection while the
 * gateway runs, WAL lets it; or the only one while the gateway is dead).
 */
import { DatabaseSync } from 'node:sqlite';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { JOB_STATES } from '../features/jobs/states.ts';
import { NO_SPEECH_SUMMARY } from '../features/summaries/service.ts';

export interface InvariantReport {
  problems: string[];
  counts: { meetings: number; jobs: number; uploads: number; recordings: number; markers: number };
}

/** integrity_check and foreign_key_check on the file; opens and closes its own connection. */
export function checkDatabaseFile(file: string): string[] {
  if (!existsSync(file)) return [];
  // Read-write on purpose when the gateway is dead: opening replays the WAL, as the next start would.
  const db = new DatabaseSync(file);
  try {
    const problems: string[] = [];
    const integrity = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[];
    if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok') {
      problems.push(`integrity_check: ${integrity.map((r) => r.integrity_check).join('; ')}`);
    }
    const fk = db.prepare('PRAGMA foreign_key_check').all();
    if (fk.length > 0) problems.push(`foreign_key_check: ${fk.length} rows violate a foreign key`);
    return problems;
  } finally {
    db.close();
  }
}

function tableExists(db: DatabaseSync, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * The data-folder invariants. `settled`: a restart has run its recovery, so
 * no job may be mid-flight unless held or `startedAfter` (ISO time of that
 * restart) is before its update.
 */
export function checkDataFolder(dataDir: string, opts: { settled: boolean; restartedAt?: string }): InvariantReport {
  const problems: string[] = [];
  const file = join(dataDir, 'gateway.sqlite');
  const counts = { meetings: 0, jobs: 0, uploads: 0, recordings: 0, markers: 0 };
  if (!existsSync(file)) return { problems, counts };
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const uploads = safeList(join(dataDir, 'uploads'));
    const recordings = safeList(join(dataDir, 'recordings'));
    counts.uploads = uploads.length;

    const meetings = tableExists(db, 'meetings')
      ? (db.prepare('SELECT id, source, recording_file FROM meetings').all() as {
          id: string;
          source: string;
          recording_file: string | null;
        }[])
      : [];
    counts.meetings = meetings.length;
    const meetingIds = new Set(meetings.map((m) => m.id));
    const recordingFiles = new Set(meetings.flatMap((m) => (m.recording_file === null ? [] : [m.recording_file])));
    const jobs = tableExists(db, 'jobs')
      ? (db.prepare('SELECT id, kind, state, hold, source_file, error, is_retryable, updated_at, meeting_id FROM jobs').all() as {
          id: string;
          kind: string;
          meeting_id: string | null;
          state: string;
          hold: number;
          source_file: string | null;
          error: string | null;
          is_retryable: number;
          updated_at: string;
        }[])
      : [];
    counts.jobs = jobs.length;

    // ── files ──
    const uploadRefs = new Set(jobs.flatMap((j) => (j.source_file === null ? [] : [j.source_file])));
    for (const name of uploads) if (!uploadRefs.has(name)) problems.push(`orphan upload: uploads/${name}`);
    const markers = new Set<string>();
    for (const name of recordings) {
      if (name.startsWith('.pending-')) {
        const id = name.slice('.pending-'.length);
        markers.add(id);
        if (!meetingIds.has(id)) problems.push(`pending marker of no meeting: recordings/${name}`);
      } else if (name.startsWith('.')) {
        problems.push(`temporary file left: recordings/${name}`);
      } else if (!recordingFiles.has(name)) {
        problems.push(`recording of no meeting: recordings/${name}`);
      } else {
        counts.recordings += 1;
      }
    }
    counts.markers = markers.size;
    for (const m of meetings) {
      if (m.recording_file !== null && !recordings.includes(m.recording_file))
        problems.push(`meeting ${m.id} names a recording that is missing`);
    }

    // ── transcripts ──
    const segs = tableExists(db, 'segments')
      ? (db.prepare('SELECT meeting_id, COUNT(*) AS n, MIN(idx) AS lo, MAX(idx) AS hi FROM segments GROUP BY meeting_id').all() as {
          meeting_id: string;
          n: number;
          lo: number;
          hi: number;
        }[])
      : [];
    const segOf = new Map(segs.map((s) => [s.meeting_id, s]));
    const noSpeech = new Set(
      tableExists(db, 'summaries')
        ? (
            db.prepare('SELECT meeting_id, result FROM summaries WHERE result IS NOT NULL').all() as {
              meeting_id: string;
              result: string;
            }[]
          )
            .filter((r) => (JSON.parse(r.result) as { text?: unknown }).text === NO_SPEECH_SUMMARY)
            .map((r) => r.meeting_id)
        : [],
    );
    for (const m of meetings) {
      const s = segOf.get(m.id);
      if (s !== undefined && (s.lo !== 0 || s.hi !== s.n - 1))
        problems.push(`meeting ${m.id}: half-written transcript (segments ${s.lo}..${s.hi}, ${s.n} rows)`);
      if (m.source === 'import' && s === undefined && !noSpeech.has(m.id)) problems.push(`imported meeting ${m.id} has no transcript`);
    }

    // ── jobs ──
    for (const j of jobs) {
      if (!(JOB_STATES as readonly string[]).includes(j.state)) problems.push(`job ${j.id}: undocumented state ${j.state}`);
      const midFlight = ['running', 'pausing', 'paused', 'resuming', 'cancelling'].includes(j.state);
      if (opts.settled && midFlight && j.hold === 0 && (opts.restartedAt === undefined || j.updated_at < opts.restartedAt)) {
        problems.push(`job ${j.id}: still ${j.state} after the restart's recovery`);
      }
      if (j.kind === 'import' && j.source_file !== null && !uploads.includes(j.source_file) && !j.source_file.startsWith('fixture-')) {
        // A finished import's upload became the meeting's recording; the row may still name it.
        if (j.state !== 'succeeded' && j.is_retryable === 1) problems.push(`job ${j.id}: retryable import whose upload is missing`);
      }
    }
    // Every imported meeting is named by the import job that made it, whatever moment a kill hit:
    // the job links its meeting when it is saved, and recovery settles such a job as succeeded.
    const claimed = new Set(jobs.flatMap((j) => (j.kind === 'import' && j.meeting_id !== null ? [j.meeting_id] : [])));
    for (const m of meetings) {
      if (m.source === 'import' && !claimed.has(m.id)) problems.push(`imported meeting ${m.id} is named by no import job`);
    }
  } finally {
    db.close();
  }
  return { problems, counts };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
