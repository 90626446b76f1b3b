/**
 * The input device a recording check records from. With the Control API's
 * 'devices' capability the check plugs a simulated microphone of its own
 * (a known script, or silence); without it, a target that lists an input
 * device through GET /v1/devices (a real microphone on its machine) serves the
 * same checks with that device: the checks grade the recorder's states and
 * answers, never what was captured, so any device that records will do
 * (docs/decisions/077-conformance-premises-through-the-api.md).
 */
import type { CheckContext } from './context.ts';
import type { BoundClient } from './context-types.ts';
import * as x from './expect.ts';

/** What a recording check without a device of its own is SKIPPED with: what would unlock it. */
export const NO_INPUT_DEVICE =
  "needs an input device: GET /v1/devices lists none (connect a microphone to the target's machine), or give --control-url with the 'devices' capability";

/**
 * Plugs the simulated input device `plug` through the Control API when it can,
 * else takes the first input device GET /v1/devices lists; returns the name
 * to record from. SKIPPED (NO_INPUT_DEVICE) when there is neither.
 */
export async function inputDevice(ctx: CheckContext, api: BoundClient, plug: { name: string; script: string | null }): Promise<string> {
  if (ctx.has('devices')) {
    await ctx.control.plugDevice({ name: plug.name, device_type: 'input', script: plug.script });
    return plug.name;
  }
  const res = await api.get('/v1/devices', { label: 'an input device to record from (no Control API to plug one)' });
  // devices/list-fields grades the listing itself; here it is only the premise.
  ctx.premise('GET /v1/devices lists the devices', x.all(x.status(res, 200), x.fields(res.body, { devices: 'array' }, 'device list')), res);
  const devices = (res.body as { devices: unknown[] }).devices;
  const input = devices.find(
    (d): d is { name: string } =>
      typeof d === 'object' &&
      d !== null &&
      (d as { device_type?: unknown }).device_type === 'input' &&
      typeof (d as { name?: unknown }).name === 'string',
  );
  if (input === undefined) return ctx.skip(NO_INPUT_DEVICE);
  ctx.note(`recording from the input device "${input.name}" that GET /v1/devices lists (no Control API 'devices' to plug one)`);
  return input.name;
}
