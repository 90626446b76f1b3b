/**
 * Control API routes of the recorder and the simulator's devices, beyond the
 * device routes of app.ts (which reach the same device backend through
 * deps.devices):
 *
 *   POST /control/recording/fault      {error}   the active recording fails with it (CONTROL.md)
 *   POST /control/devices/{name}/fail  {error?}  a plugged simulated device breaks (extension)
 *   GET  /control/devices/{name}                 one simulated device in detail: transport,
 *                                                sink, state, script playback (extension)
 *
 * Decisions: docs/decisions/017-recording.md and 018-virtual-devices.md.
 */
import { z } from 'zod';
import { json, readBody } from './http.ts';
import type { ControlRoute } from './route-table.ts';
import { ApiError } from '../kernel/errors.ts';
import type { DeviceCatalog, VirtualDeviceBackend } from '../adapters/devices.ts';
import type { RecordingService } from '../features/recording/index.ts';

/** What the recorder's and the simulated devices' routes use, and nothing else. */
export interface RecordingControlDeps {
  recording: Pick<RecordingService, 'fault'>;
  devices: Pick<DeviceCatalog, 'virtualBackend'>;
}

const FaultBody = z.strictObject({ error: z.string().min(1).max(10_000) });
const FailDeviceBody = z.strictObject({ error: z.string().min(1).max(10_000).optional() });

/** `deps` gives the current services (they are rebuilt at every restart). */
export const RECORDING_CONTROL_ROUTES: ControlRoute<RecordingControlDeps>[] = [
  {
    method: 'post',
    path: '/control/recording/fault',
    capability: 'recording-fault',
    handle: async (req, res, deps) => {
      const body = await readBody(req, FaultBody, true);
      json(res, 200, deps.recording.fault(body.error));
    },
  },
  {
    method: 'get',
    path: '/control/devices/:name',
    capability: 'devices',
    handle: (req, res, deps) => {
      const vd = virtualCatalog(deps).virtual(String(req.params['name']));
      if (vd === null) throw new ApiError('not_found', 'no simulated device with this name');
      json(res, 200, vd.view());
    },
  },
  {
    method: 'post',
    path: '/control/devices/:name/fail',
    capability: 'devices',
    handle: async (req, res, deps) => {
      const body = await readBody(req, FailDeviceBody, false);
      const catalog = virtualCatalog(deps);
      const name = String(req.params['name']);
      if (!catalog.fail(name, body?.error)) throw new ApiError('not_found', 'no simulated device with this name');
      json(res, 200, catalog.virtual(name)!.view()); // fail() found it, and a failed device stays plugged in
    },
  },
];

function virtualCatalog(deps: RecordingControlDeps): VirtualDeviceBackend {
  const backend = deps.devices.virtualBackend();
  if (backend === null) throw new ApiError('not_found', 'this build has no simulated devices');
  return backend;
}
