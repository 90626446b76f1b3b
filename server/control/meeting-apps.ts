/**
 * The Control API's meeting apps (docs/spec/CONTROL-EXTENSIONS.md, Meeting apps): simulated
 * meeting apps holding a capture stream on a simulated microphone while it
 * plays its scripted meeting (simulator/devices/meeting-app.ts), and what the
 * meeting detector makes of the sound server (features/detection/).
 *
 *   POST   /control/meeting-apps       {device, app_name, binary, seconds, drop?}  a call starts
 *   GET    /control/meeting-apps       the calls started since the gateway started
 *   DELETE /control/meeting-apps/{id}  hangs up
 *   GET    /control/meeting-detection  the detector's state, meetings and log
 *
 * The calls outlive gateway restarts (like the devices they use); they end
 * by their own time, by DELETE, or when their device is unplugged.
 * Decisions: docs/decisions/141 and 144.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { json, readBody } from './http.ts';
import type { ControlRoute } from './route-table.ts';
import { ApiError } from '../kernel/errors.ts';
import type { DeviceCatalog } from '../adapters/devices.ts';
import type { DetectionService } from '../features/detection/index.ts';
import { MeetingApp } from '../../simulator/devices/meeting-app.ts';

export interface MeetingAppControlDeps {
  devices: Pick<DeviceCatalog, 'virtualBackend' | 'getSimulated'>;
  detection: Pick<DetectionService, 'view'>;
}

const name = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[^\u0000-\u001f"\\]+$/, 'no control characters, quotes or backslashes');
const StartBody = z.strictObject({
  device: z.string().min(1).max(200),
  app_name: name,
  binary: name,
  seconds: z
    .number()
    .positive()
    .max(24 * 3600),
  drop: z
    .strictObject({ after: z.number().min(0), seconds: z.number().positive().max(3600) })
    .nullable()
    .optional(),
});

/** The calls started through this Control API; the last 50 are kept for listing. */
export class MeetingApps {
  readonly #apps: MeetingApp[] = [];

  start(spec: z.output<typeof StartBody>, deps: MeetingAppControlDeps): MeetingApp {
    const device = deps.devices.getSimulated(spec.device);
    if (device === null) throw new ApiError('not_found', 'no simulated device with this name');
    if (device.device_type !== 'input') throw new ApiError('invalid_request', 'a meeting app captures from an input device');
    const handle = deps.devices.virtualBackend()?.virtual(spec.device) ?? null;
    if (handle === null) throw new ApiError('not_found', 'this build has no simulated devices');
    let app: MeetingApp;
    try {
      app = new MeetingApp(`app_${randomUUID()}`, spec, handle);
    } catch (err) {
      throw new ApiError('conflict', err instanceof Error ? err.message : String(err));
    }
    this.#apps.push(app);
    if (this.#apps.length > 50) this.#apps.shift()?.stop();
    return app;
  }

  get(id: string): MeetingApp | null {
    return this.#apps.find((a) => a.id === id) ?? null;
  }

  list(): MeetingApp[] {
    return [...this.#apps];
  }

  processIds(): number[] {
    return this.#apps.flatMap((a) => a.processIds());
  }

  stopAll(): void {
    for (const a of this.#apps) a.stop();
  }
}

export function meetingAppControlRoutes(apps: MeetingApps): ControlRoute<MeetingAppControlDeps>[] {
  return [
    {
      method: 'post',
      path: '/control/meeting-apps',
      capability: 'meeting-apps',
      handle: async (req, res, deps) => {
        const body = await readBody(req, StartBody, true);
        if (deps.devices.virtualBackend() === null) throw new ApiError('not_found', 'this build has no simulated devices');
        json(res, 201, apps.start(body, deps).view());
      },
    },
    {
      method: 'get',
      path: '/control/meeting-apps',
      capability: 'meeting-apps',
      handle: (_req, res) => json(res, 200, { meeting_apps: apps.list().map((a) => a.view()) }),
    },
    {
      method: 'delete',
      path: '/control/meeting-apps/:id',
      capability: 'meeting-apps',
      handle: (req, res) => {
        const app = apps.get(String(req.params['id']));
        if (app === null) throw new ApiError('not_found', 'no meeting app with this id');
        app.stop();
        res.status(204).end();
      },
    },
    {
      method: 'get',
      path: '/control/meeting-detection',
      capability: 'meeting-apps',
      handle: (_req, res, deps) => json(res, 200, deps.detection.view()),
    },
  ];
}
