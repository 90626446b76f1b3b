/**
 * Jobs: their records, their state machine and the worker that runs them.
 *
 * One job runs at a time (the recognizer and the diarizer each want a whole
 * core of this two-core class of machine; uploads still stream in parallel).
 * Every state change goes through states.ts and publishes its event on
 * the bus, so a wait stream and a webhook see the same history.
 *
 * Pause and cancel are real: a running stage calls `checkpoint()` between
 * chunks, and child processes registered with `track()` are stopped with
 * SIGSTOP on pause, continued with SIGCONT on resume, and killed on cancel.
 * Decisions: docs/decisions/012-jobs.md.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../adapters/clock.ts';
import { ApiError } from '../../kernel/errors.ts';
import type { EventBus, EventName } from '../../kernel/events.ts';
import { CancelledError, StageError, type StageControl } from '../../pipeline/types.ts';
import type { JobParams, JobRecord, JobsRepo } from './repo.ts';
import { isTerminal, transition, type JobAction, type JobKind, type JobStage, type JobState } from './states.ts';
import { redactPaths } from '../../kernel/redact.ts';
import { clip } from '../../../common/clip.ts';

/**
 * One job kind's work. It reports its stage and progress through `run` and
 * returns the meeting it produced or changed.
 */
export type JobWork = (job: JobRecord, run: JobRun) => Promise<{ meetingId: string }>;

/** What the worker hands a job's work. */
export interface JobRun {
  control: StageControl;
  stage: (stage: JobStage) => void;
  /** The job's upload (an import), or null when it has none or it is gone. */
  upload: string | null;
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

interface Execution {
  jobId: string;
  abort: AbortController;
  paused: boolean;
  resumeWaiters: (() => void)[];
  children: Set<ChildProcess>;
}

export interface JobsServiceOptions {
  repo: JobsRepo;
  bus: EventBus;
  clock: Clock;
  uploadsDir: string;
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
  #active: Execution | null = null;
  #stopped = false;
  /** Resolves when the worker has nothing left to do; tests await it. */
  #idleWaiters: (() => void)[] = [];

  constructor(opts: JobsServiceOptions) {
    this.#o = opts;
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

  uploadPath(job: JobRecord): string | null {
    return job.source_file === null ? null : join(this.#o.uploadsDir, job.source_file);
  }

  // ── Creating ────────────────────────────────────────────────────────────
  /** An import whose bytes are already in uploads/<sourceFile>. */
  createImport(id: string, sourceFile: string, params: JobParams): JobRecord {
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
    this.#pump();
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
    this.#pump();
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
      source_file: input.kind === 'import' && !input.source_gone ? this.#fixtureUpload() : null,
      origin: 'desktop',
      hold: input.hold,
      created_at: now,
      finished_at: isTerminal(input.state) ? now : null,
    });
    this.#pump();
    return job;
  }

  // ── Controls (API routes) ───────────────────────────────────────────────
  cancel(id: string): JobRecord {
    const job = this.get(id);
    if (isTerminal(job.state) || job.state === 'cancelling') return job; // already over or ending: cancel is idempotent
    const exec = this.#active?.jobId === id ? this.#active : null;
    let updated = this.#move(job, 'cancel');
    if (exec !== null) this.#abort(exec); // its executor sees the cancel and settles the state
    // Nobody works on a held fixture: it ends at once.
    if (exec === null && updated.state === 'cancelling') updated = this.#move(updated, 'cancelled');
    return updated;
  }

  pause(id: string): JobRecord {
    const job = this.get(id);
    if (job.kind === 'import') throw new ApiError('import_not_pausable', 'import jobs cannot be paused; cancel and upload again instead');
    if (job.state === 'pausing' || job.state === 'paused') return job;
    if (job.state !== 'running') throw new ApiError('engine_busy', `only a running job can be paused; this one is ${job.state}`);
    let updated = this.#move(job, 'pause');
    const exec = this.#active?.jobId === id ? this.#active : null;
    if (exec === null) return this.#move(updated, 'paused'); // a held fixture: nothing to stop
    exec.paused = true;
    for (const child of exec.children) child.kill('SIGSTOP');
    // A stage running a child process is stopped now; pure code settles at its next checkpoint.
    if (exec.children.size > 0) updated = this.#move(updated, 'paused');
    return updated;
  }

