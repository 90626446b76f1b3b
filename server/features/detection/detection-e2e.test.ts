/**
 * Calls that give no recorded meeting, on a real PulseAudio daemon (no
 * stand-in): an app not in `apps`, a call shorter than min_meeting_seconds,
 * and a listed app while auto-record is not armed (detected, shown on the
 * Control API, not recorded). The recorded meetings are in
 * detection-e2e.slow-test.ts. Every wait is on a state, with generous limits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../../testing/recording-harness.ts';
import { detectionHarness } from '../../testing/detection-harness.ts';

test(
  'an unlisted app, a call shorter than min_meeting_seconds, and auto-record not armed: no recording',
  { timeout: 120_000 },
  async () => {
    const h = await detectionHarness({ graceMs: 2000, script: 'tiny' });
    try {
      await h.configure({ enabled: true, auto_record: true, apps: ['zoom', 'teams'], min_meeting_seconds: 2 });

      // Firefox is not in the list: never even a candidate.
      const firefox = await h.startApp({ app_name: 'Firefox', binary: 'firefox', seconds: 4 });
      await h.settled(firefox, 60_000);
      assert.equal((await h.detection()).detected_total, 0);

      // A listed app, but the call is over before min_meeting_seconds.
      await h.configure({ enabled: true, auto_record: true, apps: ['zoom', 'teams'], min_meeting_seconds: 30 });
      const short = await h.startApp({ app_name: 'zoom', binary: 'zoom', seconds: 3 });
      await h.settled(short, 60_000);
      assert.equal((await h.detection()).detected_total, 0);

      // Auto-record not armed: the meeting is detected and shown, not recorded.
      await h.configure({ enabled: true, auto_record: false, apps: ['zoom', 'teams'], min_meeting_seconds: 1 });
      const unarmed = await h.startApp({ app_name: 'Microsoft Teams', binary: 'teams', seconds: 5 });
      const live = await eventually('the meeting to be detected', 60_000, async () => {
        const v = await h.detection();
        return v.meetings.some((m) => m.phase === 'live') ? v : undefined;
      });
      assert.equal(live.meetings[0]!.app, 'teams');
      await h.settled(unarmed, 60_000);
      const after = await h.detection();
      assert.equal(after.detected_total, 1);
      assert.equal(after.recorded_total, 0);
      assert.ok(
        after.log.some((l) => /not recorded: auto-record is not armed/.test(l)),
        after.log.join('\n'),
      );
      assert.deepEqual(h.recordingEvents, []);
    } finally {
      await h.close();
    }
    assert.deepEqual(h.errors, []);
  },
);
