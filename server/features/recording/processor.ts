/**
 * What happens to a stopped recording: its WAV goes through the same
 * transcription as an import (server/pipeline/transcribe.ts) and is stored
 * the same way (summaries/store-transcription.ts): the transcript replaces
 * the meeting's empty one (transcript.updated), and the automatic summary
 * follows (summary.completed). A recording without speech keeps its empty
 * transcript and gets a summary saying so (decision 031).
 *
 * This is not a job: API.md's job kinds are import, retranscription and
 * diarization only. It has its own lane of the run queue
 * (server/work/run-queue.ts): one recording at a time in arrival order, its
 * stage and progress shown in GET /v1/recording (`processing`).
 * Decisions: docs/decisions/017-recording.md, 117-one-run-queue.md.
 */
import { storeTranscription, type StoreTranscriptionDeps } from '../summaries/index.ts';
import { ApiError } from '../../kernel/errors.ts';
import { transcribe, TRANSCRIPTION_STAGE_NAMES, type TranscriptionParts, type TranscriptionSettings } from '../../pipeline/transcribe.ts';
import { StageError, type StageControl } from '../../pipeline/types.ts';
import { RunQueue, type Lane } from '../../work/run-queue.ts';
import { redactPaths } from '../../kernel/redact.ts';
import type { MediaStore } from '../../media/media-store.ts';

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
  /** The recording's audio, by media id (the media store). */
  media: Pick<MediaStore, 'audio'>;
}

export interface RecordingProcessorOptions {
  transcription: RecordingTranscriptionDeps;
  /** Called when a recording's processing has ended for good (succeeded or failed), not when it was stopped. */
  onSettled: (meetingId: string) => void;
  logError?: (err: unknown) => void;
}

export class RecordingProcessor {
  readonly #o: RecordingProcessorOptions;
  /** Recordings waiting, in arrival order. */
  readonly #waiting: ProcessingView[] = [];
  readonly #views = new Map<string, ProcessingView>();
  readonly #queue: RunQueue<ProcessingView, void, ProcessingStage>;

  constructor(opts: RecordingProcessorOptions) {
    this.#o = opts;
    this.#queue = new RunQueue(this.#lane(), opts.logError !== undefined ? { logError: opts.logError } : {});
  }

  enqueue(meetingId: string): void {
    if (this.#queue.stopped) return;
    const view: ProcessingView = { meeting_id: meetingId, state: 'queued', stage: 'queued', progress: 0, error: null };
    this.#views.set(meetingId, view);
    this.#waiting.push(view);
    this.#queue.kick();
  }

  view(meetingId: string): ProcessingView | null {
    const v = this.#views.get(meetingId);
    return v === undefined ? null : { ...v, error: v.error === null ? null : redactPaths(v.error) };
  }

  /** Drops a meeting's processing (it was deleted): queued, it never runs; running, it is cancelled. */
  forget(meetingId: string): void {
    this.#views.delete(meetingId);
    const queued = this.#waiting.findIndex((v) => v.meeting_id === meetingId);
    if (queued >= 0) this.#waiting.splice(queued, 1);
    this.#queue.cancel(meetingId);
  }

  /** Control API reset: everything dropped. */
  clear(): void {
    const running = [...this.#views.keys()];
    this.#waiting.length = 0;
    for (const id of running) this.#queue.cancel(id);
    this.#views.clear();
  }

  /** Shutdown: the one in flight is cancelled, nothing else starts; pending markers make the next start redo them. */
  stop(): void {
    this.#waiting.length = 0;
    this.#queue.stop();
  }

  /** Resolves once nothing is running or queued (tests, benchmarks). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** What a recording's processing is: its transcription, shown in its view, and what each ending means. */
  #lane(): Lane<ProcessingView, void, ProcessingStage> {
    return {
      next: () => this.#waiting[0] ?? null,
      key: (view) => view.meeting_id,
      begin: (view) => {
        this.#waiting.shift();
        return view;
      },
      work: async (view, run) => {
        view.state = 'running';
        await this.#transcribe(view, run.control, run.stage);
      },
      stage: (view, stage) => {
        view.stage = stage;
      },
      progress: (view, fraction) => {
        view.progress = fraction;
      },
      succeeded: (view) => {
        view.state = 'succeeded';
        view.stage = 'done';
        view.progress = 1;
        this.#o.onSettled(view.meeting_id);
      },
      // Stopped or forgotten: settled elsewhere.
      failed: (view, err) => {
        const known = err instanceof StageError || err instanceof ApiError;
        if (!known) this.#o.logError?.(err);
        view.state = 'failed';
        view.error = known ? err.message : `processing the recording failed unexpectedly while ${view.stage.replace('_', ' ')}`;
        this.#o.onSettled(view.meeting_id);
      },
    };
  }

  async #transcribe(view: ProcessingView, control: StageControl, stage: (name: ProcessingStage) => void): Promise<void> {
    const deps = this.#o.transcription;
    const id = view.meeting_id;
    const recording = deps.meetings.recording(id);
    const audio = recording === null ? null : deps.media.audio({ recording });
    if (audio === null) throw new StageError('the meeting has no recording file', { retryable: false });
    const language = deps.meetings.get(id).language ?? 'en';
    const result = await transcribe(deps.parts, { audio, language, settings: deps.settings() }, control, stage);
    await storeTranscription(
      deps,
      result,
      { meetingId: id, noSpeech: 'store-empty', summarize: true },
      { stage, progress: (fraction) => control.progress(fraction) },
    );
    control.progress(1);
  }
}
