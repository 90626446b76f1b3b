/**
 * Handlers of every route under /v1/recording. The recorder itself is
 * server/features/recording/service.ts; decisions on the gaps (status
 * codes, sub-codes, the wait's rules) are in docs/decisions/017-recording.md.
 */
import type { HandlersFor } from '../../http-types.ts';
import type { EventBus } from '../../kernel/events.ts';
import { waitOnBus, type WaitOutcome } from '../../kernel/sse-wait.ts';
import type { RecordingService } from './service.ts';

/** The services the recording routes use, and nothing else (built by server/deps.ts). */
export interface RecordingDeps {
  recording: RecordingService;
  /** The recording wait listens to it. */
  bus: EventBus;
}

export const recordingHandlers = {
  getRecording: ({ deps }) => ({ status: 200, json: deps.recording.view() }),

  startRecording: ({ deps, body, caller }) => {
    const view = deps.recording.start(body ?? {}, { remote: caller.remote });
    return { status: 202, json: view };
  },

  stopRecording: ({ deps }) => ({ status: 200, json: deps.recording.stop() }),
  pauseRecording: ({ deps }) => ({ status: 200, json: deps.recording.pause() }),
  resumeRecording: ({ deps }) => ({ status: 200, json: deps.recording.resume() }),

  waitRecording: (ctx) => {
    const { deps, res } = ctx;
    const { until, timeout: timeoutSeconds } = ctx.query;
    const recording = deps.recording;
    const started = (): WaitOutcome => ({ event: 'recording.started', data: recording.view() });
    const stopped = (): WaitOutcome => ({ event: 'recording.stopped', data: recording.view() });
    return waitOnBus({
      res,
      bus: deps.bus,
      timeoutMs: timeoutSeconds * 1000,
      timeoutData: { until, timeout_seconds: timeoutSeconds, state: recording.state },
      settle: (e) => {
        if (e === null) {
          // Already there: resolves at once. For started that is a recording running
          // (recording, paused) or, when idle, a latest start that ended before it
          // ever recorded (its start failed): then recording.stopped with last_error.
          const state = recording.state;
          if (until === 'started' && (state === 'recording' || state === 'paused')) return started();
          if (until === 'started' && state === 'idle' && recording.lastEnded !== null && !recording.lastEnded.reachedRecording)
            return stopped();
          if (until === 'stopped' && state === 'idle') return stopped();
          return null;
        }
        if (e.resource.kind !== 'recording') return null;
        if (e.event === 'recording.started' && until === 'started') return started();
        if (e.event === 'recording.stopped') {
          // A started-wait also ends when the recording it waited for ended without ever starting (its start failed).
          const neverStarted = recording.lastEnded?.id === e.resource.id && !recording.lastEnded.reachedRecording;
          if (until === 'stopped' || neverStarted) return stopped();
        }
        return null;
      },
    });
  },
} satisfies HandlersFor<
  'getRecording' | 'startRecording' | 'stopRecording' | 'pauseRecording' | 'resumeRecording' | 'waitRecording',
  RecordingDeps
>;
