import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HttpClient } from './http.ts';
import type { Exchange } from './exchange.ts';
import { Secrets } from './secrets.ts';
import { openSse, readSse } from './sse.ts';
import type { LocalServer } from './testing.ts';
import { localServer } from './testing.ts';

let server: LocalServer;
const log: Exchange[] = [];
let client: HttpClient;

before(async () => {
  server = await localServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const sse = (): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    };
    switch (url.pathname) {
      case '/one':
        sse();
        res.write(': heartbeat\n\n');
        setTimeout(() => res.end('event: job.completed\ndata: {"state":"succeeded"}\n\n'), 50);
        return;
      case '/timeout':
        sse();
        setTimeout(() => res.end('event: timeout\ndata: {"timeout_seconds":1}\n\n'), 100);
        return;
      case '/two':
        sse();
        res.end('event: a\ndata: 1\n\nevent: b\ndata: 2\n\n');
        return;
      case '/open':
        sse();
        res.write(': still here\n\n'); // never ends
        return;
      case '/event-then-hang':
        sse();
        res.write('event: job.failed\ndata: {}\n\n'); // one event, but the stream stays open
        return;
      case '/denied':
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"error":{"code":"unauthorized","message":"no token"}}');
        return;
      case '/multiline':
        sse();
        res.end('data: line one\ndata: line two\n\n');
        return;
      default:
        res.writeHead(404);
        res.end();
    }
  });
  client = new HttpClient({
    baseUrl: server.url,
    channel: 'api',
    secrets: new Secrets(),
    sink: () => (x) => {
      const e = { seq: log.length + 1, ...x };
      log.push(e);
      return e;
    },
  });
});

after(() => server.close());

test('one event, then the server closes: frames, comments and timing are recorded', async () => {
  const r = await readSse(client, '/one', { deadlineMs: 3000 });
  assert.equal(r.status, 200);
  assert.equal(r.mediaType, 'text/event-stream');
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0]!.event, 'job.completed');
  assert.deepEqual(JSON.parse(r.events[0]!.data), { state: 'succeeded' });
  assert.deepEqual(
    r.comments.map((c) => c.trim()),
    ['heartbeat'],
  );
  assert.equal(r.closedByServer, true);
  assert.equal(r.end, 'eof');
  assert.ok(r.exchange.sse !== undefined && r.exchange.sse.frames.length === 2);
  assert.match(r.exchange.curl, /curl -sS -i -N/);
});

test('a timeout event is an event like any other', async () => {
  const r = await readSse(client, '/timeout', { deadlineMs: 3000 });
  assert.equal(r.events[0]!.event, 'timeout');
  assert.ok(r.events[0]!.atMs >= 90);
});

test('two events are both seen (so "exactly one" can be judged)', async () => {
  const r = await readSse(client, '/two', { deadlineMs: 3000 });
  assert.deepEqual(
    r.events.map((e) => e.event),
    ['a', 'b'],
  );
});

test('a stream that never ends stops at the deadline, not closed by the server', async () => {
  const r = await readSse(client, '/open', { deadlineMs: 300 });
  assert.equal(r.events.length, 0);
  assert.equal(r.closedByServer, false);
  assert.equal(r.end, 'deadline');
});

test('after its event, a stream that stays open is cut after the grace period', async () => {
  const r = await readSse(client, '/event-then-hang', { deadlineMs: 5000, closeGraceMs: 200 });
  assert.equal(r.events.length, 1);
  assert.equal(r.closedByServer, false);
  assert.equal(r.end, 'deadline');
  assert.ok(r.endedAtMs < 2000);
});

test('an HTTP error answer is kept as text', async () => {
  const r = await readSse(client, '/denied', { deadlineMs: 3000 });
  assert.equal(r.status, 401);
  assert.equal(r.events.length, 0);
  assert.match(r.text, /unauthorized/);
});

test('multi-line data and an unnamed event', async () => {
  const r = await readSse(client, '/multiline', { deadlineMs: 3000 });
  assert.equal(r.events[0]!.event, undefined);
  assert.equal(r.events[0]!.data, 'line one\nline two');
});

test('openSse: wait for the first event, then close from the client side', async () => {
  const s = openSse(client, '/open', { deadlineMs: 5000 });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(s.status(), 200);
  s.close();
  const r = await s.done;
  assert.equal(r.end, 'closed by client');
  assert.equal(await s.firstEvent(), null);
});

test('no server: a transport error, status 0', async () => {
  const dead = new HttpClient({
    baseUrl: 'http://127.0.0.1:9',
    channel: 'api',
    secrets: new Secrets(),
    sink: () => (x) => ({ seq: 0, ...x }),
  });
  const r = await readSse(dead, '/one', { deadlineMs: 2000 });
  assert.equal(r.status, 0);
  assert.ok(r.error !== undefined);
});
