/**
 * The Control API against CONTROL.md's own text: every body CONTROL.md shows
 * or allows is accepted, with the status it names. Tooling written from
 * CONTROL.md alone must work on the reference.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { testGateway } from '../testing/gateway.ts';
import { JOB_KINDS, JOB_STATES } from '../features/jobs/states.ts';
import { createControlApp } from './app.ts';

const SECRET = 'control-secret-for-tests-0123456789';
const AUTH = `Bearer ${SECRET}`;

async function withControl(
  run: (c: ReturnType<typeof createControlApp>, gw: ReturnType<typeof testGateway>) => Promise<void>,
): Promise<void> {
  const gw = testGateway({ pocketsphinxRoots: [] });
  const control = createControlApp({ secret: SECRET, deps: () => gw.deps, restart: () => undefined, logError: () => undefined });
  try {
    await run(control, gw);
    assert.deepEqual(gw.errors, []);
  } finally {
    gw.close();
  }
}

test('POST /control/jobs: "state: any job state", with or without hold, for every kind', () =>
  withControl(async (control) => {
    const meeting = await request(control).post('/control/meetings').set('Authorization', AUTH).send({ title: 'M', segments: [] });
    for (const kind of JOB_KINDS) {
      for (const state of JOB_STATES) {
        for (const hold of [true, false]) {
          const res = await request(control)
            .post('/control/jobs')
            .set('Authorization', AUTH)
            .send({ kind, state, hold, ...(kind === 'import' ? {} : { meeting_id: meeting.body.id }) });
          assert.equal(res.status, 201, `${kind} ${state} hold ${hold}: ${JSON.stringify(res.body)}`);
          assert.equal(typeof res.body.id, 'string');
        }
      }
    }
  }));

test('a paused held job: resumed, it stays running until finish (the hold applies once it runs)', () =>
  withControl(async (control, gw) => {
    const res = await request(control)
      .post('/control/jobs')
      .set('Authorization', AUTH)
      .send({ kind: 'diarization', state: 'paused', hold: true });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    gw.deps.jobs.resume(res.body.id);
    await gw.deps.jobs.idle();
    assert.equal(gw.deps.jobs.get(res.body.id).state, 'running');
    const finished = await request(control)
      .post(`/control/jobs/${res.body.id}/finish`)
      .set('Authorization', AUTH)
      .send({ outcome: 'failed', error: 'decoder failed' });
    assert.equal(finished.status, 200);
    assert.equal(finished.body.state, 'failed');
  }));

test('every example body of CONTROL.md is accepted with the status it names', () =>
  withControl(async (control) => {
    const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: unknown) => {
      const r = request(control)[method](path).set('Authorization', AUTH);
      return body === undefined ? r : r.send(body as object);
    };
    assert.equal((await call('get', '/control')).status, 200);
    assert.equal((await call('post', '/control/reset')).status, 204);
    assert.equal((await call('post', '/control/restart')).status, 204);
    assert.equal((await call('get', '/control/settings')).status, 200);
    for (const patch of [
      { automation_api_enabled: true },
      { license: 'pro' },
      { license: 'none' },
      { license: 'unverifiable' },
      { webhooks_enabled: true },
      { lan_enabled: false },
      { remote_recording_prearmed: true },
      { local_webhook_targets: ['127.0.0.1:9000'] },
      {
        automation_api_enabled: true,
        license: 'pro',
        webhooks_enabled: true,
        lan_enabled: false,
        remote_recording_prearmed: false,
        local_webhook_targets: [],
      },
    ]) {
      assert.equal((await call('patch', '/control/settings', patch)).status, 200, JSON.stringify(patch));
    }
    const token = await call('post', '/control/tokens', { scopes: ['read', 'write'], origin: 'loopback', kind: 'standard', name: 'ci' });
    assert.equal(token.status, 201);
    assert.deepEqual(Object.keys(token.body).sort(), ['scopes', 'token', 'token_id']);
    for (const origin of ['loopback', 'paired', 'lan'])
      for (const kind of ['standard', 'first_party', 'assistant'])
        assert.equal((await call('post', '/control/tokens', { scopes: ['read'], origin, kind })).status, 201);
    assert.equal((await call('post', '/control/tokens', { scopes: ['admin'] })).status, 201);
    assert.equal((await call('patch', `/control/tokens/${token.body.token_id}`, { enabled: false })).status, 200);
    assert.equal((await call('delete', `/control/tokens/${token.body.token_id}`)).status, 204);

    const meeting = await call('post', '/control/meetings', {
      title: 'Weekly sync',
      created_at: '2026-11-20T09:00:00Z',
      segments: [{ speaker: 'S1', start: 0.0, end: 2.4, text: 'Good morning.', words: [{ text: 'Good', start: 0.0, end: 0.3 }] }],
      summary: { text: 'Short summary.' },
      audio: true,
    });
    assert.equal(meeting.status, 201);
    assert.equal((await call('post', '/control/meetings', { title: 'no summary', segments: [], summary: null })).status, 201);
    const job = await call('post', '/control/jobs', {
      kind: 'retranscription',
      meeting_id: meeting.body.id,
      state: 'failed',
      is_retryable: true,
      source_gone: false,
      error: 'decoder failed on /home/alice/Music/x.wav',
      hold: false,
    });
    assert.equal(job.status, 201);
    const held = await call('post', '/control/jobs', { kind: 'diarization', meeting_id: meeting.body.id, state: 'running', hold: true });
    assert.equal((await call('post', `/control/jobs/${held.body.id}/finish`, { outcome: 'failed', error: 'x' })).status, 200);

    assert.equal((await call('get', '/control/pairings')).status, 200);
    assert.equal((await call('get', '/control/devices')).status, 200);
    assert.equal((await call('post', '/control/devices', { name: 'Sim Mic', device_type: 'input', script: null })).status, 201);
    assert.equal((await call('post', '/control/devices', { name: 'Sim Out', device_type: 'output', script: null })).status, 201);
    assert.equal((await call('delete', '/control/devices/Sim%20Mic')).status, 204);

    assert.equal((await call('get', '/control/meeting-apps')).status, 200);
    assert.equal((await call('get', '/control/meeting-detection')).status, 200);
    const call30 = { app_name: 'Microsoft Teams', binary: 'teams', seconds: 30 };
    assert.equal((await call('post', '/control/meeting-apps', { device: 'Sim Out', ...call30 })).status, 422, 'an output device');
    assert.equal((await call('post', '/control/meeting-apps', { device: 'No Such Mic', ...call30 })).status, 404);
    assert.equal((await call('delete', '/control/meeting-apps/app_unknown')).status, 404);
  }));
