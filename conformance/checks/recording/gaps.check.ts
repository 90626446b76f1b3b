import { defineCheck } from '../../harness/check.ts';
import { inputDevice } from '../../harness/devices.ts';
import { pollRecording } from '../../harness/recording.ts';

export const check = defineCheck({
  id: 'recording/gaps',
  clauses: ['recording.start.status-code.gap', 'recording.pause-resume.states.gap', 'recording.control.response.gap'],
  level: 'gap',
  touches: 'recorder',
  needs: ['token'], // and an input device (harness/devices.ts)
  timeoutMs: 60_000,
  description: 'Records the start status code, the states after pause and resume, and the bodies of stop, pause and resume.',
  requirement: 'The success status code of POST /v1/recording/start is not shown and is implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'record']));
    await inputDevice(ctx, api, { name: 'Conformance Mic', script: null });
    const start = await api.post('/v1/recording/start', { json: {} });
    ctx.observe('recording.start.status-code.gap', 'POST /v1/recording/start', `${start.status}`, start);
    if (!start.ok) return;
    await pollRecording(api, ['recording'], 10_000);
    for (const action of ['pause', 'resume']) {
      const res = await api.post(`/v1/recording/${action}`);
      ctx.observe('recording.control.response.gap', `POST /v1/recording/${action}`, res.describe(300), res);
      const states: unknown[] = [];
      for (let i = 0; i < 5; i++) {
        const g = await api.get('/v1/recording');
        states.push((g.body as { state?: unknown } | undefined)?.state);
        await ctx.sleep(100);
      }
      ctx.observe('recording.pause-resume.states.gap', `states after ${action}`, states.map((s) => JSON.stringify(s)).join(' → '));
    }
    const stop = await api.post('/v1/recording/stop');
    ctx.observe('recording.control.response.gap', 'POST /v1/recording/stop', stop.describe(300), stop);
    await pollRecording(api, ['idle'], 30_000);
  },
});
