/**
 * Summaries made by the service: the one generated automatically after an
 * import or a recording (no operation to wait on; summary.completed tells),
 * and regenerations started through the API, each an operation with its own
 * status and wait stream (API.md, Summary; decisions 004 and 013). Both run
 * on the summaries' lane of the run queue (server/work/run-queue.ts; decision
 * 117): each starts at once, beside the others, since a regeneration must not
 * wait behind an import and an import waits for its own summary.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../adapters/clock.ts';
import { ApiError } from '../../kernel/errors.ts';
import type { EventBus } from '../../kernel/events.ts';
import { redactPaths } from '../../kernel/redact.ts';
import { StageError, type Summarizer } from '../../pipeline/types.ts';
import { RunQueue, type Run } from '../../work/run-queue.ts';
import { EmptyTranscriptError } from '../../adapters/summarize/extractive.ts';
import { transaction, type Database } from '../../kernel/store/database.ts';
import type { MeetingsService } from '../meetings/index.ts';
import { defineStateMachine, transition } from '../../kernel/state-machine.ts';

export const OPERATION_STATES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type OperationState = (typeof OPERATION_STATES)[number];

const OPERATION_EVENTS = [
  'start', // the run began
  'succeed', // the summary was stored
  'fail', // the summarizer failed
  'interrupt', // the application stopped before the run ended
] as const;
export type OperationEvent = (typeof OPERATION_EVENTS)[number];

/** A regeneration operation's life (API.md, Summary; decision 013). Nothing leaves succeeded or failed. */
export const OPERATION_MACHINE = defineStateMachine({
  name: 'summary operation',
  states: OPERATION_STATES,
  events: OPERATION_EVENTS,
  rows: [
    { from: ['queued'], on: 'start', to: 'running' },
    { from: ['running'], on: 'succeed', to: 'succeeded' },
    { from: ['queued', 'running'], on: 'fail', to: 'failed' },
    { from: ['queued', 'running'], on: 'interrupt', to: 'failed' },
  ],
});

/** The states an operation can still leave: one of them makes the meeting busy (409 summary_generating). */
export const ACTIVE_OPERATION_STATES = OPERATION_STATES.filter((s) =>
  OPERATION_EVENTS.some((e) => transition(OPERATION_MACHINE, s, e) !== null),
);

export function isOperationEnded(state: OperationState): boolean {
  return !ACTIVE_OPERATION_STATES.includes(state);
}

/** The summary of a meeting whose recording holds no speech. */
export const NO_SPEECH_SUMMARY = 'No speech was found in the recording.';

export interface RegenerateRequest {
  model?: string;
  model_name?: string;
  template_id?: string;
  language?: string;
}

export interface SummaryDefaults {
  template_id: string;
  /** Summarizer: "extractive" or "openai-compatible". */
  model: string;
  model_name: string | null;
}

/**
 * What a summary is made with when the request names nothing: the automatic
 * summary after an import or a recording, and a regeneration without
 * template_id or model (API.md, RegenerateSummaryRequest: the application
 * default template).
 */
const SUMMARY_DEFAULTS: Readonly<SummaryDefaults> = { template_id: 'daily_standup', model: 'extractive', model_name: null };

export interface SummarizerCatalog {
  /** The summarizer for a model; throws an Error whose message says why for an unknown one. */
  byModel(model: string | undefined, modelName: string | undefined): Summarizer;
  isTemplate(id: string): boolean;
  templates: readonly string[];
}

export interface OperationDto {
  operation_id: string;
  meeting_id: string;
  state: OperationState;
  template_id: string;
  model: string;
  language: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  wait_url: string;
  status_url: string;
}

interface OperationRow {
  id: string;
  meeting_id: string;
  state: OperationState;
  params: string;
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

interface ResolvedParams {
  template_id: string;
  model: string;
  model_name: string | null;
  language: string | null;
}

/** One run of the summarizer: a regeneration (with its operation) or the automatic summary (without). */
interface SummaryRun {
  meetingId: string;
  params: ResolvedParams;
  summarizer: Summarizer;
  operationId: string | null;
}

export class SummaryService {
  readonly #db: Database;
  readonly #bus: EventBus;
  readonly #clock: Clock;
  readonly #meetings: MeetingsService;
  readonly #summarizers: SummarizerCatalog;
  readonly #defaults: SummaryDefaults;
  readonly #logError: (err: unknown) => void;
  /** The summaries' lane: every run starts at once; the queue stops them and calls recovery at start. */
  readonly #queue: RunQueue<SummaryRun, void, string>;

