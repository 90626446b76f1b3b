/**
 * What happens to a stopped recording: its WAV goes through the same stages
 * as an import (decode → voice activity → recognition → diarization →
 * segments), the transcript replaces the meeting's empty one
 * (transcript.updated), and the automatic summary follows
 * (summary.completed).
 *
 * This is not a job: API.md's job kinds are import, retranscription and
 * diarization only. The recorder runs it itself, one recording at a time in
 * arrival order, and shows its stage and progress in GET /v1/recording
 * (`processing`). Decisions: docs/decisions/017-recording.md.
 */
import type { ChildProcess } from 'node:child_process';
import type { ConfigService } from '../domain/config-service.ts';
import type { MeetingsService } from '../domain/meetings-service.ts';
import type { SummaryService } from '../domain/summary-service.ts';
import { ApiError } from '../errors.ts';
import type { EventBus } from '../events.ts';
import { buildSegments, type PipelineDeps } from '../pipeline/job-runners.ts';
import { CancelledError, StageError, type DiarizationSettings, type StageControl, type VadSettings } from '../pipeline/types.ts';
import { redactPaths } from '../redact.ts';

export const PROCESSING_STAGES = ['queued', 'decoding', 'detecting_speech', 'transcribing', 'diarizing', 'saving', 'summarizing', 'done'] as const;
export type ProcessingStage = (typeof PROCESSING_STAGES)[number];
export type ProcessingState = 'queued' | 'running' | 'succeeded' | 'failed';

export interface ProcessingView {
  meeting_id: string;
  state: ProcessingState;
  stage: ProcessingStage;
  progress: number;
  /** Why processing failed (paths redacted); the meeting keeps its audio either way. */
  error: string | null;
}

export type ProcessorParts = Pick<PipelineDeps, 'decoder' | 'detectSpeech' | 'diarize' | 'assignSpeakers' | 'recognizerFor'>;

export interface RecordingProcessorOptions {
  parts: ProcessorParts;
  config: ConfigService;
  meetings: MeetingsService;
  summaries: SummaryService;
  bus: EventBus;
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
    const { parts, config, meetings } = this.#o;
    const id = view.meeting_id;
    const file = meetings.recordingPath(id);
    if (file === null) throw new StageError('the meeting has no recording file', { retryable: false });
    const language = meetings.get(id).language ?? 'en';

    view.stage = 'decoding';
    const audio = await parts.decoder.decode(file, 'wav', span(control, 0, 0.15));
    await control.checkpoint();

    view.stage = 'detecting_speech';
    const regions = parts.detectSpeech(audio, config.effective('vad') as unknown as VadSettings);
    control.progress(0.2);
    if (regions.length === 0) throw new StageError('no speech was found in the recording', { retryable: false });
    await control.checkpoint();

    view.stage = 'transcribing';
    const customWords = config.effective('custom-words') as { enabled: boolean; words: string[] };
    const prompt = config.effective('initial-prompt') as { enabled: boolean; prompt: string };
    const words = await parts.recognizerFor(undefined, undefined).transcribe(
      audio,
      regions,
      { language, customWords: customWords.enabled ? customWords.words : [], initialPrompt: prompt.enabled ? prompt.prompt : '' },
      span(control, 0.2, 0.75),
    );
    if (words.length === 0) throw new StageError('no words were recognized in the recording', { retryable: false });
    await control.checkpoint();

    view.stage = 'diarizing';
    const turns = await parts.diarize(audio, regions, config.effective('diarization') as unknown as DiarizationSettings, span(control, 0.75, 0.9));
    const speakers = parts.assignSpeakers(words, turns);
    await control.checkpoint();

    view.stage = 'saving';
    meetings.replaceTranscript(id, buildSegments(words, speakers));
    control.progress(0.95);
    this.#o.bus.publish('transcript.updated', { kind: 'meeting', id });

    view.stage = 'summarizing';
    await this.#o.summaries.generateAutomatically(id);
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

function span(control: StageControl, from: number, to: number): StageControl {
  return { ...control, progress: (f) => control.progress(from + (to - from) * Math.min(1, Math.max(0, f))) };
}
