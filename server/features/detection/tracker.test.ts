/** The detected-meeting state machine (tracker.ts, decision 143) on a clock the test drives. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MeetingTracker, type Timers } from './tracker.ts';

/** Timers on a hand-driven clock. */
function fakeClock() {
  let now = 0;
  let next = 1;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    set: (fn, ms) => {
      const id = next++;
      pending.set(id, { at: now + ms, fn });
      return id;
    },
    clear: (h) => pending.delete(h as number),
  };
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = [...pending.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      pending.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = end;
  };
  return { timers, advance, now: () => now };
}

function setup(minMs = 5000, graceMs = 10_000) {
  const clock = fakeClock();
  const events: string[] = [];
  const tracker = new MeetingTracker<string>({
    minMeetingMs: () => minMs,
    graceMs,
    now: clock.now,
    timers: clock.timers,
    onDetected: (m) => events.push(`detected ${m.app} ${m.detail} @${clock.now()}`),
    onEnded: (m) => events.push(`ended ${m.app} @${clock.now()}`),
    onResumed: (m) => events.push(`resumed ${m.app} @${clock.now()}`),
  });
  return { tracker, events, advance: clock.advance };
}

const zoom = (detail = 'mic') => ({ app: 'zoom', detail });

test('an app capturing for min_meeting_seconds is one meeting; it ends a grace period after its capture went', () => {
  const { tracker, events, advance } = setup();
  tracker.update([zoom()]);
  advance(4999);
  assert.deepEqual(events, []);
  advance(1);
  assert.deepEqual(events, ['detected zoom mic @5000']);
  advance(20_000);
  tracker.update([]);
  advance(9999);
  assert.equal(events.length, 1);
  advance(1);
  assert.deepEqual(events, ['detected zoom mic @5000', 'ended zoom @35000']);
  assert.deepEqual(tracker.meetings(), []);
});

test('a capture shorter than min_meeting_seconds is no meeting', () => {
  const { tracker, events, advance } = setup();
  tracker.update([zoom()]);
  advance(4000);
  tracker.update([]);
  advance(60_000);
  assert.deepEqual(events, []);
});

test('a capture that ends and comes back within the grace period is the same meeting', () => {
  const { tracker, events, advance } = setup();
  tracker.update([zoom()]);
  advance(6000);
  tracker.update([]);
  advance(9000);
  tracker.update([zoom('other mic')]);
  advance(60_000);
  assert.deepEqual(events, ['detected zoom mic @5000', 'resumed zoom @15000']);
  assert.equal(tracker.meetings()[0]!.detail, 'other mic');
  tracker.update([]);
  advance(10_000);
  assert.deepEqual(events.at(-1), 'ended zoom @85000');
});

test('each app is its own meeting; repeated sightings of one app count once', () => {
  const { tracker, events, advance } = setup(0);
  tracker.update([zoom(), zoom('second stream'), { app: 'teams', detail: 'mic' }]);
  advance(0);
  assert.deepEqual(events, ['detected zoom mic @0', 'detected teams mic @0']);
  tracker.update([{ app: 'teams', detail: 'mic' }]);
  advance(10_000);
  assert.deepEqual(events.at(-1), 'ended zoom @10000');
});

test('endAll ends live meetings at once and drops candidates quietly', () => {
  const { tracker, events, advance } = setup();
  tracker.update([zoom()]);
  advance(5000);
  tracker.update([zoom(), { app: 'teams', detail: 'mic' }]);
  tracker.endAll();
  advance(60_000);
  assert.deepEqual(events, ['detected zoom mic @5000', 'ended zoom @5000']);
});
