import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MutantTools, ProxyRequest, ProxyResponse } from './proxy.ts';
import { answer } from './proxy.ts';
import { SlowRecorder } from './slow-recorder.ts';

/** A stand-in target (a mock: this is the proxy's unit test) whose recorder is in `state`; the clock is the test's. */
function world(): { clock: { now: number }; target: { state: string }; tools: MutantTools; recorder: SlowRecorder } {
  const clock = { now: 1000 };
  const target = { state: 'idle' };
  const tools: MutantTools = {
    forward: (req) =>
      Promise.resolve(
        req.url.pathname === '/v1/whoami'
          ? answer(200, { scopes: ['read', 'record'] })
          : answer(200, { state: target.state, active_meeting_id: null, last_error: null }),
      ),
    scopesOf: () => Promise.resolve(['read', 'record']),
  };
  return { clock, target, tools, recorder: new SlowRecorder({ now: () => clock.now, sleep: () => new Promise((r) => setImmediate(r)) }) };
}

const call = (method: string, path: string, body?: unknown): ProxyRequest => ({
  method,
  url: new URL(`http://proxy${path}`),
  headers: { authorization: 'Bearer t' },
  body: body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body)),
});

/** One call through the recorder: its own answer, or the target's (`targetAnswer`) through the response hook. */
async function through(w: ReturnType<typeof world>, req: ProxyRequest, targetAnswer: ProxyResponse): Promise<ProxyResponse> {
  const r = await w.recorder.request(req, w.tools);
  if ('status' in r) return r;
  return w.recorder.response(req, targetAnswer, w.tools);
}

const stateOf = (res: ProxyResponse): unknown => (JSON.parse(res.body.toString('utf8')) as { state?: unknown }).state;
const codeOf = (res: ProxyResponse): unknown => (JSON.parse(res.body.toString('utf8')) as { error?: { code?: unknown } }).error?.code;
/** Lets the recorder's follower read the target again (no time passes: the clock is the test's). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** Starts a recording the target takes 300 ms to bring up: shown starting ten times as long (until 4000). */
async function startSlowed(w: ReturnType<typeof world>): Promise<void> {
  w.target.state = 'starting';
  const start = await through(w, call('POST', '/v1/recording/start', {}), answer(202, { state: 'starting', session_id: 's1' }));
  assert.equal(start.status, 202);
  w.clock.now = 1300;
  w.target.state = 'recording';
  await flush();
}

test('a read and a start are answered from one state: a caller that reads idle can start, one refused reads starting', async () => {
  const w = world();
  await startSlowed(w);
  let firstRecording: number | null = null;
  for (let now = 1300; now <= 5000; now += 50) {
    w.clock.now = now;
    const shown = stateOf(await through(w, call('GET', '/v1/recording'), answer(200, { state: w.target.state })));
    if (shown === 'recording') firstRecording ??= now;
    const start = await w.recorder.request(call('POST', '/v1/recording/start', {}), w.tools);
    const refused = 'status' in start;
    assert.equal(refused, shown === 'starting', `at ${now}: read ${String(shown)}, start ${refused ? 'refused' : 'sent on'}`);
    if (refused) assert.equal(codeOf(start), 'recording_in_progress');
    // A start that went to the target has an answer to come; this one is not sent, so its wait is lifted.
    if (!refused) await w.recorder.response(call('POST', '/v1/recording/start', {}), answer(409, {}), w.tools);
  }
  // Ten times the target's 300 ms: starting until 4000, the target as it is from then on.
  assert.equal(firstRecording, 4000);
});

test('while starting: pause and resume get 409 recording_active; a stop goes to the target and opens stopping', async () => {
  const w = world();
  await startSlowed(w);
  w.clock.now = 2000;
  for (const action of ['pause', 'resume']) {
    const res = await w.recorder.request(call('POST', `/v1/recording/${action}`), w.tools);
    assert.ok('status' in res);
    assert.equal(res.status, 409);
    assert.equal(codeOf(res), 'recording_active');
  }
  w.target.state = 'stopping';
  const stop = await through(w, call('POST', '/v1/recording/stop'), answer(200, { state: 'stopping', session_id: 's1' }));
  assert.equal(stateOf(stop), 'stopping');
  w.clock.now = 2100;
  w.target.state = 'idle';
  await flush();
  // Stopping for ten times the target's 100 ms: a second stop is answered as the reference does ("already on the way").
  w.clock.now = 2500;
  const again = await w.recorder.request(call('POST', '/v1/recording/stop'), w.tools);
  assert.ok('status' in again);
  assert.equal(again.status, 200);
  assert.equal(stateOf(again), 'stopping');
  const start = await w.recorder.request(call('POST', '/v1/recording/start', {}), w.tools);
  assert.ok('status' in start);
  assert.equal(codeOf(start), 'recording_in_progress');
  w.clock.now = 3000;
  assert.equal(stateOf(await through(w, call('GET', '/v1/recording'), answer(200, { state: 'idle' }))), 'idle');
});

test('a start the target refuses before looking at the state (consent_attested false) goes to the target in any phase', async () => {
  const w = world();
  await startSlowed(w);
  w.clock.now = 2000;
  const req = call('POST', '/v1/recording/start', { consent_attested: false });
  assert.equal(await w.recorder.request(req, w.tools), req);
});

test('a recording wait the target resolved is held while the phase lasts; its own timeout answers a timeout event', async () => {
  const w = world();
  await startSlowed(w);
  w.clock.now = 2000;
  const wait = call('GET', '/v1/recording/wait?until=started&timeout=0');
  const resolved: ProxyResponse = {
    status: 200,
    headers: {},
    body: Buffer.from('event: recording.started\ndata: {"state":"recording"}\n\n'),
  };
  const res = await through(w, wait, resolved);
  const text = res.body.toString('utf8');
  assert.match(text, /^event: timeout\n/);
  assert.match(text, /"state":"starting"/);
  w.clock.now = 4000;
  const later = call('GET', '/v1/recording/wait?until=started&timeout=30');
  assert.equal(await through(w, later, resolved), resolved);
});
