/**
 * /v1/recording over HTTP with real capture: virtual devices on a private
 * PulseAudio daemon (null sink + pacat player; capture with parec from the
 * monitor). The transcription after a stop uses the scripted pipeline here
 * (fast, deterministic); the real recognizer runs in
 * server/features/recording/recording-e2e.test.ts.
 *
 * Covers the state table, every 409, consent, pre-arming, device references,
 * the missing capture backend (503), device loss and faults mid-recording
 * (last_error, audio kept as a meeting), reset, and every SSE rule.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeps } from '../../deps.ts';
import { openDatabase } from '../../kernel/store/database.ts';
import { RESET_SETTINGS } from '../../kernel/store/settings-repo.ts';
import { VirtualDeviceCatalog } from '../../../simulator/devices/catalog.ts';
import { readSse } from '../../testing/sse-client.ts';
import { SAMPLE_WORDS, scriptedPipeline } from '../../testing/scripted-pipeline.ts';
import { assertGone, eventually, recordingHarness, type RecordingHarness } from '../../testing/recording-harness.ts';

const RECORD = ['record'];
const JSON_HEADERS = (auth: string) => ({ Authorization: auth });

interface StateBody {
  state: string;
  active_meeting_id: string | null;
  last_error: string | null;
  session_id: string | null;
  captured_seconds: number;
  last_meeting_id: string | null;
  devices: { name: string; role: string; transport: string | null }[];
  processing: { state: string; error: string | null } | null;
}

let h: RecordingHarness;
let rec: string;
let read: string;

async function state(): Promise<StateBody> {
  const res = await h.call('GET', '/v1/recording', read);
  assert.equal(res.status, 200);
  return res.body as StateBody;
}

async function waitFor(until: 'started' | 'stopped', timeout = 20): Promise<{ event: string; data: StateBody }> {
  const res = await readSse(`${h.api}/v1/recording/wait?until=${until}&timeout=${timeout}`, JSON_HEADERS(read), {
    maxMs: (timeout + 5) * 1000,
  });
  assert.equal(res.status, 200);
  assert.equal(res.events.length, 1, 'exactly one event');
  assert.equal(res.closedByServer, true, 'then the server closes the stream');
  return res.events[0] as { event: string; data: StateBody };
}

/** Starts on a device and waits until it records. */
async function startOn(mic: string, extra: Record<string, unknown> = {}): Promise<StateBody> {
  const res = await h.call('POST', '/v1/recording/start', rec, { mic_device_name: mic, ...extra });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.equal(res.body.state, 'starting');
  const started = await waitFor('started');
  assert.equal(started.event, 'recording.started', JSON.stringify(started.data));
  return started.data;
}

async function stopAndSettle(): Promise<StateBody> {
  const res = await h.call('POST', '/v1/recording/stop', rec);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const stopped = await waitFor('stopped');
  await h.deps.recording.processingIdle();
  return stopped.data;
}

before(async () => {
  h = await recordingHarness({ pipeline: scriptedPipeline({ words: SAMPLE_WORDS }), pocketsphinxRoots: [] });
  rec = h.auth(RECORD);
  read = h.auth(['read']);
  for (const [name, device_type, script] of [
    ['Quiet Mic', 'input', null],
    ['Talk Mic', 'input', 'tiny'],
    ['Speakers', 'output', null],
  ] as const) {
    assert.equal((await h.ctl('POST', '/control/devices', { name, device_type, script })).status, 201);
  }
  for (const name of ['Quiet Mic', 'Talk Mic', 'Speakers']) await h.devices.ready(name);
});

after(async () => {
  await h.close(); // asserts that every player, daemon and parec has exited
  assert.deepEqual(h.errors, []);
});

