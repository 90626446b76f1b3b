import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { inputDevice } from '../../harness/devices.ts';
import { fromIdle, pollRecording } from '../../harness/recording.ts';

export const check = defineCheck({
  id: 'recording/remote-prearmed',
  clauses: ['recording.start.remote.prearmed-ok'],
  level: 'requirement',
  needs: ['settings', 'tokens'], // and an input device (harness/devices.ts)
  timeoutMs: 60_000,
  description:
    'With remote_recording_prearmed on (Control API) and a simulated microphone, a paired token ' +
    'and a LAN token holding record each start a recording (2xx, state starting), which is then ' +
    'stopped.',
  requirement: 'With remote_recording_prearmed on, a remote caller holding record can start a recording.',
  async run(ctx) {
    await ctx.control.patchSettings({ remote_recording_prearmed: true });
    const local = ctx.as(await ctx.token(['read', 'record']));
    await inputDevice(ctx, local, { name: 'Conformance Mic', script: null });
    await fromIdle(ctx, local);
    for (const origin of ['paired', 'lan'] as const) {
      const remote = ctx.as((await ctx.mint({ scopes: ['read', 'record'], origin })).token);
      const res = await remote.post('/v1/recording/start', { json: { consent_attested: true } });
      ctx.expect('recording.start.remote.prearmed-ok', `POST /v1/recording/start by a ${origin} token, pre-armed`, x.success(res), res);
      if (res.ok) {
        await pollRecording(local, ['recording'], 10_000);
        await local.post('/v1/recording/stop', { label: 'clean up' });
        await pollRecording(local, ['idle'], 30_000);
      }
    }
  },
});
