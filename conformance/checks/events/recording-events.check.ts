import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { inputDevice } from '../../harness/devices.ts';
import { envelopeOf, hookTo } from '../../harness/webhooks.ts';
import { skipWhenStillPending } from '../../harness/polling.ts';
import { fromIdle, pollRecording } from '../../harness/recording.ts';

/** How long after the recording reads idle its recording.stopped may take to arrive. */
const STOPPED_WAIT_MS = 15_000;

export const check = defineCheck({
  id: 'events/recording-events',
  clauses: ['events.recording-started', 'events.recording-stopped'],
  level: 'requirement',
  touches: 'recorder',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'tokens'], // and an input device (harness/devices.ts)
  timeoutMs: 90_000,
  description:
    'An approved webhook (record scope) for recording.started and recording.stopped; a ' +
    'recording on a simulated microphone (Control API; else an input device GET /v1/devices lists) is started and stopped: ' +
    'recording.started arrives once the state is recording, recording.stopped once it stopped.',
  requirement: 'recording.started is emitted once the recording has actually started.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'record']));
    const { endpoint } = await hookTo(ctx, api, 'recording', ['recording.started', 'recording.stopped'], { status: 204 });
    await inputDevice(ctx, api, { name: 'Conformance Mic', script: null });
    await fromIdle(ctx, api);
    const start = await api.post('/v1/recording/start', { json: {} });
    if (!start.ok) return ctx.skip(`the recording could not be started (${start.describe(150)}); recording/lifecycle reports it`);
    const up = await pollRecording(api, ['recording'], 10_000);
    if (up.state === 'starting') await api.post('/v1/recording/stop', { label: 'stop the recording still starting (clean-up)' });
    // Still starting when the 10 s ran out: no recording.started is due yet; slow, not wrong (decision 081).
    skipWhenStillPending(ctx, 'the recording', up);
    const startedAt = Date.now();
    await endpoint.waitFor(1, 5000);
    const started = endpoint.deliveries.filter((d) => envelopeOf(d)?.event === 'recording.started');
    ctx.expect(
      'events.recording-started',
      'recording.started after the start',
      x.that(
        up.state === 'recording' && started.length === 1,
        'one recording.started',
        endpoint.deliveries.map((d) => d.body.slice(0, 150)).join(' | ') || 'none',
      ),
    );
    await api.post('/v1/recording/stop');
    await pollRecording(api, ['idle'], 30_000);
    // The event may leave a while after the state reads idle (a busy target, a
    // slow receiver answering the deliveries before it): wait for it, then for
    // a quiet second so a second one would show.
    const isStopped = (d: (typeof endpoint.deliveries)[number]) => envelopeOf(d)?.event === 'recording.stopped';
    const until = Date.now() + STOPPED_WAIT_MS;
    while (!endpoint.deliveries.some(isStopped) && Date.now() < until)
      await endpoint.waitFor(endpoint.deliveries.length + 1, until - Date.now());
    const ds = await endpoint.quiet(1000, 5000);
    const stopped = ds.filter(isStopped);
    // A retry repeats the event with its event_id: one event, however many deliveries.
    const events = new Set(stopped.map((d) => envelopeOf(d)?.event_id ?? d.body));
    ctx.expect(
      'events.recording-stopped',
      'recording.stopped after the stop',
      x.that(
        events.size === 1 && stopped[0]!.receivedAt >= startedAt,
        'one recording.stopped',
        ds.map((d) => d.body.slice(0, 150)).join(' | ') || 'none',
      ),
    );
  },
});