describe('recording over HTTP, real PulseAudio capture', () => {
  test('idle at first; GET needs read; the devices are listed as simulated', async () => {
    const s = await state();
    assert.equal(s.state, 'idle');
    assert.equal(s.active_meeting_id, null);
    assert.equal(s.last_error, null);
    assert.equal((await h.call('GET', '/v1/recording', h.auth(['delete']))).status, 403);
    const devices = await h.call('GET', '/v1/devices', read);
    for (const name of ['Quiet Mic', 'Talk Mic', 'Speakers']) {
      assert.ok(
        devices.body.devices.some((d: { name: string; simulated: boolean }) => d.name === name && d.simulated),
        name,
      );
    }
  });

  test('start, pause, resume, stop: the table, idempotent repeats, and a meeting with the audio', async () => {
    const started = await startOn('Talk Mic', { meeting_name: 'Stand-up', consent_attested: true });
    assert.equal(started.state, 'recording');
    assert.ok(started.active_meeting_id !== null);
    assert.deepEqual(started.devices, [{ name: 'Talk Mic', role: 'mic', device_type: 'input', simulated: true, transport: 'pulse' }]);
    const meetingId = started.active_meeting_id;
    const meeting = await h.call('GET', `/v1/meetings/${meetingId}`, read);
    assert.equal(meeting.body.title, 'Stand-up');
    assert.equal(meeting.body.source, 'recording');

    await new Promise((r) => setTimeout(r, 800));
    const paused = await h.call('POST', '/v1/recording/pause', rec);
    assert.equal(paused.status, 200);
    assert.equal(paused.body.state, 'paused');
    assert.equal((await h.call('POST', '/v1/recording/pause', rec)).body.state, 'paused', 'pause is idempotent');
    const at = (await state()).captured_seconds;
    await new Promise((r) => setTimeout(r, 600));
    assert.equal((await state()).captured_seconds, at, 'nothing is captured while paused');
    const resumed = await h.call('POST', '/v1/recording/resume', rec);
    assert.equal(resumed.status, 200);
    assert.equal(resumed.body.state, 'recording');
    assert.equal((await h.call('POST', '/v1/recording/resume', rec)).body.state, 'recording', 'resume is idempotent');
    await eventually('capture after resume', 5000, async () => ((await state()).captured_seconds > at + 0.3 ? true : undefined));

    const stop = await h.call('POST', '/v1/recording/stop', rec);
    assert.equal(stop.body.state, 'stopping');
    assert.equal(stop.body.active_meeting_id, meetingId);
    const again = await h.call('POST', '/v1/recording/stop', rec);
    assert.ok(again.status === 200 || again.body.error.code === 'recording_active', 'a second stop: still stopping, or already idle');
    const stopped = await waitFor('stopped');
    assert.equal(stopped.event, 'recording.stopped');
    assert.equal(stopped.data.state, 'idle');
    assert.equal(stopped.data.last_meeting_id, meetingId);
    assert.equal(stopped.data.last_error, null);
    await h.deps.recording.processingIdle();
    const s = await state();
    assert.equal(s.active_meeting_id, null);
    assert.equal(s.processing?.state, 'succeeded');
    const transcript = await h.call('GET', `/v1/meetings/${meetingId}/transcript`, read);
    assert.equal(transcript.body.segments.length > 0, true);
    const seconds = (statSync(h.deps.media.audio({ recording: h.deps.meetings.recording(meetingId)! })!.path).size - 44) / 32_000;
    assert.ok(seconds > 1 && Math.abs(seconds - stopped.data.captured_seconds) < 0.05, `the WAV holds what was captured (${seconds} s)`);
  });

  test('409s: start twice (recording_in_progress); stop, pause, resume when idle (recording_active)', async () => {
    for (const action of ['stop', 'pause', 'resume']) {
      const res = await h.call('POST', `/v1/recording/${action}`, rec);
      assert.equal(res.status, 409, action);
      assert.equal(res.body.error.code, 'recording_active', action);
    }
    const first = await h.call('POST', '/v1/recording/start', rec, { mic_device_name: 'Quiet Mic' });
    assert.equal(first.status, 202);
    const second = await h.call('POST', '/v1/recording/start', rec, { mic_device_name: 'Quiet Mic' });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'recording_in_progress');
    const pauseWhileStarting = await h.call('POST', '/v1/recording/pause', rec);
    assert.ok(pauseWhileStarting.status === 200 || pauseWhileStarting.body.error.code === 'recording_active');
    await waitFor('started');
    assert.equal((await h.call('POST', '/v1/recording/start', rec, {})).body.error.code, 'recording_in_progress');
    await stopAndSettle();
  });

  test('consent: omitted or true starts; false is 400 saying it must be true; not a boolean is 422', async () => {
    const refused = await h.call('POST', '/v1/recording/start', rec, { consent_attested: false, mic_device_name: 'Quiet Mic' });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, 'bad_request');
    assert.match(refused.body.error.message, /consent_attested must be true/);
    for (const bad of ['yes', 1, null]) {
      const res = await h.call('POST', '/v1/recording/start', rec, { consent_attested: bad });
      assert.equal(res.status, 422, JSON.stringify(bad));
      assert.equal(res.body.error.code, 'invalid_request');
    }
    assert.equal((await h.call('POST', '/v1/recording/start', rec, { nonsense: 1 })).status, 422, 'unknown fields are refused');
    assert.equal((await h.call('POST', '/v1/recording/start', rec, '{"broken')).status, 400);
    assert.equal((await state()).state, 'idle', 'nothing was started');
    await startOn('Quiet Mic'); // consent omitted
    await stopAndSettle();
  });

  test('device references: unknown name or wrong type is 400; mic and system are mixed into one track', async () => {
    const unknown = await h.call('POST', '/v1/recording/start', rec, { mic_device_name: 'No Such Mic' });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error.message, /names no device/);
    const wrongType = await h.call('POST', '/v1/recording/start', rec, { mic_device_name: 'Speakers' });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.body.error.message, /is an output device/);
    assert.equal((await h.call('POST', '/v1/recording/start', rec, { system_device_name: 'Quiet Mic' })).status, 400);
    assert.equal(
      (await h.call('POST', '/v1/recording/start', rec, { mic_device_name: 'Talk Mic', system_device_name: 'Talk Mic' })).status,
      400,
    );

    const both = await startOn('Talk Mic', { system_device_name: 'Speakers' });
    assert.deepEqual(
      both.devices.map((d) => [d.name, d.role, d.transport]),
      [
        ['Talk Mic', 'mic', 'pulse'],
        ['Speakers', 'system', 'pulse'],
      ],
    );
    await new Promise((r) => setTimeout(r, 500));
    const stopped = await stopAndSettle();
    assert.ok(stopped.captured_seconds > 0.3);
  });

  test('a remote caller needs pre-arming (403 not_prearmed); armed, it starts; loopback is unaffected', async () => {
    const paired = h.auth(RECORD, 'paired');
    const lan = h.auth(RECORD, 'lan');
    for (const auth of [paired, lan]) {
      const res = await h.call('POST', '/v1/recording/start', auth, { mic_device_name: 'Quiet Mic' });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'not_prearmed');
    }
    assert.equal((await h.ctl('PATCH', '/control/settings', { remote_recording_prearmed: true })).status, 200);
    try {
      const res = await h.call('POST', '/v1/recording/start', paired, { mic_device_name: 'Quiet Mic' });
      assert.equal(res.status, 202);
      assert.equal(res.body.state, 'starting');
      await waitFor('started');
      await stopAndSettle();
    } finally {
      await h.ctl('PATCH', '/control/settings', { remote_recording_prearmed: false });
    }
  });

  test('scopes: start, stop, pause, resume need the literal record scope; the wait needs read', async () => {
    for (const scopes of [['read'], ['write'], ['delete'], ['read', 'write', 'delete']]) {
      for (const action of ['start', 'stop', 'pause', 'resume']) {
        const res = await h.call('POST', `/v1/recording/${action}`, h.auth(scopes));
        assert.equal(res.status, 403, `${scopes.join('+')} ${action}`);
        assert.equal(res.body.error.code, 'insufficient_scope');
      }
    }
    const viaRecord = await readSse(`${h.api}/v1/recording/wait?until=stopped`, JSON_HEADERS(rec));
    assert.equal(viaRecord.events[0]?.event, 'recording.stopped', 'record satisfies read');
    const deleteOnly = await readSse(`${h.api}/v1/recording/wait?until=stopped`, JSON_HEADERS(h.auth(['delete'])));
    assert.equal(deleteOnly.status, 403);
  });

  test('unplugging the device mid-recording ends it with last_error; the audio so far is the meeting', async () => {
    const started = await startOn('Talk Mic');
    const meetingId = started.active_meeting_id!;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await h.ctl('DELETE', '/control/devices/Talk%20Mic')).status, 204);
    const stopped = await waitFor('stopped');
    assert.equal(stopped.data.state, 'idle');
    assert.match(stopped.data.last_error ?? '', /the device "Talk Mic" was unplugged/);
    assert.equal(stopped.data.last_meeting_id, meetingId);
    assert.ok(stopped.data.captured_seconds > 1, `kept ${stopped.data.captured_seconds} s`);
    await h.deps.recording.processingIdle();
    const meeting = await h.call('GET', `/v1/meetings/${meetingId}`, read);
    assert.equal(meeting.status, 200);
    assert.equal(meeting.body.has_recording, true);
    const seconds = (statSync(h.deps.media.audio({ recording: h.deps.meetings.recording(meetingId)! })!.path).size - 44) / 32_000;
    assert.ok(Math.abs(seconds - stopped.data.captured_seconds) < 0.05, `file ${seconds} s`);
    assert.equal((await state()).processing?.state, 'succeeded');

    // A start on a device that is gone is a 400; on one that failed, an asynchronous failure.
    assert.equal((await h.call('POST', '/v1/recording/start', rec, { mic_device_name: 'Talk Mic' })).status, 400);
    assert.equal((await h.ctl('POST', '/control/devices', { name: 'Talk Mic', device_type: 'input', script: 'tiny' })).status, 201);
    await h.devices.ready('Talk Mic');
  });

  test('a device that fails: a start on it ends at once with last_error; the started-wait ends with recording.stopped', async () => {
    assert.equal((await h.ctl('POST', '/control/devices', { name: 'Broken Mic', device_type: 'input', script: null })).status, 201);
    await h.devices.ready('Broken Mic');
    const failed = await h.ctl('POST', '/control/devices/Broken%20Mic/fail', { error: 'USB error at /home/alice/dev/mic0' });
    assert.equal(failed.status, 200);
    assert.equal(failed.body.state, 'failed');
    assert.equal((await h.ctl('POST', '/control/devices/Nobody/fail', {})).status, 404);
    const res = await h.call('POST', '/v1/recording/start', rec, { mic_device_name: 'Broken Mic' });
    assert.equal(res.status, 202);
    const wait = await waitFor('started');
    assert.equal(wait.event, 'recording.stopped');
    assert.equal(wait.data.state, 'idle');
    assert.equal(wait.data.last_error, 'USB error at ~/dev/mic0', 'redacted');
    assert.equal((await h.ctl('DELETE', '/control/devices/Broken%20Mic')).status, 204);
  });

  test('POST /control/recording/fault fails the active recording; last_error is shown redacted', async () => {
    const idleFault = await h.ctl('POST', '/control/recording/fault', { error: 'x' });
    assert.equal(idleFault.status, 409);
    assert.equal(idleFault.body.error.code, 'conflict');
    assert.equal((await h.ctl('POST', '/control/recording/fault', {})).status, 422);
    const started = await startOn('Quiet Mic');
    await new Promise((r) => setTimeout(r, 300));
    const fault = await h.ctl('POST', '/control/recording/fault', { error: 'capture device lost: /home/alice/.config/app/devices.json' });
    assert.equal(fault.status, 200);
    assert.equal(fault.body.state, 'stopping');
    const stopped = await waitFor('stopped');
    assert.equal(stopped.data.last_error, 'capture device lost: ~/.config/app/devices.json');
    assert.equal(stopped.data.last_meeting_id, started.active_meeting_id);
    await h.deps.recording.processingIdle();
    assert.equal((await h.call('GET', `/v1/meetings/${started.active_meeting_id}`, read)).status, 200, 'the audio so far is kept');
    // The next start clears last_error.
    await startOn('Quiet Mic');
    assert.equal((await state()).last_error, null);
    await stopAndSettle();
  });

  test('deleting the meeting being recorded ends the recording without last_error', async () => {
    const started = await startOn('Quiet Mic');
    const del = await h.call('DELETE', `/v1/meetings/${started.active_meeting_id}?delete_files=true`, h.auth(['delete']));
    assert.equal(del.status, 200);
    const stopped = await waitFor('stopped');
    assert.equal(stopped.data.last_error, null);
    assert.equal(stopped.data.state, 'idle');
  });

  test('SSE: until is required (422) and must be started or stopped (422); timeout gives one timeout event', async () => {
    for (const q of ['', '?until=', '?until=paused', '?until=started&until=stopped', '?until=started&timeout=soon']) {
      const res = await readSse(`${h.api}/v1/recording/wait${q}`, JSON_HEADERS(read));
      assert.equal(res.status, 422, q);
      assert.equal((res.body as { error: { code: string } }).error.code, 'invalid_request', q);
    }
    const t0 = Date.now();
    const timedOut = await readSse(`${h.api}/v1/recording/wait?until=started&timeout=1`, JSON_HEADERS(read));
    assert.equal(timedOut.events.length, 1);
    assert.equal(timedOut.events[0]!.event, 'timeout');
    assert.deepEqual(timedOut.events[0]!.data, { until: 'started', timeout_seconds: 1, state: 'idle' });
    assert.equal(timedOut.closedByServer, true);
    assert.ok(Date.now() - t0 >= 900 && Date.now() - t0 < 5000);
    const zero = await readSse(`${h.api}/v1/recording/wait?until=started&timeout=0`, JSON_HEADERS(read));
    assert.equal(zero.events[0]!.event, 'timeout');
    const capped = await readSse(`${h.api}/v1/recording/wait?until=stopped&timeout=999999`, JSON_HEADERS(read));
    assert.equal(capped.events[0]!.event, 'recording.stopped', 'an over-long timeout is clamped, not refused; idle resolves at once');
  });

  test('SSE: waits resolve on the transition, or at once when the state is already there', async () => {
    const already = await waitFor('stopped');
    assert.equal(already.event, 'recording.stopped');
    assert.equal(already.data.state, 'idle');

    let opened = false;
    const pending = readSse(`${h.api}/v1/recording/wait?until=started&timeout=20`, JSON_HEADERS(read), { onOpen: () => (opened = true) });
    await eventually('the wait stream to open', 5000, () => (opened ? true : undefined));
    const stopWait = readSse(`${h.api}/v1/recording/wait?until=stopped&timeout=30`, JSON_HEADERS(read));
    const res = await h.call('POST', '/v1/recording/start', rec, { mic_device_name: 'Quiet Mic' });
    assert.equal(res.status, 202);
    const started = await pending;
    assert.deepEqual(
      started.events.map((e) => e.event),
      ['recording.started'],
    );
    assert.equal((started.events[0]!.data as StateBody).state, 'recording');
    assert.equal((await waitFor('started')).event, 'recording.started', 'already recording: at once');
    await h.call('POST', '/v1/recording/stop', rec);
    const stopped = await stopWait;
    assert.deepEqual(
      stopped.events.map((e) => e.event),
      ['recording.stopped'],
    );
    await h.deps.recording.processingIdle();
  });

  test('events: one recording.started and one recording.stopped per recording, with the session id', async () => {
    const seen: string[] = [];
    const off = h.deps.bus.subscribe((e) => {
      if (e.resource.kind === 'recording') seen.push(`${e.event} ${e.resource.id}`);
    });
    try {
      const started = await startOn('Quiet Mic');
      await stopAndSettle();
      assert.deepEqual(seen, [`recording.started ${started.session_id}`, `recording.stopped ${started.session_id}`]);
    } finally {
      off();
    }
  });

  test('Control API reset stops the recording (idle, no last_error) and unplugs the simulated devices', async () => {
    await startOn('Quiet Mic');
    const before = h.pids();
    assert.equal((await h.ctl('POST', '/control/reset')).status, 204);
    // Reset erased the tokens too.
    assert.equal((await h.call('GET', '/v1/recording', read)).status, 401);
    rec = h.auth(RECORD);
    read = h.auth(['read']);
    const s = await state();
    assert.equal(s.state, 'idle');
    assert.equal(s.last_error, null);
    assert.equal(s.last_meeting_id, null);
    assert.deepEqual(h.devices.listSimulated(), []);
    assert.deepEqual((await h.ctl('GET', '/control')).body.capabilities.includes('recording-fault'), true);
    // Players and capture processes of the devices are gone (the daemon stays for the next plug).
    const daemon = new Set(h.devices.processIds());
    await assertGone(before.filter((p) => !daemon.has(p)));
  });
});