  constructor(opts: {
    db: Database;
    bus: EventBus;
    clock: Clock;
    meetings: MeetingsService;
    summarizers: SummarizerCatalog;
    /** SUMMARY_DEFAULTS unless a test says otherwise. */
    defaults?: SummaryDefaults;
    logError?: (err: unknown) => void;
  }) {
    this.#db = opts.db;
    this.#bus = opts.bus;
    this.#clock = opts.clock;
    this.#meetings = opts.meetings;
    this.#summarizers = opts.summarizers;
    this.#defaults = opts.defaults ?? SUMMARY_DEFAULTS;
    this.#logError = opts.logError ?? (() => undefined);
    this.#queue = new RunQueue(
      {
        startOn: 'now',
        concurrency: Infinity,
        key: (run) => run.operationId ?? `automatic:${run.meetingId}`,
        work: (run, control) => this.#run(run, control),
        recover: () => this.#recoverInterrupted(),
      },
      { logError: this.#logError },
    );
  }

  /**
   * POST /v1/meetings/{id}/summary/regenerate. 404 for an unknown meeting,
   * 422 for an empty transcript or an unknown template or model, 409
   * summary_generating while another regeneration of the meeting runs.
   */
  regenerate(meetingId: string, req: RegenerateRequest): OperationDto {
    const meeting = this.#meetings.get(meetingId);
    if (!this.#meetings.hasTranscript(meetingId)) {
      throw new ApiError('invalid_request', 'the meeting has an empty transcript: there is nothing to summarize');
    }
    const params: ResolvedParams = {
      template_id: req.template_id ?? this.#defaults.template_id,
      model: req.model ?? this.#defaults.model,
      model_name: req.model_name ?? this.#defaults.model_name,
      language: req.language ?? meeting.language,
    };
    if (!this.#summarizers.isTemplate(params.template_id)) {
      throw new ApiError('invalid_request', `template_id must be one of ${this.#summarizers.templates.join(', ')}`);
    }
    let summarizer: Summarizer;
    try {
      summarizer = this.#summarizers.byModel(params.model, params.model_name ?? undefined);
    } catch (err) {
      throw new ApiError('invalid_request', err instanceof Error ? err.message : 'unknown summary model');
    }

    const now = this.#now();
    const id = `op_${randomUUID()}`;
    transaction(this.#db, () => {
      const busy = this.#db
        .prepare(
          `SELECT 1 FROM summary_operations WHERE meeting_id = ? AND state IN (${ACTIVE_OPERATION_STATES.map(() => '?').join(', ')})`,
        )
        .get(meetingId, ...ACTIVE_OPERATION_STATES);
      if (busy !== undefined) throw new ApiError('summary_generating', 'a summary of this meeting is already being generated');
      this.#db
        .prepare(
          'INSERT INTO summary_operations (id, meeting_id, state, params, error, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?)',
        )
        .run(id, meetingId, 'queued', JSON.stringify(params), now, now);
    });
    this.#queue.runNow({ meetingId, params, summarizer, operationId: id }).catch((err: unknown) => this.#logError(err));
    return this.operation(meetingId, id);
  }

  /** The summary the application makes by itself after an import or a recording. */
  async generateAutomatically(meetingId: string): Promise<void> {
    const params: ResolvedParams = {
      template_id: this.#defaults.template_id,
      model: this.#defaults.model,
      model_name: this.#defaults.model_name,
      language: null,
    };
    const summarizer = this.#summarizers.byModel(params.model, params.model_name ?? undefined);
    await this.#queue.runNow({ meetingId, params, summarizer, operationId: null });
  }

