/**
 * The detector's decisions (service.ts, decision 143) with the sound server
 * and the recorder stood in for: what is a meeting app's input, what is
 * recorded, and what happens when a recording already runs, auto-record is
 * disarmed, the section is switched off or the sound server goes away. The
 * real sound server and recorder are in detection-e2e*.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CaptureStreamInfo, CaptureStreamWatch, WatchHandlers } from '../../adapters/sound-server.ts';
import { DetectionService } from './service.ts';
import type { Timers } from './tracker.ts';

class FakeWatch implements CaptureStreamWatch {
  h: WatchHandlers | null = null;
  up = true;
  starts = 0;
  async start(h: WatchHandlers) {
    this.starts++;
    this.h = this.up ? h : null;
    return this.up;
  }
  stop() {
    this.h = null;
  }
  processIds() {
    return [];
  }
}

/** Timers run by hand: fire() runs every pending one. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let id = 0;
  const timers: Timers = {
    set: (fn) => (pending.set(++id, fn), id),
    clear: (h) => pending.delete(h as number),
  };
  const fire = () => {
    for (const [k, fn] of [...pending]) {
      pending.delete(k);
      fn();
    }
  };
  return { timers, fire };
}

function setup(section: Record<string, unknown>) {
  const watch = new FakeWatch();
  let stored = { enabled: true, auto_record: true, apps: ['zoom', 'teams'], min_meeting_seconds: 5, ...section };
  const listeners: ((n: string) => void)[] = [];
  const config = {
    effective: () => stored,
    onChange: (l: (n: string) => void) => (listeners.push(l), () => undefined),
  };
  const calls: string[] = [];
  let rec = { state: 'idle', session_id: null as string | null };
  const recording = {
    start: (req: { meeting_name?: string | null; mic_device_name?: string | null }) => {
      calls.push(`start ${req.mic_device_name} "${req.meeting_name}"`);
      rec = { state: 'recording', session_id: 'rec_1' };
      return rec;
    },
    stop: () => {
      calls.push('stop');
      rec = { state: 'idle', session_id: 'rec_1' };
      return rec;
    },
    view: () => rec,
    processIds: () => [777],
  };
  const devices = {
    list: () => [{ name: 'USB Mic (hw:1,0)', device_type: 'input' as const, simulated: false, backend: 'alsa' }],
    listSimulated: () => [{ name: 'Sim Mic', device_type: 'input' as const, script: null }],
    virtualBackend: () => ({ virtual: (n: string) => (n === 'Sim Mic' ? { monitorSource: 'sim.monitor' } : null) }),
  };
  const { timers, fire } = manualTimers();
  const lines: string[] = [];
  const svc = new DetectionService({
    watch,
    config: config as never,
    recording: recording as never,
    devices: devices as never,
    timers,
    now: () => Date.parse('2026-11-29T10:00:00Z'),
    log: (l) => lines.push(l),
  });
  return {
    svc,
    watch,
    calls,
    fire,
    lines,
    setRecording: (r: typeof rec) => (rec = r),
    change: (s: Record<string, unknown>) => {
      stored = { ...stored, ...s };
      for (const l of listeners) l('meeting-detection');
    },
  };
}

const stream = (
  over: Omit<Partial<CaptureStreamInfo>, 'source'> & { source?: Partial<CaptureStreamInfo['source']> } = {},
): CaptureStreamInfo => ({
  index: 1,
  appName: 'Microsoft Teams',
  binary: 'teams',
  pid: 4242,
  ...over,
  source: { name: 'sim.monitor', monitorOf: 'sim', alsa: null, ...over.source },
});

const tick = () => new Promise((r) => setImmediate(r));

test('a listed app on a simulated microphone is recorded from it, titled after the app and the time; it stops when the meeting ends', async () => {
  const t = setup({});
  t.svc.start();
  await tick();
  assert.equal(t.svc.view().state, 'watching');
  t.watch.h!.onStreams([stream()]);
  t.fire();
  assert.deepEqual(t.calls, ['start Sim Mic "Microsoft Teams meeting 2026-11-29 10:00 UTC"']);
  assert.equal(t.svc.view().meetings[0]!.recording_session_id, 'rec_1');
  t.watch.h!.onStreams([]);
  t.fire(); // the grace period
  assert.deepEqual(t.calls.at(-1), 'stop');
});

test("a hardware input is found by its ALSA card and device; output monitors, the gateway's own capture and unlisted apps never count", async () => {
  const t = setup({ min_meeting_seconds: 0 });
  t.svc.start();
  await tick();
  t.watch.h!.onStreams([
    stream({ source: { name: 'speakers.monitor', monitorOf: 'speakers' } }),
    stream({ appName: 'mas-recorder', binary: 'parec' }),
    stream({ pid: 777 }),
    stream({ appName: 'Firefox', binary: 'firefox', source: { name: 'alsa_input', monitorOf: null, alsa: { card: 1, device: 0 } } }),
  ]);
  t.fire();
  assert.deepEqual(t.calls, []);
  t.watch.h!.onStreams([
    stream({ appName: 'zoom', binary: 'zoom', source: { name: 'alsa_input', monitorOf: null, alsa: { card: 1, device: 0 } } }),
  ]);
  t.fire();
  assert.deepEqual(t.calls, ['start USB Mic (hw:1,0) "zoom meeting 2026-11-29 10:00 UTC"']);
});

test('a recording already running: the meeting is detected and not recorded, and the running recording is left alone', async () => {
  const t = setup({});
  t.svc.start();
  await tick();
  t.setRecording({ state: 'recording', session_id: 'rec_manual' });
  t.watch.h!.onStreams([stream()]);
  t.fire();
  t.watch.h!.onStreams([]);
  t.fire();
  assert.deepEqual(t.calls, []);
  assert.equal(t.svc.view().detected_total, 1);
  assert.ok(t.lines.some((l) => /not recorded: a recording is already running/.test(l)));
});

test('disarmed mid-meeting: the recording stops at once; switched off: the detector stops following', async () => {
  const t = setup({});
  t.svc.start();
  await tick();
  t.watch.h!.onStreams([stream()]);
  t.fire();
  t.change({ auto_record: false });
  assert.deepEqual(t.calls.slice(1), ['stop']);
  assert.equal(t.svc.view().state, 'watching', 'still detecting');
  t.change({ enabled: false });
  assert.equal(t.svc.view().state, 'disabled');
  assert.equal(t.watch.h, null);
  assert.deepEqual(t.svc.view().meetings, []);
});

test('no sound server: said once, state unavailable; saving the section tries again', async () => {
  const t = setup({});
  t.watch.up = false;
  t.svc.start();
  await tick();
  assert.equal(t.svc.view().state, 'unavailable');
  assert.equal(t.lines.filter((l) => /cannot follow any sound server/.test(l)).length, 1);
  t.watch.up = true;
  t.change({});
  await tick();
  assert.equal(t.svc.view().state, 'watching');
  assert.equal(t.watch.starts, 2);
});

test('the sound server goes away mid-meeting: the meeting ends, its recording stops', async () => {
  const t = setup({});
  t.svc.start();
  await tick();
  t.watch.h!.onStreams([stream()]);
  t.fire();
  t.watch.h!.onGone('pactl subscribe ended');
  assert.deepEqual(t.calls.slice(1), ['stop']);
  assert.equal(t.svc.view().state, 'unavailable');
});

test("the gateway stops mid-meeting: the detector lets go and leaves the recording to the recorder's shutdown and recovery", async () => {
  const t = setup({});
  t.svc.start();
  await tick();
  t.watch.h!.onStreams([stream()]);
  t.fire();
  t.svc.stop();
  t.fire();
  assert.deepEqual(t.calls.length, 1, 'started, never stopped by the detector');
  assert.equal(t.svc.view().state, 'disabled');
  assert.equal(t.watch.h, null);
});