describe('no capture device, no capture tool, no PulseAudio, a restart', () => {
  test('no input device at all: 503 service_unavailable with a clear message', async () => {
    const res = await h.call('POST', '/v1/recording/start', rec, {});
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, 'service_unavailable');
    assert.match(res.body.error.message, /no capture device/);
  });

  test('the capture tool (parec) missing: 503 at start', async () => {
    const other = await recordingHarness({
      pipeline: scriptedPipeline({ words: SAMPLE_WORDS }),
      pocketsphinxRoots: [],
      capture: { env: { PATH: '/nonexistent' } },
    });
    try {
      assert.equal((await other.ctl('POST', '/control/devices', { name: 'Mic', device_type: 'input', script: null })).status, 201);
      await other.devices.ready('Mic');
      const res = await other.call('POST', '/v1/recording/start', other.auth(RECORD), { mic_device_name: 'Mic' });
      assert.equal(res.status, 503);
      assert.match(res.body.error.message, /capture backend missing: parec \(apt package pulseaudio-utils\) is not installed/);
    } finally {
      await other.close();
    }
  });

  test('where PulseAudio cannot run, the in-process devices record (clearly simulated)', async () => {
    const other = await recordingHarness({
      backend: 'in-process',
      pipeline: scriptedPipeline({ words: SAMPLE_WORDS }),
      pocketsphinxRoots: [],
    });
    try {
      await other.ctl('POST', '/control/devices', { name: 'Mic', device_type: 'input', script: 'tiny' });
      const auth = other.auth(RECORD);
      assert.equal((await other.call('POST', '/v1/recording/start', auth, {})).status, 202, 'the first input device is the default');
      const started = await readSse(`${other.api}/v1/recording/wait?until=started&timeout=10`, { Authorization: auth });
      assert.deepEqual(
        (started.events[0]!.data as StateBody).devices.map((d) => [d.name, d.transport]),
        [['Mic', 'in-process']],
      );
      await new Promise((r) => setTimeout(r, 700));
      await other.call('POST', '/v1/recording/stop', auth);
      const stopped = await readSse(`${other.api}/v1/recording/wait?until=stopped&timeout=10`, { Authorization: auth });
      assert.ok((stopped.events[0]!.data as StateBody).captured_seconds > 0.5);
      await other.deps.recording.processingIdle();
    } finally {
      await other.close();
    }
  });

  test('a restart mid-recording keeps the audio as the meeting; the next start transcribes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mas-recording-restart-'));
    const devices = new VirtualDeviceCatalog({ backend: 'in-process' });
    const build = () => {
      const db = openDatabase(join(dataDir, 'gateway.sqlite'));
      const deps = createDeps({ db, dataDir, devices, pipeline: scriptedPipeline({ words: SAMPLE_WORDS }), pocketsphinxRoots: [] });
      deps.settings.update(RESET_SETTINGS);
      deps.start();
      return { db, deps };
    };
    try {
      devices.plug({ name: 'Mic', device_type: 'input', script: 'tiny' });
      await devices.ready('Mic');
      const first = build();
      first.deps.recording.start({ mic_device_name: 'Mic' }, { remote: false });
      const meetingId = await eventually('recording', 5000, () => first.deps.recording.view().active_meeting_id ?? undefined);
      await new Promise((r) => setTimeout(r, 800));
      first.deps.shutdown();
      first.db.close();

      const second = build();
      try {
        assert.equal(second.deps.recording.state, 'idle');
        await second.deps.recording.processingIdle();
        const view = second.deps.recording.view();
        assert.equal(view.last_meeting_id, meetingId);
        assert.equal(view.processing?.state, 'succeeded');
        assert.ok(second.deps.meetings.transcript(meetingId).segments.length > 0);
        const seconds =
          (statSync(second.deps.media.audio({ recording: second.deps.meetings.recording(meetingId)! })!.path).size - 44) / 32_000;
        assert.ok(seconds > 0.5, `the audio up to the restart is kept (${seconds} s)`);
      } finally {
        second.deps.shutdown();
        second.db.close();
      }
    } finally {
      devices.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
