/**
 * The Control API's fixture routes (CONTROL.md, Meetings, Jobs, Devices):
 * seeded meetings, jobs held in a chosen state until finished, and the
 * simulator's virtual devices plugged in and out.
 *
 *   POST   /control/meetings               {title, segments, ...} → 201 {id}
 *   POST   /control/jobs                   {kind, state, ...}     → 201 {id}
 *   POST   /control/jobs/{id}/finish       {outcome, error?}      → 200 the job
 *   GET    /control/devices                {"devices": [...]}
 *   POST   /control/devices                {name, device_type, script?, scene?, seed?} → 201
 *   DELETE /control/devices/{name}         → 204
 */
import { SceneError, resolveScene, type ResolvedScene } from '../../simulator/scenes/scene.ts';
import type { Clock } from '../adapters/clock.ts';
import type { DeviceCatalog } from '../adapters/devices.ts';
import { jobDto, type JobsService } from '../features/jobs/index.ts';
import type { MeetingsService } from '../features/meetings/index.ts';
import { ApiError } from '../kernel/errors.ts';
import { json, readBody } from './http.ts';
import type { ControlRoute } from './route-table.ts';
import { CreateJobBody, FinishJobBody, PlugDeviceBody, SeedMeetingBody } from './schemas.ts';

/** What the fixture routes use, and nothing else. */
export interface FixtureControlDeps {
  jobs: Pick<JobsService, 'createFixture' | 'finishFixture'>;
  meetings: Pick<MeetingsService, 'create' | 'exists'>;
  devices: Pick<DeviceCatalog, 'listSimulated' | 'plug' | 'unplug'>;
  clock: Clock;
}

export const FIXTURE_CONTROL_ROUTES: ControlRoute<FixtureControlDeps>[] = [
  {
    method: 'post',
    path: '/control/meetings',
    capability: 'meetings',
    handle: async (req, res, deps) => {
      const body = await readBody(req, SeedMeetingBody, true);
      const meeting = deps.meetings.create({
        title: body.title,
        created_at: body.created_at ?? deps.clock.now().toISOString(),
        source: 'fixture',
        segments: body.segments,
        summary: body.summary ?? null,
        audio: body.audio ?? false,
      });
      json(res, 201, { id: meeting.id });
    },
  },
  {
    method: 'post',
    path: '/control/jobs',
    capability: 'jobs',
    handle: async (req, res, deps) => {
      const body = await readBody(req, CreateJobBody, true);
      const meetingId = body.meeting_id ?? null;
      if (meetingId !== null && !deps.meetings.exists(meetingId)) throw new ApiError('invalid_request', 'meeting_id names no meeting');
      const job = deps.jobs.createFixture({
        kind: body.kind,
        state: body.state,
        meeting_id: meetingId,
        is_retryable: body.is_retryable ?? false,
        source_gone: body.source_gone ?? false,
        error: body.error ?? null,
        hold: body.hold ?? false,
      });
      json(res, 201, { id: job.id });
    },
  },
  {
    method: 'post',
    path: '/control/jobs/:job_id/finish',
    capability: 'jobs',
    handle: async (req, res, deps) => {
      const body = await readBody(req, FinishJobBody, true);
      let job;
      try {
        job = deps.jobs.finishFixture(String(req.params['job_id']), body.outcome, body.error ?? null);
      } catch (err) {
        // The Control API's 409 is plain conflict: it has no sub-codes.
        if (err instanceof ApiError && err.status === 409) throw new ApiError('conflict', err.message);
        throw err;
      }
      json(res, 200, jobDto(job));
    },
  },
  {
    method: 'get',
    path: '/control/devices',
    capability: 'devices',
    handle: (_req, res, deps) => {
      json(res, 200, { devices: deps.devices.listSimulated().map(deviceView) });
    },
  },
  {
    method: 'post',
    path: '/control/devices',
    capability: 'devices',
    handle: async (req, res, deps) => {
      const body = await readBody(req, PlugDeviceBody, true);
      const script = body.script ?? null;
      let scene: ResolvedScene | null = null;
      if ((body.scene !== undefined && body.scene !== null) || body.seed !== undefined) {
        if (script === null)
          throw new ApiError('invalid_request', 'scene and seed need a script: a silent device has no speech to place in a room');
        try {
          scene = resolveScene(body.scene ?? undefined, body.seed);
        } catch (err) {
          if (err instanceof SceneError) throw new ApiError('invalid_request', err.message);
          throw err;
        }
      }
      const device = { name: body.name, device_type: body.device_type, script, scene };
      if (!deps.devices.plug(device)) {
        throw new ApiError('conflict', 'a simulated device with this name is already plugged in');
      }
      json(res, 201, deviceView(device));
    },
  },
  {
    method: 'delete',
    path: '/control/devices/:name',
    capability: 'devices',
    handle: (req, res, deps) => {
      const name = String(req.params['name']);
      if (!deps.devices.unplug(name)) throw new ApiError('not_found', 'no simulated device with this name');
      res.status(204).end();
    },
  },
];

function deviceView(d: { name: string; device_type: string; script: string | null; scene?: unknown }) {
  // The scene is shown only when one was asked for, so the spec's four fields stay as they are otherwise.
  return {
    name: d.name,
    device_type: d.device_type,
    simulated: true,
    script: d.script,
    ...(d.scene !== undefined && d.scene !== null ? { scene: d.scene } : {}),
  };
}
