/**
 * Jobs: their records, their state machine, and their lane of the run
 * queue (server/work/run-queue.ts) that runs them.
 *
 * One job runs at a time (the recognizer and the diarizer each want a whole
 * core of this two-core class of machine; uploads still stream in parallel).
 * Every state change goes through states.ts and publishes its event on
 * the bus, so a wait stream and a webhook see the same history.
 *
 * Pause and cancel are real: the queue's stage control stops a running
 * stage's processes with SIGSTOP on pause, continues them on resume and kills
 * them on cancel; pure code stops at its next `checkpoint()`.
 * Decisions: docs/decisions/012-jobs.md, 117-one-run-queue.md.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../adapters/clock.ts';
import { ApiError } from '../../kernel/errors.ts';
import type { EventBus, EventName } from '../../kernel/events.ts';
import { StageError, type StageControl } from '../../pipeline/types.ts';
import { RunQueue, type Lane } from '../../work/run-queue.ts';
import type { JobParams, JobRecord, JobsRepo } from './repo.ts';
import { isTerminal, transition, type JobAction, type JobKind, type JobStage, type JobState } from './states.ts';
import { redactPaths } from '../../kernel/redact.ts';
import { clip } from '../../../common/clip.ts';
import type { MediaStore, UploadId } from '../../media/media-store.ts';

/**
 * One job kind's work. It reports its stage and progress through `run` and
 * returns the meeting it produced or changed.
 */
export type JobWork = (job: JobRecord, run: JobRun) => Promise<{ meetingId: string }>;

/** What the worker hands a job's work. */
export interface JobRun {
  control: StageControl;
  stage: (stage: JobStage) => void;
  /** The job's upload (an import) by its media id, or null when it has none. */
  upload: UploadId | null;
  /**
   * Records the meeting the work made on the job in the transaction that
   * saves the meeting (MeetingsService.create's inTransaction), so that no
   * kill leaves a meeting no job names, and a stop between saving it and
   * finishing (summarizing) leaves a job
   * that names its meeting, and recover() can settle that job as succeeded
   * instead of offering a retry that would import the same file twice
   * (docs/decisions/024-faults.md). The upload moved into the meeting as its
   * recording, so the job no longer names it.
   */
  meetingSaved: (meetingId: string) => void;
}

export type JobRunners = Record<JobKind, JobWork>;

export interface JobsServiceOptions {
  repo: JobsRepo;
  bus: EventBus;
  clock: Clock;
  /** The uploads: whether one is still there, removing them (the media store). */
  media: Pick<MediaStore, 'hasUpload' | 'removeUpload' | 'removeAllUploads' | 'placeholderUpload'>;
  runners: JobRunners;
  /** Where unexpected failures are reported (with detail); the job itself shows a redacted, generic error. */
  logError?: (err: unknown) => void;
}

const EVENT_OF: Partial<Record<JobState, EventName>> = {
  succeeded: 'job.completed',
  failed: 'job.failed',
  cancelled: 'job.cancelled',
  pausing: 'job.paused',
  paused: 'job.paused',
  resuming: 'job.resumed',
};

/**
 * The JobDto of API.md, shaped here for the API and the Control API alike:
 * the stored record with its error redacted.
 */
export function jobDto(job: JobRecord) {
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    stage: job.stage,
    progress: job.progress,
    meeting_id: job.meeting_id,
    is_retryable: job.is_retryable,
    error: job.error === null ? null : redactPaths(job.error),
    created_at: job.created_at,
    updated_at: job.updated_at,
    finished_at: job.finished_at,
    attempts: job.attempts,
  };
}

export class JobsService {
  readonly #o: JobsServiceOptions;
  /** The jobs' lane of the run queue: one job at a time, oldest queued first. */
  readonly #queue: RunQueue<JobRecord, { meetingId: string }, JobStage>;

  constructor(opts: JobsServiceOptions) {
    this.#o = opts;
    this.#queue = new RunQueue(this.#lane(), opts.logError !== undefined ? { logError: opts.logError } : {});
  }

  // ── Reading ─────────────────────────────────────────────────────────────
  list(): JobRecord[] {
    return this.#o.repo.list();
  }

