/** The Control API's fixtures: meetings, devices, reset and restart, jobs (the rest is in app.test.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { RESET_SETTINGS } from '../kernel/store/settings-repo.ts';
import { AUTH, assertEnvelope, withControl } from '../testing/control-app.ts';

// ── Meetings ────────────────────────────────────────────────────────────────

test('meetings: the CONTROL.md example seeds a meeting the API serves', () =>
  withControl(async ({ gw, control }) => {
    const res = await request(control)
      .post('/control/meetings')
      .set('Authorization', AUTH)
      .send({
        title: 'Weekly sync',
        created_at: '2026-11-20T09:00:00Z',
        segments: [{ speaker: 'S1', start: 0.0, end: 2.4, text: 'Good morning.', words: [{ text: 'Good', start: 0.0, end: 0.3 }] }],
        summary: { text: 'Short summary.' },
        audio: true,
      });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body), ['id']);
    const id = res.body.id as string;
    const bearer = gw.bearer(['read']);

    const meeting = await request(gw.app).get(`/v1/meetings/${id}`).set('Authorization', bearer);
    assert.equal(meeting.status, 200);
    assert.equal(meeting.body.title, 'Weekly sync');
    assert.equal(Date.parse(meeting.body.created_at), Date.parse('2026-11-20T09:00:00Z'));
    assert.equal(meeting.body.has_recording, true);

    const transcript = await request(gw.app).get(`/v1/meetings/${id}/transcript`).set('Authorization', bearer);
    assert.equal(transcript.status, 200);
    assert.equal(transcript.body.segments.length, 1);
    assert.equal(transcript.body.segments[0].text, 'Good morning.');

    const summary = await request(gw.app).get(`/v1/meetings/${id}/summary`).set('Authorization', bearer);
    assert.equal(summary.status, 200);
    assert.equal(summary.body.result.text, 'Short summary.');
  }));

test('meetings: defaults (created_at now, no summary, no audio) and an empty transcript', () =>
  withControl(async ({ gw, control }) => {
    const before = Date.now();
    const res = await request(control).post('/control/meetings').set('Authorization', AUTH).send({ title: 'Bare', segments: [] });
    assert.equal(res.status, 201);
    const meeting = gw.deps.meetings.get(res.body.id as string);
    assert.ok(Date.parse(meeting.created_at) >= before - 1000);
    assert.equal(meeting.has_recording, false);
    const summary = await request(gw.app)
      .get(`/v1/meetings/${res.body.id}/summary`)
      .set('Authorization', gw.bearer(['read']));
    assert.equal(summary.body.status, 'none');
    const withNull = await request(control)
      .post('/control/meetings')
      .set('Authorization', AUTH)
      .send({ title: 'Null summary', segments: [], summary: null, audio: false });
    assert.equal(withNull.status, 201);
  }));

test('meetings: created_at with an offset is stored in UTC', () =>
  withControl(async ({ gw, control }) => {
    const res = await request(control)
      .post('/control/meetings')
      .set('Authorization', AUTH)
      .send({ title: 'Offset', created_at: '2026-11-20T11:00:00+02:00', segments: [] });
    assert.equal(res.status, 201);
    assert.equal(gw.deps.meetings.get(res.body.id as string).created_at, '2026-11-20T09:00:00.000Z');
  }));

test('meetings: violations of the body are 422 and seed nothing', () =>
  withControl(async ({ gw, control }) => {
    const seg = { speaker: 'S1', start: 0, end: 1, text: 'hi' };
    for (const body of [
      {},
      { segments: [] },
      { title: 5, segments: [] },
      { title: '', segments: [] },
      { title: 'x'.repeat(501), segments: [] },
      { title: 'T', segments: 'none' },
      { title: 'T', created_at: 'yesterday', segments: [] },
      { title: 'T', created_at: '2026-11-20', segments: [] },
      { title: 'T', segments: [{ ...seg, start: -1 }] },
      { title: 'T', segments: [{ ...seg, start: 2, end: 1 }] },
      { title: 'T', segments: [{ ...seg, text: 3 }] },
      { title: 'T', segments: [{ ...seg, mood: 'happy' }] },
      { title: 'T', segments: [{ ...seg, words: [{ text: 'hi', start: 1, end: 0 }] }] },
      { title: 'T', segments: [{ speaker: 'S1', start: 0, end: 1 }] },
      { title: 'T', segments: [], summary: 'text' },
      { title: 'T', segments: [], summary: { text: 1 } },
      { title: 'T', segments: [], audio: 'yes' },
      { title: 'T', segments: [], source: 'import' },
    ]) {
      const res = await request(control).post('/control/meetings').set('Authorization', AUTH).send(body);
      assertEnvelope(res, 422, 'invalid_request');
    }
    const list = await request(gw.app)
      .get('/v1/meetings')
      .set('Authorization', gw.bearer(['read']));
    assert.equal(list.body.total, 0);
  }));

// ── Devices ─────────────────────────────────────────────────────────────────

test('devices: plug, list, appear in /v1/devices, unplug', () =>
  withControl(async ({ gw, control }) => {
    const plugged = await request(control)
      .post('/control/devices')
      .set('Authorization', AUTH)
      .send({ name: 'Sim Mic', device_type: 'input', script: 'weekly-sync' });
    assert.equal(plugged.status, 201);
    assert.deepEqual(plugged.body, { name: 'Sim Mic', device_type: 'input', simulated: true, script: 'weekly-sync' });
    await request(control)
      .post('/control/devices')
      .set('Authorization', AUTH)
      .send({ name: 'Sim Out/1', device_type: 'output', script: null })
      .expect(201);

    const listed = await request(control).get('/control/devices').set('Authorization', AUTH);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body, {
      devices: [
        { name: 'Sim Mic', device_type: 'input', simulated: true, script: 'weekly-sync' },
        { name: 'Sim Out/1', device_type: 'output', simulated: true, script: null },
      ],
    });

    const api = await request(gw.app)
      .get('/v1/devices')
      .set('Authorization', gw.bearer(['read']));
    const names = (api.body.devices as { name: string; simulated: boolean }[]).filter((d) => d.simulated).map((d) => d.name);
    assert.deepEqual(names, ['Sim Mic', 'Sim Out/1']);

    assert.equal((await request(control).delete('/control/devices/Sim%20Mic').set('Authorization', AUTH)).status, 204);
    assert.equal(
      (
        await request(control)
          .delete(`/control/devices/${encodeURIComponent('Sim Out/1')}`)
          .set('Authorization', AUTH)
      ).status,
      204,
    );
    assertEnvelope(await request(control).delete('/control/devices/Sim%20Mic').set('Authorization', AUTH), 404, 'not_found');
    assert.deepEqual((await request(control).get('/control/devices').set('Authorization', AUTH)).body, { devices: [] });
  }));

test('devices: a scene (preset or object, with a seed) is resolved and shown; a bad one is 422 with the reason', () =>
  withControl(async ({ control }) => {
    const office = await request(control)
      .post('/control/devices')
      .set('Authorization', AUTH)
      .send({ name: 'Room Mic', device_type: 'input', script: 'weekly-sync', scene: 'office', seed: 7 });
    assert.equal(office.status, 201);
    assert.equal(office.body.scene.preset, 'office');
    assert.deepEqual(office.body.scene.room, { rt60: 0.4, drr_db: 3 });
    assert.equal(office.body.scene.seed, 7);
    const custom = await request(control)
      .post('/control/devices')
      .set('Authorization', AUTH)
      .send({
        name: 'Phone',
        device_type: 'input',
        script: 'weekly-sync',
        scene: { noise: [{ type: 'hvac', snr_db: 20 }], channel: [{ type: 'telephone' }] },
      });
    assert.equal(custom.status, 201);
    assert.deepEqual(custom.body.scene.channel, [{ type: 'telephone' }]);
    assert.equal(custom.body.scene.seed, 1, 'the default seed');
    const listed = await request(control).get('/control/devices').set('Authorization', AUTH);
    assert.equal(listed.body.devices[0].scene.seed, 7);

    for (const bad of [
      { name: 'X1', device_type: 'input', script: 'weekly-sync', scene: 'attic' },
      { name: 'X2', device_type: 'input', script: 'weekly-sync', scene: { room: { rt60: 40 } } },
      { name: 'X3', device_type: 'input', script: 'weekly-sync', scene: { noise: [{ type: 'jazz', snr_db: 5 }] } },
      { name: 'X4', device_type: 'input', script: null, scene: 'office' },
      { name: 'X5', device_type: 'input', script: 'weekly-sync', seed: -1 },
    ]) {
      assertEnvelope(await request(control).post('/control/devices').set('Authorization', AUTH).send(bad), 422, 'invalid_request');
    }
    assert.equal(
      (await request(control).get('/control/devices').set('Authorization', AUTH)).body.devices.length,
      2,
      'nothing plugged by a refused body',
    );
  }));

test('devices: a name already plugged in is 409 conflict', () =>
  withControl(async ({ control }) => {
    const body = { name: 'Sim Mic', device_type: 'input', script: null };
    await request(control).post('/control/devices').set('Authorization', AUTH).send(body).expect(201);
    assertEnvelope(
      await request(control)
        .post('/control/devices')
        .set('Authorization', AUTH)
        .send({ ...body, device_type: 'output' }),
      409,
      'conflict',
    );
  }));

test('devices: invalid bodies are 422', () =>
  withControl(async ({ control }) => {
    for (const body of [
      { device_type: 'input', script: null },
      { name: '', device_type: 'input', script: null },
      { name: '   ', device_type: 'input', script: null },
      { name: 'x'.repeat(101), device_type: 'input', script: null },
      { name: 'bad\nname', device_type: 'input', script: null },
      { name: 'bad\u200bname', device_type: 'input', script: null },
      { name: 'Mic', device_type: 'both', script: null },
      { name: 'Mic', device_type: 'input', script: 5 },
      { name: 'Mic', device_type: 'input', script: null, volume: 3 },
    ]) {
      assertEnvelope(await request(control).post('/control/devices').set('Authorization', AUTH).send(body), 422, 'invalid_request');
    }
    const ok = await request(control)
      .post('/control/devices')
      .set('Authorization', AUTH)
      .send({ name: 'x'.repeat(100), device_type: 'output' });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.script, null);
  }));

// ── Reset and restart ───────────────────────────────────────────────────────

test('reset: erases meetings (and their files), tokens, counters, devices; restores settings; then restarts', () =>
  withControl(async (h) => {
    const { gw, control } = h;
    const seeded = await request(control)
      .post('/control/meetings')
      .set('Authorization', AUTH)
      .send({ title: 'Gone soon', segments: [], audio: true })
      .expect(201);
    const recording = gw.deps.media.audio({ recording: gw.deps.meetings.recording(seeded.body.id as string)! })?.path ?? null;
    assert.ok(recording !== null && existsSync(recording));
    gw.token(['read']);
    await request(control)
      .post('/control/devices')
      .set('Authorization', AUTH)
      .send({ name: 'Sim Mic', device_type: 'input', script: null })
      .expect(201);
    await request(control)
      .patch('/control/settings')
      .set('Authorization', AUTH)
      .send({
        automation_api_enabled: false,
        license: 'unverifiable',
        webhooks_enabled: false,
        lan_enabled: true,
        remote_recording_prearmed: true,
        local_webhook_targets: ['127.0.0.1:9'],
      })
      .expect(200);
    gw.deps.counters.failOpenTotal = 3;
    gw.deps.counters.eventsDropped = 2;
    gw.deps.counters.deliveriesFailed = 1;

    const res = await request(control).post('/control/reset').set('Authorization', AUTH);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');

    assert.equal(h.restarts, 1);
    assert.deepEqual(gw.deps.settings.get(), RESET_SETTINGS);
    assert.deepEqual(gw.deps.tokens.list(), []);
    assert.deepEqual(gw.deps.devices.listSimulated(), []);
    assert.equal(gw.deps.counters.failOpenTotal + gw.deps.counters.eventsDropped + gw.deps.counters.deliveriesFailed, 0);
    assert.equal(existsSync(recording), false);
    const list = await request(gw.app)
      .get('/v1/meetings')
      .set('Authorization', gw.bearer(['read']));
    assert.equal(list.body.total, 0);
    assert.equal(existsSync(join(gw.dataDir, 'recordings')), true);
  }));

test('reset and restart answer 204 and then restart once each', () =>
  withControl(async (h) => {
    assert.equal((await request(h.control).post('/control/restart').set('Authorization', AUTH)).status, 204);
    assert.equal(h.restarts, 1);
    assert.equal((await request(h.control).post('/control/reset').set('Authorization', AUTH).send({})).status, 204);
    assert.equal(h.restarts, 2);
    assertEnvelope(
      await request(h.control).post('/control/restart').set('Authorization', AUTH).send({ now: true }),
      422,
      'invalid_request',
    );
    assert.equal(h.restarts, 2);
  }));

test('a failed restart is logged; the client already has its 204', () =>
  withControl(
    async (h) => {
      assert.equal((await request(h.control).post('/control/restart').set('Authorization', AUTH)).status, 204);
      assert.equal(h.logged.length, 1);
      assert.match(String(h.logged[0]), /disk gone/);
    },
    () => {
      throw new Error('disk gone');
    },
  ));

// ── Jobs (fixtures) ─────────────────────────────────────────────────────────

test('jobs: a fixture in any state; a held one stays until finish, which emits its event; finishing an ended job is 409', () =>
  withControl(async ({ gw, control }) => {
    const meeting = await request(control)
      .post('/control/meetings')
      .set('Authorization', AUTH)
      .send({ title: 'M', segments: [], audio: true });
    const failed = await request(control).post('/control/jobs').set('Authorization', AUTH).send({
      kind: 'retranscription',
      meeting_id: meeting.body.id,
      state: 'failed',
      is_retryable: true,
      error: 'decoder failed on /home/alice/Music/x.wav',
    });
    assert.equal(failed.status, 201);
    assert.equal(gw.deps.jobs.get(failed.body.id).state, 'failed');

    const held = await request(control)
      .post('/control/jobs')
      .set('Authorization', AUTH)
      .send({ kind: 'diarization', state: 'running', hold: true });
    assert.equal(held.status, 201);
    const events: string[] = [];
    gw.deps.bus.subscribe((e) => events.push(e.event));
    const finished = await request(control)
      .post(`/control/jobs/${held.body.id}/finish`)
      .set('Authorization', AUTH)
      .send({ outcome: 'succeeded' });
    assert.equal(finished.status, 200);
    assert.equal(finished.body.state, 'succeeded');
    assert.deepEqual(events, ['job.completed']);
    assertEnvelope(
      await request(control).post(`/control/jobs/${held.body.id}/finish`).set('Authorization', AUTH).send({ outcome: 'failed' }),
      409,
      'conflict',
    );
    assertEnvelope(
      await request(control).post('/control/jobs/job_nope/finish').set('Authorization', AUTH).send({ outcome: 'failed' }),
      404,
      'not_found',
    );
    assertEnvelope(
      await request(control).post('/control/jobs').set('Authorization', AUTH).send({ kind: 'import', state: 'completed' }),
      422,
      'invalid_request',
    );
    assertEnvelope(
      await request(control)
        .post('/control/jobs')
        .set('Authorization', AUTH)
        .send({ kind: 'diarization', state: 'queued', meeting_id: 'nope' }),
      422,
      'invalid_request',
    );
  }));
