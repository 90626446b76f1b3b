import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'errors/service-unavailable-503',
  clauses: ['errors.code.service_unavailable.503'],
  level: 'requirement',
  needs: ['reset', 'token'],
  description:
    'After a reset (no simulated device plugged), when GET /v1/devices lists no input device, ' +
    'POST /v1/recording/start needs a dependency that is not there: 503 service_unavailable is ' +
    'the answer the error table gives. SKIPPED when the target has an input device (a real ' +
    'microphone), since then nothing is unavailable.',
  requirement: 'The code service_unavailable is sent with status 503 when a dependency needed for the call is unavailable.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'record']));
    const devices = await api.get('/v1/devices');
    const list = (devices.body as { devices?: Array<{ device_type?: unknown }> } | undefined)?.devices;
    if (!Array.isArray(list))
      return ctx.skip(`GET /v1/devices gave no device list (${devices.describe(120)}); devices/list-fields reports it`);
    if (list.some((d) => d.device_type !== 'output'))
      return ctx.skip('the target has an input device, so no dependency of recording is unavailable');
    const res = await api.post('/v1/recording/start', { json: {} });
    ctx.expect(
      'errors.code.service_unavailable.503',
      'POST /v1/recording/start with no capture device',
      x.error(res, 503, 'service_unavailable'),
      res,
    );
    if (res.ok) await api.post('/v1/recording/stop', { label: 'clean up' });
  },
});