  /**
   * The automatic summary of a meeting whose audio held no speech: it says
   * so, in place of a failure (decision 031). summary.completed follows, as
   * for any automatic summary. An import's meeting already holds it (saved
   * with the meeting, store-transcription.ts): it is kept as it is and
   * announced.
   */
  recordNoSpeech(meetingId: string): void {
    if (!this.#meetings.exists(meetingId)) return;
    if (this.#meetings.summary(meetingId).result?.text !== NO_SPEECH_SUMMARY) {
      this.#meetings.storeSummary(meetingId, {
        status: 'ready',
        result: { text: NO_SPEECH_SUMMARY, sections: [], template_id: null, model: null, source: 'generated' },
        regeneration_failed: false,
        error: null,
      });
    }
    this.#bus.publish('summary.completed', { kind: 'meeting', id: meetingId }, {});
  }

  operation(meetingId: string, operationId: string): OperationDto {
    const row = this.#db.prepare('SELECT * FROM summary_operations WHERE id = ? AND meeting_id = ?').get(operationId, meetingId) as
      OperationRow | undefined;
    if (row === undefined) throw new ApiError('not_found', 'there is no such regeneration operation for this meeting');
    return toDto(row);
  }

  /** Resolves once every run in flight has ended (tests, shutdown). */
  settled(): Promise<void> {
    return this.#queue.idle();
  }

  /**
   * After this, runs still in flight finish without touching the store (it is
   * about to close); recover() at the next start settles what they left.
   */
  stop(): void {
    this.#queue.stop();
  }

  /** At start: the lane's recovery (below). */
  recover(): void {
    this.#queue.start();
  }

  /** Operations left queued or running by a stop cannot continue: they fail. */
  #recoverInterrupted(): void {
    const active = this.#db
      .prepare(`SELECT id FROM summary_operations WHERE state IN (${ACTIVE_OPERATION_STATES.map(() => '?').join(', ')})`)
      .all(...ACTIVE_OPERATION_STATES) as { id: string }[];
    // No wait stream can be open yet (the listener starts after recovery), so nothing is told.
    for (const { id } of active)
      this.#moveOperation(id, 'interrupt', 'the application stopped before the summary was ready', { quiet: true });
    this.#db
      .prepare("UPDATE summaries SET status = CASE WHEN result IS NULL THEN 'failed' ELSE 'ready' END WHERE status = 'generating'")
      .run();
  }

  async #run({ meetingId, params, summarizer, operationId }: SummaryRun, run: Run<string>): Promise<void> {
    const before = this.#meetings.summary(meetingId);
    const previous = before.result;
    this.#moveOperation(operationId, 'start', null);
    this.#meetings.storeSummary(meetingId, { status: 'generating', result: previous, regeneration_failed: false, error: null });
    try {
      const transcript = this.#meetings.transcript(meetingId);
      if (transcript.segments.length === 0) throw new EmptyTranscriptError();
      // The meeting's date: due dates in the notes ("by Friday") are read against it (decision 078).
      const meetingDate = this.#meetings.get(meetingId).created_at;
      const output = await summarizer.summarize(
        {
          title: transcript.title,
          language: params.language,
          templateId: params.template_id,
          meetingDate,
          segments: transcript.segments.map((s) => ({
            speaker: s.speaker,
            speaker_name: s.speaker_name,
            start: s.start,
            end: s.end,
            text: s.text,
          })),
        },
        run.control,
      );
      if (run.stopped || !this.#meetings.exists(meetingId)) return; // stopping, or deleted while we worked
      this.#meetings.storeSummary(meetingId, {
        status: 'ready',
        result: { text: output.text, sections: output.sections, template_id: params.template_id, model: output.model, source: 'generated' },
        regeneration_failed: false,
        error: null,
      });
      this.#moveOperation(operationId, 'succeed', null);
      this.#bus.publish('summary.completed', { kind: 'meeting', id: meetingId }, operationId === null ? {} : { operation_id: operationId });
    } catch (err) {
      if (run.stopped) return;
      if (!(err instanceof StageError)) this.#logError(err);
      const reason = redactPaths(err instanceof StageError ? err.message : 'the summarizer failed unexpectedly');
      if (this.#meetings.exists(meetingId)) {
        this.#meetings.storeSummary(meetingId, {
          status: previous === null ? 'failed' : 'ready',
          result: previous,
          regeneration_failed: true,
          error: reason,
        });
      }
      this.#moveOperation(operationId, 'fail', reason);
    }
  }

  /**
   * Moves an operation along OPERATION_MACHINE; the only writer of its state.
   * A run without an operation (the automatic summary) has nothing to move;
   * an operation gone with its meeting, or a pair the table refuses, is left
   * as it is. An end is announced on the bus for the operation's wait stream.
   */
  #moveOperation(id: string | null, event: OperationEvent, error: string | null, opts: { quiet?: boolean } = {}): void {
    if (id === null) return;
    const row = this.#db.prepare('SELECT meeting_id, state FROM summary_operations WHERE id = ?').get(id) as
      { meeting_id: string; state: OperationState } | undefined;
    if (row === undefined) return;
    const next = transition(OPERATION_MACHINE, row.state, event);
    if (next === null) return;
    const now = this.#now();
    const finished = isOperationEnded(next) ? now : null;
    this.#db
      .prepare('UPDATE summary_operations SET state = ?, error = ?, updated_at = ?, finished_at = ? WHERE id = ?')
      .run(next, error, now, finished, id);
    if (finished !== null && opts.quiet !== true) {
      this.#bus.publish('summary.operation.ended', { kind: 'meeting', id: row.meeting_id }, { operation_id: id });
    }
  }

  #now(): string {
    return this.#clock.now().toISOString();
  }
}

function toDto(row: OperationRow): OperationDto {
  const params = JSON.parse(row.params) as ResolvedParams;
  const base = `/v1/meetings/${encodeURIComponent(row.meeting_id)}/summary/operations/${encodeURIComponent(row.id)}`;
  return {
    operation_id: row.id,
    meeting_id: row.meeting_id,
    state: row.state,
    template_id: params.template_id,
    model: params.model,
    language: params.language,
    error: row.error,
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
    wait_url: `${base}/wait`,
    status_url: base,
  };
}
