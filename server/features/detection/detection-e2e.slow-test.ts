/**
 * Meetings detected and recorded on a real PulseAudio daemon (no stand-in):
 * a simulated meeting app holds a capture stream on a simulated microphone
 * playing fixtures/meetings/tiny.json; the detector follows the daemon's
 * events and, with auto-record armed, records the meeting through the
 * recorder, which transcribes it. Slow (a 30 s call, then its transcription):
 * `npm run test:detection`.
 *
 * Every wait is on a state (the detector's, the recorder's, the app's) with a
 * generous limit; the one bound on time is the issue's own: recording starts
 * within min_meeting_seconds + 2 s of the app's start.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../../testing/recording-harness.ts';
import { detectionHarness, MIC } from '../../testing/detection-harness.ts';
import { loadScriptAudio } from '../../../simulator/devices/script-audio.ts';

const MIN_SECONDS = 3;
const GRACE_MS = 5000;

test(
  'a listed app in a 30 s call: one meeting, recorded from its input, with the scripted meeting transcribed',
  { timeout: 240_000 },
  async () => {
    const h = await detectionHarness({ graceMs: GRACE_MS, script: 'tiny' });
    try {
      const auth = h.auth(['read', 'record']);
      await h.configure({ enabled: true, auto_record: true, apps: ['zoom', 'teams'], min_meeting_seconds: MIN_SECONDS });
      const app = await h.startApp({ app_name: 'Microsoft Teams', binary: 'teams', seconds: 30 });
      const started = await eventually('the recording to start', 60_000, async () => {
        const r = (await h.call('GET', '/v1/recording', auth)).body;
        return r.state === 'recording' ? r : undefined;
      });
      assert.deepEqual(
        started.devices.map((d: { name: string }) => d.name),
        [MIC],
        'recorded from the input the app uses',
      );
      assert.match(started.meeting_name, /^Microsoft Teams meeting \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      const lag = (Date.parse(started.started_at) - Date.parse(app.started_at)) / 1000;
      assert.ok(
        lag >= MIN_SECONDS - 0.5 && lag <= MIN_SECONDS + 2,
        `recording started ${lag.toFixed(2)} s after the app (min ${MIN_SECONDS} s)`,
      );
      await h.settled(app, 90_000);
      const stopped = await eventually('the recording to stop and be transcribed', 150_000, async () => {
        const r = (await h.call('GET', '/v1/recording', auth)).body;
        return r.state === 'idle' && r.processing?.state === 'succeeded' ? r : undefined;
      });
      assert.equal(stopped.last_error, null);
      assert.deepEqual(h.recordingEvents, ['recording.started', 'recording.stopped'], 'exactly one meeting');
      const transcript = await h.call('GET', `/v1/meetings/${stopped.last_meeting_id}/transcript`, auth);
      const heard = new Set(
        (transcript.body.segments as { words: { text: string }[] }[]).flatMap((s) => s.words.map((w) => w.text.toLowerCase())),
      );
      const script = await loadScriptAudio('tiny');
      const said = script.truth.words.map((w) => w.text.toLowerCase().replace(/[^a-z']/g, ''));
      const found = said.filter((w) => heard.has(w));
      console.log(
        `[detection e2e] recording began ${lag.toFixed(2)} s after the app; ${found.length} of ${said.length} scripted words heard`,
      );
      assert.ok(found.length >= said.length * 0.6, `scripted words heard: ${found.join(' ')} (of ${said.join(' ')})`);
      const view = await h.detection();
      assert.equal(view.detected_total, 1);
      assert.equal(view.recorded_total, 1);
    } finally {
      await h.close();
    }
    assert.deepEqual(h.errors, []);
  },
);

test('an app whose capture drops and returns within the grace period is one meeting', { timeout: 180_000 }, async () => {
  const h = await detectionHarness({ graceMs: GRACE_MS, script: 'tiny' });
  try {
    const auth = h.auth(['read', 'record']);
    await h.configure({ enabled: true, auto_record: true, apps: ['zoom'], min_meeting_seconds: MIN_SECONDS });
    const app = await h.startApp({ app_name: 'Zoom Meeting', binary: 'zoom', seconds: 16, drop: { after: 7, seconds: 2 } });
    await h.settled(app, 90_000);
    await eventually('the recording to stop', 60_000, async () =>
      (await h.call('GET', '/v1/recording', auth)).body.state === 'idle' ? true : undefined,
    );
    assert.deepEqual(h.recordingEvents, ['recording.started', 'recording.stopped'], 'one meeting, not two');
    const view = await h.detection();
    assert.equal(view.detected_total, 1);
    assert.ok(
      view.log.some((l) => /the same meeting goes on/.test(l)),
      view.log.join('\n'),
    );
  } finally {
    await h.close();
  }
  assert.deepEqual(h.errors, []);
});
