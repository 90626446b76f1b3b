import { test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { CONFIG_SECTIONS, CONFIG_SECTION_NAMES } from './schemas.ts';
import { ALL_SCOPES, testGateway } from '../../testing/gateway.ts';

test('each of the eight sections answers a ConfigDto with its defaults', async () => {
  const gw = testGateway();
  try {
    const bearer = gw.bearer(['read']);
    assert.equal(CONFIG_SECTION_NAMES.length, 8);
    for (const section of CONFIG_SECTION_NAMES) {
      const res = await request(gw.app).get(`/v1/config/${section}`).set('Authorization', bearer);
      assert.equal(res.status, 200, section);
      assert.deepEqual(res.body, { section, config: CONFIG_SECTIONS[section].defaults, withheld: CONFIG_SECTIONS[section].withheld });
    }
  } finally {
    gw.close();
  }
});

test('PUT replaces the whole section: omitted fields fall back, the next GET equals the reply', async () => {
  const gw = testGateway();
  try {
    const bearer = gw.bearer(['write']);
    const first = await request(gw.app).put('/v1/config/vad').set('Authorization', bearer).send({ threshold: 0.9, min_speech_ms: 400 });
    assert.equal(first.status, 200);
    assert.equal(first.body.config.threshold, 0.9);
    const second = await request(gw.app).put('/v1/config/vad').set('Authorization', bearer).send({ enabled: false });
    assert.equal(second.status, 200);
    assert.equal(second.body.config.enabled, false);
    assert.equal(second.body.config.threshold, CONFIG_SECTIONS.vad.defaults.threshold, 'the omitted threshold is not kept');
    assert.equal(second.body.config.min_speech_ms, CONFIG_SECTIONS.vad.defaults.min_speech_ms);
    const read = await request(gw.app).get('/v1/config/vad').set('Authorization', bearer);
    assert.deepEqual(read.body, second.body);
    assert.equal(gw.deps.config.effective('vad').enabled, false, 'the pipeline sees the change at once');
  } finally {
    gw.close();
  }
});

test('unknown section → 404; unknown field or wrong type → 422; nothing stored', async () => {
  const gw = testGateway();
  try {
    const bearer = gw.bearer(['write']);
    const unknown = await request(gw.app).get('/v1/config/everything').set('Authorization', bearer);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
    const put = await request(gw.app).put('/v1/config/__proto__').set('Authorization', bearer).send({});
    assert.equal(put.status, 404);
    for (const body of [{ threshold: 'high' }, { threshold: 2 }, { nope: 1 }, [], 'x', null]) {
      const res = await request(gw.app)
        .put('/v1/config/vad')
        .set('Authorization', bearer)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(body));
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.code, 'invalid_request');
    }
    const voiceprints = await request(gw.app)
      .put('/v1/config/speaker-identification')
      .set('Authorization', bearer)
      .send({ voiceprints: [] });
    assert.equal(voiceprints.status, 422, 'withheld fields cannot be written');
    assert.equal(gw.db.prepare('SELECT COUNT(*) AS n FROM config_sections').get()!['n'], 0);
  } finally {
    gw.close();
  }
});

test('arming auto-record needs the record scope and pre-arming; disarming needs only write', async () => {
  const gw = testGateway();
  try {
    const writeOnly = gw.bearer(['write']);
    const writeRecord = gw.bearer(['write', 'record']);
    const arm = { enabled: true, auto_record: true };

    const noRecord = await request(gw.app).put('/v1/config/meeting-detection').set('Authorization', writeOnly).send(arm);
    assert.equal(noRecord.status, 403);
    assert.equal(noRecord.body.error.code, 'insufficient_scope');

    const notArmed = await request(gw.app).put('/v1/config/meeting-detection').set('Authorization', writeRecord).send(arm);
    assert.equal(notArmed.status, 403);
    assert.equal(notArmed.body.error.code, 'not_prearmed');

    gw.deps.settings.update({ remote_recording_prearmed: true });
    const armed = await request(gw.app).put('/v1/config/meeting-detection').set('Authorization', writeRecord).send(arm);
    assert.equal(armed.status, 200);
    assert.equal(armed.body.config.auto_record, true);

    const disarm = await request(gw.app).put('/v1/config/meeting-detection').set('Authorization', writeOnly).send({ auto_record: false });
    assert.equal(disarm.status, 200);
    assert.equal(disarm.body.config.auto_record, false);
  } finally {
    gw.close();
  }
});

test('reading needs read, writing needs write', async () => {
  const gw = testGateway();
  try {
    const del = await request(gw.app)
      .get('/v1/config/vad')
      .set('Authorization', gw.bearer(['delete']));
    assert.equal(del.status, 403);
    const rec = await request(gw.app)
      .put('/v1/config/vad')
      .set('Authorization', gw.bearer(['record', 'read']))
      .send({});
    assert.equal(rec.body.error.code, 'insufficient_scope');
    const all = await request(gw.app).put('/v1/config/vad').set('Authorization', gw.bearer(ALL_SCOPES)).send({});
    assert.equal(all.status, 200);
  } finally {
    gw.close();
  }
});
