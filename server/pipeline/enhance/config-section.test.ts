/**
 * The front end's fields in the vad section: shown by GET with their
 * defaults, set by PUT, refused when wrong, read by the pipeline as set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { testGateway } from '../../testing/gateway.ts';

test('vad section: enhancement, dereverberation and denoise round-trip through GET and PUT', async () => {
  const gw = testGateway();
  try {
    const bearer = gw.bearer(['read', 'write']);
    const initial = await request(gw.app).get('/v1/config/vad').set('Authorization', bearer);
    assert.equal(initial.status, 200);
    assert.equal(initial.body.config.enhancement, 'auto');
    assert.equal(initial.body.config.dereverberation, true);
    assert.equal(initial.body.config.denoise, true);
    assert.equal(initial.body.config.threshold, 0.5, 'the existing fields keep their defaults');

    const put = await request(gw.app)
      .put('/v1/config/vad')
      .set('Authorization', bearer)
      .send({ enhancement: 'on', denoise: false, threshold: 0.6 });
    assert.equal(put.status, 200);
    assert.equal(put.body.config.enhancement, 'on');
    assert.equal(put.body.config.denoise, false);
    assert.equal(put.body.config.dereverberation, true, 'an omitted field falls back to its default');
    const read = await request(gw.app).get('/v1/config/vad').set('Authorization', bearer);
    assert.deepEqual(read.body, put.body);
    const typed = gw.deps.config.effective('vad');
    assert.equal(typed.enhancement, 'on');
    assert.equal(typed.denoise, false);

    for (const body of [{ enhancement: 'maybe' }, { enhancement: true }, { denoise: 'yes' }, { dereverberation: 1 }]) {
      const bad = await request(gw.app).put('/v1/config/vad').set('Authorization', bearer).send(body);
      assert.equal(bad.status, 422, JSON.stringify(body));
      assert.equal(bad.body.error.code, 'invalid_request');
    }
    const after = await request(gw.app).get('/v1/config/vad').set('Authorization', bearer);
    assert.deepEqual(after.body, put.body, 'a refused PUT changes nothing');
  } finally {
    gw.close();
  }
});
