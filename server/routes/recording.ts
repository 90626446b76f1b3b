/**
 * Handlers of every route under /v1/recording. The recorder itself is
 * server/recording/recording-service.ts; decisions on the gaps (status
 * codes, sub-codes, the wait's rules) are in docs/decisions/017-recording.md.
 */
import type { HandlersFor } from '../app.ts';
import { openWaitStream } from '../http/sse.ts';

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
    let unsubscribe = () => {};
    const stream = openWaitStream(res, {
      timeoutMs: timeoutSeconds * 1000,
      timeoutData: { until, timeout_seconds: timeoutSeconds, state: recording.state },
      onClose: () => unsubscribe(),
    });
    unsubscribe = deps.bus.subscribe((e) => {
      if (e.resource.kind !== 'recording') return;
      if (e.event === 'recording.started' && until === 'started') stream.resolve('recording.started', recording.view());
      if (e.event === 'recording.stopped') {
        // A started-wait also ends when the recording it waited for ended without ever starting (its start failed).
        const neverStarted = recording.lastEnded?.id === e.resource.id && !recording.lastEnded.reachedRecording;
        if (until === 'stopped' || neverStarted) stream.resolve('recording.stopped', recording.view());
      }
    });
    // Already there: resolves at once. For started that is a recording running
    // (recording, paused) or, when idle, a latest start that ended before it
    // ever recorded (its start failed): then recording.stopped with last_error.
    const state = recording.state;
    if (until === 'started' && (state === 'recording' || state === 'paused')) stream.resolve('recording.started', recording.view());
    if (until === 'started' && state === 'idle' && recording.lastEnded !== null && !recording.lastEnded.reachedRecording) stream.resolve('recording.stopped', recording.view());
    if (until === 'stopped' && state === 'idle') stream.resolve('recording.stopped', recording.view());
    return { streamed: true };
  },
} satisfies HandlersFor<'getRecording' | 'startRecording' | 'stopRecording' | 'pauseRecording' | 'resumeRecording' | 'waitRecording'>;
