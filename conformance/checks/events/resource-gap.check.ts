import { defineCheck } from '../../harness/check.ts';
import { inputDevice } from '../../harness/devices.ts';
import { envelopeOf, hookTo } from '../../harness/webhooks.ts';
import { pollRecording } from '../../harness/recording.ts';

export const check = defineCheck({
  id: 'events/resource-gap',
  clauses: ['events.resource.gap'],
  level: 'gap',
  touches: 'recorder',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'tokens'], // and an input device (harness/devices.ts)
  timeoutMs: 60_000,
  description: 'Records the resource {kind, id} of recording.started, recording.stopped and webhook.test deliveries.',
  requirement:
    'For events other than job events and summary.completed, the resource kind and id are not shown and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'record']));
    const { endpoint, hook } = await hookTo(ctx, api, 'resources', ['recording.started', 'recording.stopped'], { status: 204 });
    await api.post(`/v1/webhooks/${hook.id}/test`);
    await inputDevice(ctx, api, { name: 'Conformance Mic', script: null });
    if ((await api.post('/v1/recording/start', { json: {} })).ok) {
      await pollRecording(api, ['recording'], 10_000);
      await api.post('/v1/recording/stop');
      await pollRecording(api, ['idle'], 30_000);
    }
    for (const d of await endpoint.quiet(1000, 5000)) {
      const e = envelopeOf(d);
      ctx.observe('events.resource.gap', `resource of ${String(e?.event)}`, JSON.stringify(e?.resource ?? null));
    }
  },
});