  resume(id: string): JobRecord {
    const job = this.get(id);
    if (job.kind === 'import') throw new ApiError('import_not_pausable', 'import jobs are never paused');
    if (job.state === 'resuming' || job.state === 'running') return job;
    if (job.state !== 'paused') throw new ApiError('engine_busy', `only a paused job can be resumed; this one is ${job.state}`);
    const resuming = this.#move(job, 'resume');
    const exec = this.#active?.jobId === id ? this.#active : null;
    if (exec !== null) {
      exec.paused = false;
      for (const child of exec.children) child.kill('SIGCONT');
      for (const wake of exec.resumeWaiters.splice(0)) wake();
    }
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
      const path = this.uploadPath(job);
      if (path === null || !existsSync(path))
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
    this.#pump();
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
  /**
   * At startup: jobs that were in flight when the application stopped cannot
   * continue where they were (their process is gone), so they fail as
   * interrupted and may be retried; queued jobs run again. An import whose
   * meeting was already saved (JobRun.meetingSaved) made what it was asked for: it
   * succeeds, naming the meeting (whose summary can be regenerated).
   */
  recover(): void {
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
        is_retryable: job.kind !== 'import' || (this.uploadPath(job) !== null && existsSync(this.uploadPath(job)!)),
        finished_at: this.#now(),
      });
    }
    this.#pump();
  }

  /** Stops the worker (restart, quit). The job in flight is left for recover() of the next start. */
  stop(): void {
    this.#stopped = true;
    if (this.#active !== null) {
      this.#active.abort.abort();
      for (const child of this.#active.children) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
    }
  }

  deleteAll(): void {
    this.stop();
    this.#o.repo.deleteAll();
    rmSync(this.#o.uploadsDir, { recursive: true, force: true });
    this.#stopped = false;
  }

  /** Resolves once no job is running and none is waiting to run (tests, tools). */
  idle(): Promise<void> {
    if (this.#active === null && this.#next() === null) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  // ── Worker ──────────────────────────────────────────────────────────────
  #next(): JobRecord | null {
    return this.#o.repo.inStates(['queued']).find((j) => !j.hold) ?? null;
  }

  #pump(): void {
    if (this.#active !== null || this.#stopped) return;
    const job = this.#next();
    if (job === null) {
      for (const wake of this.#idleWaiters.splice(0)) wake();
      return;
    }
    const exec: Execution = { jobId: job.id, abort: new AbortController(), paused: false, resumeWaiters: [], children: new Set() };
    this.#active = exec;
    const running = this.#move(job, 'start', { stage: 'decoding' });
    // Run on the next turn so the caller's reply goes out first.
    setImmediate(() => {
      void this.#execute(running, exec).finally(() => {
        this.#active = null;
        this.#pump();
      });
    });
  }

  async #execute(job: JobRecord, exec: Execution): Promise<void> {
    const control = this.#controlFor(exec);
    let stage: JobStage = 'decoding';
    const setStage = (s: JobStage) => {
      stage = s;
      if (this.#stopped) return;
      const current = this.#o.repo.get(job.id);
      if (current !== null && !isTerminal(current.state)) this.#o.repo.update(job.id, { stage: s }, this.#now());
    };
    try {
      const meetingSaved = (meetingId: string) => {
        if (!this.#stopped) this.#o.repo.update(job.id, { meeting_id: meetingId, source_file: null }, this.#now());
      };
      const { meetingId } = await this.#o.runners[job.kind](job, { control, stage: setStage, upload: this.uploadPath(job), meetingSaved });
      if (this.#stopped) return; // the store is closing; recover() settles the job at the next start
      const current = this.#o.repo.get(job.id);
      if (current === null || isTerminal(current.state)) return;
      if (current.state === 'cancelling') {
        this.#move(current, 'cancelled');
        return;
      }
      this.#move(current, 'succeed', { stage: 'done', progress: 1, meeting_id: meetingId, finished_at: this.#now() });
    } catch (err) {
      if (this.#stopped) return;
      const current = this.#o.repo.get(job.id);
      if (current === null || isTerminal(current.state)) return;
      if (current.state === 'cancelling' || err instanceof CancelledError || exec.abort.signal.aborted) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may run while the job awaited
        if (this.#stopped) return; // shutting down: recover() decides at the next start
        const cancelling = current.state === 'cancelling' ? current : this.#move(current, 'cancel');
        if (cancelling.state === 'cancelling') this.#move(cancelling, 'cancelled');
        return;
      }
      const known = err instanceof StageError;
      if (!known) this.#o.logError?.(err);
      const message = known ? err.message : `the job failed unexpectedly while ${stage.replace('_', ' ')}`;
      const retryable = known ? err.retryable : true;
      const failed = this.#move(current, 'fail', { error: message, is_retryable: retryable, finished_at: this.#now() });
      // An upload that can never succeed is not kept: nothing half-made stays behind.
      if (failed.kind === 'import' && !retryable) this.#removeUpload(failed);
    }
  }

  #controlFor(exec: Execution): StageControl {
    return {
      signal: exec.abort.signal,
      checkpoint: async () => {
        if (exec.abort.signal.aborted || this.#stopped) throw new CancelledError();
        if (!exec.paused) return;
        const job = this.#o.repo.get(exec.jobId);
        if (job?.state === 'pausing') this.#move(job, 'paused');
        await new Promise<void>((resolve) => {
          exec.resumeWaiters.push(resolve);
          exec.abort.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a cancel may have come while paused
        if (exec.abort.signal.aborted) throw new CancelledError();
      },
      track: (child) => {
        exec.children.add(child);
        if (exec.paused) child.kill('SIGSTOP');
        const forget = () => exec.children.delete(child);
        child.once('exit', forget);
        return () => {
          forget();
        };
      },
      progress: (fraction) => {
        if (this.#stopped) return;
        const current = this.#o.repo.get(exec.jobId);
        if (current === null || isTerminal(current.state)) return;
        const rounded = Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 1000;
        if (rounded !== current.progress) this.#o.repo.update(exec.jobId, { progress: rounded }, this.#now());
      },
    };
  }

  #abort(exec: Execution): void {
    exec.abort.abort();
    for (const child of exec.children) {
      child.kill('SIGCONT'); // a stopped process cannot handle the kill until continued
      child.kill('SIGKILL');
    }
    for (const wake of exec.resumeWaiters.splice(0)) wake();
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
    const path = this.uploadPath(job);
    if (path !== null) rmSync(path, { force: true });
    if (job.source_file !== null) this.#o.repo.update(job.id, { source_file: null }, this.#now());
  }

  /** A fixture import that still has its bytes gets a placeholder upload, so a retry finds them. */
  #fixtureUpload(): string {
    const name = `fixture-${randomUUID()}.wav`;
    mkdirSync(this.#o.uploadsDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(this.#o.uploadsDir, name), new Uint8Array(0));
    return name;
  }

  #now(): string {
    return this.#o.clock.now().toISOString();
  }
}

export function newJobId(): string {
  return `job_${randomUUID()}`;
}
