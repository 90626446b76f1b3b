import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { parseAsoundPcm } from '../../adapters/devices.ts';
import { testGateway } from '../../testing/gateway.ts';

test('health has the spec fields with integer counters', async () => {
  const gw = testGateway();
  try {
    const res = await request(gw.app).get('/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
    assert.equal(typeof res.body.version, 'string');
    for (const n of [res.body.webhooks.events_dropped, res.body.webhooks.deliveries_failed, res.body.license.fail_open_total]) {
      assert.ok(Number.isInteger(n));
    }
  } finally {
    gw.close();
  }
});

test('devices lists simulated devices plugged into the catalog, marked simulated', async () => {
  const gw = testGateway();
  try {
    gw.deps.devices.plug({ name: 'Sim Mic', device_type: 'input', script: null });
    const res = await request(gw.app)
      .get('/v1/devices')
      .set('Authorization', gw.bearer(['read']));
    assert.equal(res.status, 200);
    const sim = (res.body.devices as { name: string; simulated: boolean; device_type: string }[]).find((d) => d.name === 'Sim Mic');
    assert.deepEqual(sim, { name: 'Sim Mic', device_type: 'input', simulated: true, backend: 'simulator' });
  } finally {
    gw.close();
  }
});

test('ALSA pcm lines become input and output devices', () => {
  const devices = parseAsoundPcm(
    '00-00: ALC3246 Analog : ALC3246 Analog : playback 1 : capture 1\n01-03: HDMI 0 : HDMI 0 : playback 1\ngarbage line\n',
  );
  assert.deepEqual(
    devices.map((d) => [d.name, d.device_type]),
    [
      ['ALC3246 Analog (hw:0,0)', 'output'],
      ['ALC3246 Analog (hw:0,0)', 'input'],
      ['HDMI 0 (hw:1,3)', 'output'],
    ],
  );
});

test('models lists the models present on disk, with custom whisper files marked', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mas-models-'));
  mkdirSync(join(root, 'en-us'));
  writeFileSync(join(root, 'en-us', 'mdef'), Buffer.alloc(2_000_000));
  const gw = testGateway({ pocketsphinxRoots: [root] });
  try {
    mkdirSync(join(gw.dataDir, 'models'), { recursive: true });
    writeFileSync(join(gw.dataDir, 'models', 'ggml-base.en.bin'), Buffer.alloc(1_500_000));
    const res = await request(gw.app)
      .get('/v1/models')
      .set('Authorization', gw.bearer(['read']));
    assert.equal(res.status, 200);
    const byName = new Map((res.body.models as { name: string; size_mb: number; is_custom: boolean }[]).map((m) => [m.name, m]));
    assert.equal(byName.get('pocketsphinx-en-us')?.is_custom, false);
    assert.equal(byName.get('pocketsphinx-en-us')?.size_mb, 2);
    assert.equal(byName.get('ggml-base.en')?.is_custom, true);
    assert.equal(byName.get('ggml-base.en')?.size_mb, 1.5);
  } finally {
    gw.close();
  }
});

test('there is no model download or delete route', async () => {
  const gw = testGateway();
  try {
    const bearer = gw.bearer(['read', 'write', 'delete']);
    assert.equal((await request(gw.app).post('/v1/models').set('Authorization', bearer)).status, 404);
    assert.equal((await request(gw.app).delete('/v1/models/x').set('Authorization', bearer)).status, 404);
  } finally {
    gw.close();
  }
});