  get(id: string): JobRecord {
    const job = this.#o.repo.get(id);
    if (job === null) throw new ApiError('not_found', `there is no job ${clip(id, 80)}`);
    return job;
  }

  // ── Creating ────────────────────────────────────────────────────────────
  /** An import whose bytes the media store already holds as `sourceFile`. */
  createImport(id: string, sourceFile: UploadId, params: JobParams): JobRecord {
    const job = this.#o.repo.insert({
      id,
      kind: 'import',
      state: 'queued',
      stage: 'waiting',
      progress: 0,
      meeting_id: null,
      is_retryable: false,
      error: null,
      params,
      source_file: sourceFile,
      origin: 'api',
      hold: false,
      created_at: this.#now(),
    });
    this.#queue.kick();
    return job;
  }

  /** 409 engine_busy while another diarization of the same meeting has not ended. */
  createDiarization(meetingId: string, speakerCount: number | undefined): JobRecord {
    const busy = this.#o.repo.forMeeting(meetingId).some((j) => j.kind === 'diarization' && !isTerminal(j.state));
    if (busy) throw new ApiError('engine_busy', 'a diarization of this meeting is already queued or running');
    const job = this.#o.repo.insert({
      id: newJobId(),
      kind: 'diarization',
      state: 'queued',
      stage: 'waiting',
      progress: 0,
      meeting_id: meetingId,
      is_retryable: false,
      error: null,
      params: speakerCount === undefined ? {} : { speaker_count: speakerCount },
      source_file: null,
      origin: 'api',
      hold: false,
      created_at: this.#now(),
    });
    this.#queue.kick();
    return job;
  }

  /** Control API fixtures: a job in any state, optionally held. */
  createFixture(input: {
    kind: JobKind;
    state: JobState;
    meeting_id: string | null;
    is_retryable: boolean;
    source_gone: boolean;
    error: string | null;
    hold: boolean;
    params?: JobParams;
  }): JobRecord {
    const now = this.#now();
    const job = this.#o.repo.insert({
      id: newJobId(),
      kind: input.kind,
      state: input.state,
      stage: isTerminal(input.state) ? 'done' : input.state === 'queued' ? 'waiting' : 'transcribing',
      progress: input.state === 'succeeded' ? 1 : 0,
      meeting_id: input.meeting_id,
      is_retryable: input.is_retryable,
      error: input.error ?? (input.state === 'failed' ? 'the job failed' : null),
      params: input.params ?? {},
      // An import fixture that still has its bytes points at a placeholder that
      // exists; one whose bytes are gone points at nothing.
      source_file: input.kind === 'import' && !input.source_gone ? this.#o.media.placeholderUpload() : null,
      origin: 'desktop',
      hold: input.hold,
      created_at: now,
      finished_at: isTerminal(input.state) ? now : null,
    });
    this.#queue.kick();
    return job;
  }

  // ── Controls (API routes) ───────────────────────────────────────────────
  cancel(id: string): JobRecord {
    const job = this.get(id);
    if (isTerminal(job.state) || job.state === 'cancelling') return job; // already over or ending: cancel is idempotent
    let updated = this.#move(job, 'cancel');
    const running = this.#queue.cancel(id); // its lane sees the cancel and settles the state
    // Nobody works on a held fixture: it ends at once.
    if (!running && updated.state === 'cancelling') updated = this.#move(updated, 'cancelled');
    return updated;
  }

  pause(id: string): JobRecord {
    const job = this.get(id);
    if (job.kind === 'import') throw new ApiError('import_not_pausable', 'import jobs cannot be paused; cancel and upload again instead');
    if (job.state === 'pausing' || job.state === 'paused') return job;
    if (job.state !== 'running') throw new ApiError('engine_busy', `only a running job can be paused; this one is ${job.state}`);
    const updated = this.#move(job, 'pause');
    const outcome = this.#queue.pause(id);
    // A held fixture has nothing to stop; a stage running a child process is stopped now;
    // pure code settles at its next checkpoint (the lane's pausedAt).
    return outcome === 'at-checkpoint' ? updated : this.#move(updated, 'paused');
  }

  resume(id: string): JobRecord {
    const job = this.get(id);
    if (job.kind === 'import') throw new ApiError('import_not_pausable', 'import jobs are never paused');
    if (job.state === 'resuming' || job.state === 'running') return job;
    if (job.state !== 'paused') throw new ApiError('engine_busy', `only a paused job can be resumed; this one is ${job.state}`);
    const resuming = this.#move(job, 'resume');
    this.#queue.resume(id);
    this.#move(resuming, 'resumed');
    return resuming;
  }

  retry(id: string): JobRecord {
    const job = this.get(id);
    if (!isTerminal(job.state)) throw new ApiError('not_terminal', `the job is ${job.state}; only a failed job can be retried`);
    if (job.state !== 'failed')
      throw new ApiError(
        'not_retryable',
        `the job ${job.state === 'succeeded' ? 'succeeded' : 'was cancelled'}; only a failed job can be retried`,
      );
    if (!job.is_retryable) throw new ApiError('not_retryable', 'this failure would happen again; the job is not retryable');
    if (job.kind === 'import') {
      if (!this.#o.media.hasUpload(job.source_file))
        throw new ApiError('source_gone', 'the uploaded file of this import is gone; upload it again');
    }
    const queued = this.#move(job, 'retry', {
      error: null,
      is_retryable: false,
      stage: 'waiting',
      progress: 0,
      finished_at: null,
      attempts: job.attempts + 1,
    });
    this.#queue.kick();
    return queued;
  }

  /** Control API: ends a held job as a real one would end, with its events. */
  finishFixture(id: string, outcome: 'succeeded' | 'failed', error: string | null): JobRecord {
    let job = this.get(id);
    if (isTerminal(job.state)) throw new ApiError('not_terminal', `the job has already ended (${job.state})`);
    if (job.state === 'queued') job = this.#move(job, 'start', { stage: 'transcribing' });
    if (job.state === 'paused') job = this.#move(this.#move(job, 'resume'), 'resumed');
    if (job.state === 'pausing') job = this.#move(this.#move(this.#move(job, 'paused'), 'resume'), 'resumed');
    if (job.state === 'cancelling') return this.#move(job, 'cancelled');
    return outcome === 'succeeded'
      ? this.#move(job, 'succeed', { stage: 'done', progress: 1, finished_at: this.#now() })
      : this.#move(job, 'fail', { error: error ?? 'the job failed', is_retryable: true, finished_at: this.#now() });
  }

  /** Before a meeting is deleted: its unfinished jobs are cancelled and their uploads removed. */
  releaseMeeting(meetingId: string): void {
    for (const job of this.#o.repo.forMeeting(meetingId)) {
      if (!isTerminal(job.state)) this.cancel(job.id);
      this.#removeUpload(job);
    }
  }

  // ── Lifecycle ───────────────────────────────────────────────────────────
  /** At startup: the lane's recovery (below), then whatever is queued runs. */
  recover(): void {
    this.#queue.start();
  }

  /** Stops the worker (restart, quit). The job in flight is left for recover() of the next start. */
  stop(): void {
    this.#queue.stop();
  }

  deleteAll(): void {
    this.#queue.stop();
    this.#o.repo.deleteAll();
    this.#o.media.removeAllUploads();
    this.#queue.reopen();
  }

  /** Resolves once no job is running and none is waiting to run (tests, tools). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  // ── The jobs' lane of the run queue ─────────────────────────────────────
  /** What a job's run is: its runner (runners.ts) over its stages, and what each ending means for the job. */
  #lane(): Lane<JobRecord, { meetingId: string }, JobStage> {
    return {
      next: () => this.#o.repo.inStates(['queued']).find((j) => !j.hold) ?? null,
      key: (job) => job.id,
      begin: (job) => this.#move(job, 'start', { stage: 'decoding' }),
      work: (job, run) => {
        const meetingSaved = (meetingId: string) => {
          if (!run.stopped) this.#o.repo.update(job.id, { meeting_id: meetingId, source_file: null }, this.#now());
        };
        return this.#o.runners[job.kind](job, { control: run.control, stage: run.stage, upload: job.source_file, meetingSaved });
      },
      stage: (job, stage) => {
        const current = this.#o.repo.get(job.id);
        if (current !== null && !isTerminal(current.state)) this.#o.repo.update(job.id, { stage }, this.#now());
      },
      progress: (job, fraction) => {
        const current = this.#o.repo.get(job.id);
        if (current === null || isTerminal(current.state)) return;
        if (fraction !== current.progress) this.#o.repo.update(job.id, { progress: fraction }, this.#now());
      },
      pausedAt: (job) => {
        const current = this.#o.repo.get(job.id);
        if (current?.state === 'pausing') this.#move(current, 'paused');
      },
      succeeded: (job, { meetingId }) => {
        const current = this.#o.repo.get(job.id);
        if (current === null || isTerminal(current.state)) return;
        if (current.state === 'cancelling') this.#move(current, 'cancelled');
        else this.#move(current, 'succeed', { stage: 'done', progress: 1, meeting_id: meetingId, finished_at: this.#now() });
      },
      cancelled: (job) => this.#settleCancelled(job.id),
      failed: (job, err, stage) => {
        const current = this.#o.repo.get(job.id);
        if (current === null || isTerminal(current.state)) return;
        if (current.state === 'cancelling') {
          this.#settleCancelled(job.id);
          return;
        }
        const known = err instanceof StageError;
        if (!known) this.#o.logError?.(err);
        const message = known ? err.message : `the job failed unexpectedly while ${(stage ?? 'decoding').replace('_', ' ')}`;
        const retryable = known ? err.retryable : true;
        const failed = this.#move(current, 'fail', { error: message, is_retryable: retryable, finished_at: this.#now() });
        // An upload that can never succeed is not kept: nothing half-made stays behind.
        if (failed.kind === 'import' && !retryable) this.#removeUpload(failed);
      },
      recover: () => this.#recoverInterrupted(),
    };
  }

  /** A cancelled run ends its job: cancelling → cancelled (a running one is moved to cancelling first). */
  #settleCancelled(id: string): void {
    const current = this.#o.repo.get(id);
    if (current === null || isTerminal(current.state)) return;
    const cancelling = current.state === 'cancelling' ? current : this.#move(current, 'cancel');
    if (cancelling.state === 'cancelling') this.#move(cancelling, 'cancelled');
  }

  /**
   * Restart recovery: jobs that were in flight when the application stopped
   * cannot continue where they were (their process is gone), so they fail as
   * interrupted and may be retried; queued jobs run again. An import whose
   * meeting was already saved (JobRun.meetingSaved) made what it was asked for: it
   * succeeds, naming the meeting (whose summary can be regenerated).
   */
  #recoverInterrupted(): void {
    for (const job of this.#o.repo.inStates(['running', 'pausing', 'paused', 'resuming', 'cancelling'])) {
      if (job.hold) continue;
      if (job.state === 'cancelling') {
        this.#move(job, 'cancelled');
        continue;
      }
      if (job.kind === 'import' && job.meeting_id !== null && job.state !== 'paused') {
        this.#move(job, 'succeed', { stage: 'done', progress: 1, finished_at: this.#now() });
        continue;
      }
      this.#move(job, 'interrupt', {
        error: 'the job was interrupted because the application stopped',
        is_retryable: job.kind !== 'import' || this.#o.media.hasUpload(job.source_file),
        finished_at: this.#now(),
      });
    }
  }

  /** The one place a job's state changes: checked against the table, written, announced. */
  #move(job: JobRecord, action: JobAction, fields: Parameters<JobsRepo['update']>[1] = {}): JobRecord {
    const next = transition(job.state, action);
    if (next === null) throw new Error(`job transition ${job.state} --${action}--> is not in the table`);
    const updated = this.#o.repo.update(
      job.id,
      { ...fields, state: next, ...(isTerminal(next) && fields.finished_at === undefined ? { finished_at: this.#now() } : {}) },
      this.#now(),
    );
    const event = EVENT_OF[next];
    if (event !== undefined) this.#o.bus.publish(event, { kind: 'job', id: job.id });
    return updated;
  }

  #removeUpload(job: JobRecord): void {
    if (job.source_file === null) return;
    this.#o.media.removeUpload(job.source_file);
    this.#o.repo.update(job.id, { source_file: null }, this.#now());
  }

  #now(): string {
    return this.#o.clock.now().toISOString();
  }
}

export function newJobId(): string {
  return `job_${randomUUID()}`;
}
