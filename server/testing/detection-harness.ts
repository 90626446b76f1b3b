/**
 * The meeting detector's end-to-end tests on a real PulseAudio daemon
 * (server/features/detection/detection-e2e*.ts): the recording harness with
 * the detector following the devices' server, a simulated microphone playing
 * a scripted meeting, and helpers to start a simulated meeting app and wait
 * on the detector's and the recorder's states (never on a sleep).
 */
import assert from 'node:assert/strict';
import { eventually, recordingHarness, type RecordingHarness } from './recording-harness.ts';

export interface DetectionHarness extends RecordingHarness {
  /** Every recording.started and recording.stopped, in order. */
  recordingEvents: string[];
  /** PUT /v1/config/meeting-detection with the record scope (pre-armed first when arming). */
  configure(section: Record<string, unknown>): Promise<void>;
  /** Starts a meeting app through the Control API; returns its view. */
  startApp(spec: { app_name: string; binary: string; seconds: number; drop?: { after: number; seconds: number } }): Promise<AppView>;
  /** Waits until the app's call has ended and the detector follows no meeting of it any more. */
  settled(app: AppView, ms: number): Promise<void>;
  detection(): Promise<DetectionBody>;
}

interface AppView {
  id: string;
  started_at: string;
  state: string;
}

interface DetectionBody {
  state: string;
  meetings: { app: string; phase: string }[];
  detected_total: number;
  recorded_total: number;
  log: string[];
}

export const MIC = 'Sim Mic';

export async function detectionHarness(opts: { graceMs: number; script: string }): Promise<DetectionHarness> {
  const h = await recordingHarness({ detection: { graceMs: opts.graceMs } });
  const recordingEvents: string[] = [];
  h.deps.bus.subscribe((e) => {
    if (e.event.startsWith('recording.')) recordingEvents.push(e.event);
  });
  const auth = h.auth(['read', 'write', 'record']);
  const plugged = await h.ctl('POST', '/control/devices', { name: MIC, device_type: 'input', script: opts.script });
  assert.equal(plugged.status, 201);
  await h.devices.ready(MIC);
  const detection = async () => (await h.ctl('GET', '/control/meeting-detection')).body as DetectionBody;
  return Object.assign(h, {
    recordingEvents,
    detection,
    async configure(section: Record<string, unknown>) {
      if (section['auto_record'] === true) await h.ctl('PATCH', '/control/settings', { remote_recording_prearmed: true });
      const res = await h.call('PUT', '/v1/config/meeting-detection', auth, section);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      if (section['enabled'] === true)
        await eventually('the detector to follow the sound server', 20_000, async () =>
          (await detection()).state === 'watching' ? true : undefined,
        );
    },
    async startApp(spec: { app_name: string; binary: string; seconds: number; drop?: { after: number; seconds: number } }) {
      const res = await h.ctl('POST', '/control/meeting-apps', { device: MIC, ...spec });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body as AppView;
    },
    async settled(app: AppView, ms: number) {
      await eventually('the call to end and the detector to let it go', ms, async () => {
        const apps = (await h.ctl('GET', '/control/meeting-apps')).body.meeting_apps as AppView[];
        const done = apps.find((a) => a.id === app.id)?.state === 'ended';
        return done && (await detection()).meetings.length === 0 ? true : undefined;
      });
    },
  });
}
