/** The run's ledger (ledger.ts): what it records from the answers it is shown, and its summary. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpClient } from './http.ts';
import { RunLedger, cleanupLine, mergeCleanups } from './ledger.ts';
import { Secrets } from './secrets.ts';
import { localServer } from './testing.ts';

const api = (method: string, path: string, body: unknown, bearer = 'tok-a') => ({ method, path, status: 200, body, bearer });

test('an import job is recorded at its 202, and its meeting when a job answer names it', () => {
  const ledger = new RunLedger('http://127.0.0.1:1');
  ledger.onApi(api('POST', '/v1/jobs/import', { job_id: 'j1' }));
  ledger.onApi(api('POST', '/v1/jobs/diarization', { job_id: 'j2' }));
  assert.deepEqual(
    ledger.entries.map((e) => [e.kind, e.id, e.importJob === true]),
    [
      ['jobs', 'j1', true],
      ['jobs', 'j2', false],
    ],
  );
  // The meeting of a diarization job was there before it: only an import's meeting is the run's.
  ledger.onApi(api('GET', '/v1/jobs/j2', { id: 'j2', state: 'succeeded', meeting_id: 'm0' }));
  ledger.onApi(
    api('GET', '/v1/jobs', {
      jobs: [
        { id: 'j1', state: 'succeeded', meeting_id: 'm1' },
        { id: 'other', meeting_id: 'm9' },
      ],
    }),
  );
  assert.deepEqual(
    ledger.present('meetings').map((e) => [e.id, e.creator]),
    [['m1', 'tok-a']],
  );
});

test('a check that deletes what it made leaves nothing to remove; a later sighting of the id changes nothing', () => {
  const ledger = new RunLedger('http://127.0.0.1:1/prefix');
  ledger.onApi(api('POST', '/v1/webhooks', { id: 'w1', hmac_secret: 's' }));
  ledger.onApi(api('POST', '/v1/webhooks', { id: 'w2', hmac_secret: 's' }, 'tok-b'));
  ledger.onApi(api('DELETE', '/v1/webhooks/w1', undefined));
  ledger.onApi(api('POST', '/v1/webhooks', { id: 'w1' }));
  assert.deepEqual(
    ledger.entries.map((e) => [e.id, e.state, e.creator]),
    [
      ['w1', 'deleted-by-check', 'tok-a'],
      ['w2', 'present', 'tok-b'],
    ],
  );
});

test('a Control API reset erases everything recorded before it; minted tokens, devices and their removal by checks are followed', () => {
  const ledger = new RunLedger('http://127.0.0.1:1', 'http://127.0.0.1:2');
  const control = (method: string, path: string, body?: unknown, requestBody?: string) => ({
    method,
    path,
    status: 201,
    body,
    ...(requestBody === undefined ? {} : { requestBody }),
  });
  ledger.onControl(control('POST', '/control/meetings', { id: 'm1' }));
  ledger.onControl(control('POST', '/control/tokens', { token: 'raw', token_id: 't1', scopes: ['read', 'delete'] }));
  ledger.onControl(control('POST', '/control/reset'));
  ledger.onControl(control('POST', '/control/tokens', { token: 'raw2', token_id: 't2', scopes: ['read'] }));
  ledger.onControl(control('POST', '/control/tokens', { token: 'raw3', token_id: 't3', scopes: ['read'] }));
  ledger.onControl(control('PATCH', '/control/tokens/t2', {}, '{"enabled":false}'));
  ledger.onControl(control('DELETE', '/control/tokens/t3'));
  ledger.onControl(control('POST', '/control/devices', undefined, '{"name":"Sim Mic","device_type":"input"}'));
  ledger.onControl(control('POST', '/control/jobs', { id: 'j1' }));
  assert.deepEqual(
    ledger.entries.map((e) => [e.kind, e.id, e.state]),
    [
      ['meetings', 'm1', 'erased-by-reset'],
      ['tokens', 't1', 'erased-by-reset'],
      ['tokens', 't2', 'present'],
      ['tokens', 't3', 'deleted-by-check'],
      ['devices', 'Sim Mic', 'present'],
      ['jobs', 'j1', 'present'],
    ],
  );
  assert.equal(ledger.get('tokens', 't2')?.token?.disabled, true);
  const s = ledger.summary({ kept: true });
  assert.deepEqual(
    s.kinds.map((k) => [k.kind, k.created, k.removed, k.left]),
    [
      ['meetings', 1, 1, 0],
      ['jobs', 1, 0, 1],
      ['devices', 1, 0, 1],
      ['tokens', 3, 2, 1],
    ],
  );
  assert.match(
    cleanupLine(s),
    /^kept on the target \(--keep\): meetings: created 1, removed 1 \(1 by a Control API reset\), left 0; jobs: /,
  );
  assert.match(cleanupLine(s), /jobs: created 1, removed 0, left 1 \(kept \(--keep\)\)/);
});

test('only 2xx answers are recorded, through the HTTP client the checks use, the bearer of the request kept as the creator', async () => {
  const target = await localServer((req, res) => {
    const created = req.url === '/v1/webhooks' && req.headers.authorization === 'Bearer good';
    res.writeHead(created ? 201 : 400, { 'content-type': 'application/json' });
    res.end(JSON.stringify(created ? { id: 'w1' } : { error: { code: 'bad', message: 'no' } }));
  });
  try {
    const ledger = new RunLedger(target.url);
    const client = new HttpClient({
      baseUrl: target.url,
      channel: 'api',
      secrets: new Secrets(),
      sink: () => (x) => ({ seq: 1, ...x }),
      observe: ledger.observeApi,
    });
    await client.post('/v1/webhooks', { token: 'bad', json: { url: 'https://[2d00::1]/', events: ['job.completed'] } });
    assert.equal(ledger.entries.length, 0);
    await client.post('/v1/webhooks', { token: 'good', json: { url: 'https://[2d00::1]/', events: ['job.completed'] } });
    assert.deepEqual(
      ledger.entries.map((e) => [e.kind, e.id, e.creator]),
      [['webhooks', 'w1', 'good']],
    );
  } finally {
    await target.close();
  }
});

test('shards merge by adding their counts per kind', () => {
  const a = new RunLedger('http://x');
  a.onApi(api('POST', '/v1/webhooks', { id: 'w1' }));
  a.onApi(api('POST', '/v1/jobs/import', { job_id: 'j1' }));
  const b = new RunLedger('http://x');
  b.onApi(api('POST', '/v1/webhooks', { id: 'w2' }));
  b.onApi(api('DELETE', '/v1/webhooks/w2', undefined));
  const merged = mergeCleanups([a.summary({ kept: false }), b.summary({ kept: false })]);
  assert.deepEqual(
    merged.kinds.map((k) => [k.kind, k.created, k.removed, k.left]),
    [
      ['jobs', 1, 0, 1],
      ['webhooks', 2, 1, 1],
    ],
  );
});

test('settings changed by a PATCH or a reset are to be restored; "changed" and "restored" in the summary', () => {
  const ledger = new RunLedger('http://x', 'http://y');
  const control = (method: string, path: string) => ({ method, path, status: 200, body: {} });
  ledger.onControl(control('PATCH', '/control/settings'));
  assert.equal(ledger.present('settings').length, 0, 'nothing to restore when the settings before the run are unknown');
  ledger.settingsBefore = { webhooks_enabled: false };
  ledger.onControl(control('POST', '/control/reset'));
  assert.equal(ledger.present('settings').length, 1, 'a reset changes the settings too, and does not restore those from before the run');
  ledger.present('settings')[0]!.state = 'removed';
  assert.match(cleanupLine(ledger.summary({ kept: false })), /^settings: changed 1, restored 1, left 0$/);
});
