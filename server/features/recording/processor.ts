/**
 * What happens to a stopped recording: its WAV goes through the same
 * transcription as an import (server/pipeline/transcribe.ts) and is stored
 * the same way (summaries/store-transcription.ts): the transcript replaces
 * the meeting's empty one (transcript.updated), and the automatic summary
 * follows (summary.completed). A recording without speech keeps its empty
 * transcript and gets a summary saying so (decision 031).
 *
 * This is not a job: API.md's job kinds are import, retranscription and
 * diarization only. The recorder runs it itself, one recording at a time in
 * arrival order, and shows its stage and progress in GET /v1/recording
 * (`processing`). Decisions: docs/decisions/017-recording.md.
 */
import type { ChildProcess } from 'node:child_process';
import { storeTranscription, type StoreTranscriptionDeps } from '../summaries/index.ts';
import { ApiError } from '../../kernel/errors.ts';
import { transcribe, TRANSCRIPTION_STAGE_NAMES, type TranscriptionParts, type TranscriptionSettings } from '../../pipeline/transcribe.ts';
import { CancelledError, StageError, type StageControl } from '../../pipeline/types.ts';
import { redactPaths } from '../../kernel/redact.ts';

export const PROCESSING_STAGES = ['queued', ...TRANSCRIPTION_STAGE_NAMES, 'saving', 'summarizing', 'done'] as const;
type ProcessingStage = (typeof PROCESSING_STAGES)[number];
type ProcessingState = 'queued' | 'running' | 'succeeded' | 'failed';

export interface ProcessingView {
  meeting_id: string;
  state: ProcessingState;
  stage: ProcessingStage;
  progress: number;
  /** Why processing failed (paths redacted); the meeting keeps its audio either way. */
  error: string | null;
}

/** What a recording's transcription uses: the pipeline's parts, the settings in force, where the result goes. */
export interface RecordingTranscriptionDeps extends StoreTranscriptionDeps {
  parts: TranscriptionParts;
  /** Read as each recording's processing starts (features/config: transcriptionSettings()). */
  settings(): TranscriptionSettings;
}

export interface RecordingProcessorOptions {
  transcription: RecordingTranscriptionDeps;
  /** Called when a recording's processing has ended for good (succeeded or failed), not when it was stopped. */
  onSettled: (meetingId: string) => void;
  logError?: (err: unknown) => void;
}

interface Item {
  view: ProcessingView;
  abort: AbortController;
  children: Set<ChildProcess>;
}

export class RecordingProcessor {
  readonly #o: RecordingProcessorOptions;
  readonly #queue: Item[] = [];
  readonly #views = new Map<string, ProcessingView>();
  #active: Item | null = null;
  #stopped = false;
  #idleWaiters: (() => void)[] = [];

  constructor(opts: RecordingProcessorOptions) {
    this.#o = opts;
  }

  enqueue(meetingId: string): void {
    if (this.#stopped) return;
    const view: ProcessingView = { meeting_id: meetingId, state: 'queued', stage: 'queued', progress: 0, error: null };
    this.#views.set(meetingId, view);
    this.#queue.push({ view, abort: new AbortController(), children: new Set() });
    this.#pump();
  }

  view(meetingId: string): ProcessingView | null {
    const v = this.#views.get(meetingId);
    return v === undefined ? null : { ...v, error: v.error === null ? null : redactPaths(v.error) };
  }

  /** Drops a meeting's processing (it was deleted): queued, it never runs; running, it is cancelled. */
  forget(meetingId: string): void {
    this.#views.delete(meetingId);
    const queued = this.#queue.findIndex((i) => i.view.meeting_id === meetingId);
    if (queued >= 0) this.#queue.splice(queued, 1);
    if (this.#active?.view.meeting_id === meetingId) this.#cancel(this.#active);
  }

  /** Control API reset: everything dropped. */
  clear(): void {
    this.#queue.length = 0;
    if (this.#active !== null) this.#cancel(this.#active);
    this.#views.clear();
  }

  /** Shutdown: the one in flight is cancelled, nothing else starts; pending markers make the next start redo them. */
  stop(): void {
    this.#stopped = true;
    this.#queue.length = 0;
    if (this.#active !== null) this.#cancel(this.#active);
  }

  /** Resolves once nothing is running or queued (tests, benchmarks). */
  idle(): Promise<void> {
    if (this.#active === null && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #pump(): void {
    if (this.#active !== null) return;
    const next = this.#stopped ? undefined : this.#queue.shift();
    if (next === undefined) {
      for (const wake of this.#idleWaiters.splice(0)) wake();
      return;
    }
    this.#active = next;
    setImmediate(() => {
      void this.#run(next).finally(() => {
        this.#active = null;
        this.#pump();
      });
    });
  }

  async #run(item: Item): Promise<void> {
    const { view } = item;
    view.state = 'running';
    const control = this.#control(item);
    try {
      await this.#transcribe(view, control);
      view.state = 'succeeded';
      view.stage = 'done';
      view.progress = 1;
      this.#o.onSettled(view.meeting_id);
    } catch (err) {
      if (item.abort.signal.aborted || err instanceof CancelledError) return; // stopped or forgotten: settled elsewhere
      const known = err instanceof StageError || err instanceof ApiError;
      if (!known) this.#o.logError?.(err);
      view.state = 'failed';
      view.error = known ? err.message : `processing the recording failed unexpectedly while ${view.stage.replace('_', ' ')}`;
      this.#o.onSettled(view.meeting_id);
    }
  }

  async #transcribe(view: ProcessingView, control: StageControl): Promise<void> {
    const deps = this.#o.transcription;
    const id = view.meeting_id;
    const file = deps.meetings.recordingPath(id);
    if (file === null) throw new StageError('the meeting has no recording file', { retryable: false });
    const language = deps.meetings.get(id).language ?? 'en';
    const stage = (name: ProcessingStage) => {
      view.stage = name;
    };
    const result = await transcribe(deps.parts, { file, ext: 'wav', language, settings: deps.settings() }, control, stage);
    await storeTranscription(
      deps,
      result,
      { meetingId: id, noSpeech: 'store-empty', summarize: true },
      { stage, progress: (fraction) => control.progress(fraction) },
    );
    control.progress(1);
  }

  #control(item: Item): StageControl {
    return {
      signal: item.abort.signal,
      checkpoint: () => (item.abort.signal.aborted ? Promise.reject(new CancelledError()) : Promise.resolve()),
      track: (child) => {
        item.children.add(child);
        if (item.abort.signal.aborted) child.kill('SIGKILL');
        const forget = () => item.children.delete(child);
        child.once('exit', forget);
        return forget;
      },
      progress: (fraction) => {
        item.view.progress = Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 1000;
      },
    };
  }

  #cancel(item: Item): void {
    item.abort.abort();
    for (const child of item.children) child.kill('SIGKILL');
  }
}
