import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'devices/list-fields',
  clauses: ['devices.list.fields'],
  level: 'requirement',
  // 'recorder': the device it plugs could become the recorder's default input under a recording beside it.
  touches: 'recorder',
  needs: ['token'],
  description:
    'GET /v1/devices answers 200 {devices: [...]} whose items carry name and device_type; a ' +
    'device plugged through the Control API (when it can) is listed.',
  requirement: 'GET /v1/devices returns devices, an array whose items carry name and device_type.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    let plugged: string | null = null;
    if (ctx.has('devices')) {
      plugged = `Conformance Mic ${ctx.fixtures.word(6)}`;
      await ctx.control.plugDevice({ name: plugged, device_type: 'input', script: null });
    }
    try {
      const res = await api.get('/v1/devices');
      ctx.require(
        'devices.list.fields',
        'GET /v1/devices',
        x.all(x.status(res, 200), x.json(res), x.fields(res.body, { devices: 'array' }, 'device list')),
        res,
      );
      const devices = (res.body as { devices: unknown[] }).devices;
      devices.forEach((d, i) =>
        ctx.expect('devices.list.fields', `devices[${i}]`, x.fields(d, { name: 'any', device_type: 'any' }, `devices[${i}]`), res),
      );
      if (plugged !== null) {
        ctx.expect(
          'devices.list.fields',
          `the device "${plugged}" plugged through the Control API`,
          x.that(
            devices.some((d) => (d as { name?: unknown }).name === plugged),
            `an item named "${plugged}"`,
            `names ${x.show(devices.map((d) => (d as { name?: unknown }).name))}`,
          ),
          res,
        );
      } else if (devices.length === 0) ctx.note('the target lists no device and cannot plug one: item fields were not seen');
    } finally {
      if (plugged !== null) await ctx.control.unplugDevice(plugged);
    }
  },
});
