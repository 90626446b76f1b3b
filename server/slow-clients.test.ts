/**
 * Slow and idle clients cannot exhaust the gateway
 * (docs/decisions/023-slow-clients.md): a real listener (Gateway.start on a
 * temporary data folder) with short limits, driven over raw sockets.
 *
 * Outcomes are asserted (closed, status, body, nothing stored, budget
 * released), never durations; the only times are the short limits given to
 * the gateway and generous test timeouts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gateway } from './gateway.ts';
import type { ConnectionLimits } from './kernel/http/connection-limits.ts';
import { call } from './testing/http-call.ts';
import { listenerTestOptions } from './testing/gateway.ts';

/** Short limits: every protection fires within a second or so. */
const SHORT: Partial<ConnectionLimits> = {
  headersTimeoutMs: 500,
  keepAliveTimeoutMs: 500,
  idleTimeoutMs: 400,
  bodyTimeoutMs: 600,
  uploadIdleMs: 500,
};

async function withGateway(limits: Partial<ConnectionLimits>, run: (g: Gateway) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-slow-'));
  const gateway = await Gateway.start(listenerTestOptions(dataDir, { limits }));
  try {
    await run(gateway);
  } finally {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface RawConnection {
  socket: Socket;
  /** Resolves once the server has closed the connection, with everything it sent. */
  closed: Promise<string>;
  /** Whether the server has ended its side yet. */
  readonly ended: boolean;
}

/** A raw TCP connection that records what the server sends until it closes. */
function raw(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let ended = false;
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {}); // a reset after the reply is an outcome, not a failure
    const closed = new Promise<string>((res) => {
      socket.once('end', () => (ended = true));
      socket.once('close', () => {
        ended = true;
        res(Buffer.concat(chunks).toString('utf8'));
      });
    });
    socket.once('connect', () =>
      resolve({
        socket,
        closed,
        get ended() {
          return ended;
        },
      }),
    );
    socket.once('error', reject);
  });
}

/** Status and parsed JSON body of a raw HTTP/1.1 reply. */
function parseReply(text: string): { status: number; body: { error: { code: string; message: string } } } {
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  assert.ok(m !== null, `expected an HTTP reply, got ${JSON.stringify(text.slice(0, 200))}`);
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  let body = text.slice(text.indexOf('\r\n\r\n') + 4);
  if (/^transfer-encoding: chunked/im.test(head)) body = unchunk(body);
  return { status: Number(m[1]), body: JSON.parse(body) as { error: { code: string; message: string } } };
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/** Writes `piece` every `everyMs` until the server ends the connection. */
function trickle(conn: RawConnection, piece: string, everyMs: number): void {
  const timer = setInterval(() => {
    if (conn.ended || conn.socket.destroyed) clearInterval(timer);
    else conn.socket.write(piece);
  }, everyMs);
  conn.socket.once('close', () => clearInterval(timer));
}

test('(a) slowloris: a header line every so often is answered 400 and closed after headersTimeout', { timeout: 30_000 }, () =>
  withGateway(SHORT, async (g) => {
    const conn = await raw(g.api.port);
    conn.socket.write(`GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${g.startupToken}\r\n`);
    trickle(conn, 'X-Slow: 1\r\n', 100); // more often than the idle timeout: only the headers timeout can end it
    const reply = parseReply(await conn.closed);
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, 'bad_request');
    assert.match(reply.body.error.message, /headers were not received in time/);
    assert.equal((await call(`${g.api.url}/v1/whoami`, { bearer: g.startupToken })).status, 200);
  }),
);

test('(b) a trickled JSON body is ended with the envelope and nothing is stored', { timeout: 30_000 }, () =>
  withGateway(SHORT, async (g) => {
    g.deps.settings.update({ webhooks_enabled: true }); // so that a complete body would be stored
    // A public address (never contacted: no event is raised here); a loopback one would need the local targets list.
    const hook = { url: 'https://93.184.215.14/hook', events: ['job.completed'] };
    const body = JSON.stringify(hook);
    const conn = await raw(g.api.port);
    conn.socket.write(
      'POST /v1/webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `Authorization: Bearer ${g.startupToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    let sent = 0;
    const timer = setInterval(() => {
      if (conn.ended || sent >= body.length - 1) return; // never the last byte
      conn.socket.write(body[sent++]!);
    }, 100);
    const text = await conn.closed;
    clearInterval(timer);
    const reply = parseReply(text);
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, 'bad_request');
    assert.match(reply.body.error.message, /body did not arrive within/);
    assert.match(text, /^connection: close/im);
    const list = await call(`${g.api.url}/v1/webhooks`, { bearer: g.startupToken });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.webhooks, []);
    // The same body sent whole is stored: the refusal above was the trickle's.
    assert.equal((await call(`${g.api.url}/v1/webhooks`, { method: 'POST', bearer: g.startupToken, body: hook })).status, 201);
    assert.equal((await call(`${g.api.url}/v1/webhooks`, { bearer: g.startupToken })).body.webhooks.length, 1);
  }),
);

test('(c) 2,000 idle connections: whoami is still answered while they are open, and the server closes them', { timeout: 60_000 }, () =>
  // Headers and idle timeouts long enough that the idle connections are surely still open when whoami is
  // asked, even on a loaded CI machine (connecting 2,000 sockets takes about 1 s here; 15 s is the margin).
  withGateway({ ...SHORT, headersTimeoutMs: 15_000, idleTimeoutMs: 15_000 }, async (g) => {
    const COUNT = 2_000;
    const idle = await Promise.all(Array.from({ length: COUNT }, () => raw(g.api.port)));
    const whoami = await call(`${g.api.url}/v1/whoami`, { bearer: g.startupToken });
    const openAtWhoami = idle.filter((c) => !c.ended).length;
    assert.equal(whoami.status, 200);
    assert.equal(openAtWhoami, COUNT, 'the server may close idle connections only after its headers timeout');
    const texts = await Promise.all(idle.map((c) => c.closed));
    // Each was closed by the server; where a reply could still be written it is the envelope.
    for (const text of texts) {
      if (text !== '') assert.equal(parseReply(text).body.error.code, 'bad_request');
    }
    assert.equal((await call(`${g.api.url}/v1/whoami`, { bearer: g.startupToken })).status, 200);
  }),
);

test('(d) an oversized header block gets the 400 envelope and a closed connection; the server still serves', { timeout: 30_000 }, () =>
  withGateway(SHORT, async (g) => {
    const conn = await raw(g.api.port);
    conn.socket.write(`GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    const reply = parseReply(await conn.closed);
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, 'bad_request');
    assert.match(reply.body.error.message, /headers are larger than the server accepts/);
    assert.equal((await call(`${g.api.url}/v1/whoami`, { bearer: g.startupToken })).status, 200);
  }),
);

test('(e) an oversized JSON body is refused 413 payload_too_large without being read whole', { timeout: 30_000 }, () =>
  withGateway(SHORT, async (g) => {
    g.deps.settings.update({ webhooks_enabled: true });
    const head = `POST /v1/webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${g.startupToken}\r\nContent-Type: application/json\r\n`;

    // Declared too large: answered from the headers alone (not a byte of the body is sent).
    const declared = await raw(g.api.port);
    declared.socket.write(`${head}Content-Length: ${64 * 1024 * 1024}\r\n\r\n`);
    const first = parseReply(await declared.closed);
    assert.equal(first.status, 413);
    assert.equal(first.body.error.code, 'payload_too_large');

    // Chunked, no length: refused once the cap is passed, while the client is still sending.
    const chunked = await raw(g.api.port);
    chunked.socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
    const piece = `["${'x'.repeat(64 * 1024)}",`;
    let replied = false;
    chunked.socket.on('data', () => (replied = true));
    for (let i = 0; i < 64 && !replied && !chunked.ended; i++) {
      chunked.socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const second = parseReply(await chunked.closed); // the rest is never sent: the unread-body deadline closes it
    assert.equal(second.status, 413);
    assert.equal(second.body.error.code, 'payload_too_large');

    const list = await call(`${g.api.url}/v1/webhooks`, { bearer: g.startupToken });
    assert.deepEqual(list.body.webhooks, []);
  }),
);

test('(f) a trickled import that stalls is ended by the upload idle timeout and releases its budget place', { timeout: 30_000 }, () =>
  // Idleness alone (any byte keeps the upload): the minimum rate has its own test below.
  withGateway({ ...SHORT, uploadMinBytesPerWindow: 1 }, async (g) => {
    const conn = await raw(g.api.port);
    conn.socket.write(
      'POST /v1/jobs/import?filename=slow.wav HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `Authorization: Bearer ${g.startupToken}\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n`,
    );
    // A trickle (more often than the idle timeout) until the upload is seen holding its budget place, then a stall.
    const uploading = (): number => g.deps.importBudget.inFlight.uploads;
    let sawHeld = false;
    for (let i = 0; (i < 10 || !sawHeld) && !conn.ended; i++) {
      conn.socket.write(Buffer.alloc(100));
      await new Promise((r) => setTimeout(r, 100));
      sawHeld ||= uploading() === 1;
    }
    assert.ok(sawHeld, 'the upload holds a budget place while it trickles');
    await conn.closed;
    // The place is released in the upload's cleanup, which may run just after the socket closes.
    while (uploading() !== 0) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(g.deps.importBudget.inFlight, { uploads: 0, bytes: 0, decodedBytes: 0 });
    const uploads = g.deps.media.folders.uploads;
    assert.deepEqual(existsSync(uploads) ? readdirSync(uploads) : [], [], 'no partial file is left behind');
    const jobs = await call(`${g.api.url}/v1/jobs`, { bearer: g.startupToken });
    assert.deepEqual(jobs.body.jobs, []);
  }),
);

test(
  '(f2) an import trickled faster than the idle limit but under the minimum rate is ended and releases its place',
  { timeout: 30_000 },
  () =>
    withGateway({ ...SHORT, uploadIdleMs: 1_000, uploadMinBytesPerWindow: 50_000 }, async (g) => {
      const conn = await raw(g.api.port);
      conn.socket.write(
        'POST /v1/jobs/import?filename=trickle.wav HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
          `Authorization: Bearer ${g.startupToken}\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n`,
      );
      // 100 bytes every 100 ms: never idle for the 1 s limit, but about 1 kB a window against the 50 kB asked.
      let sent = 0;
      const uploading = (): number => g.deps.importBudget.inFlight.uploads;
      let sawHeld = false;
      while (!conn.ended) {
        conn.socket.write(Buffer.alloc(100));
        sent += 100;
        await new Promise((r) => setTimeout(r, 100));
        sawHeld ||= uploading() === 1;
        assert.ok(sent < 1_000_000, 'the trickle was never ended');
      }
      assert.ok(sawHeld, 'the upload held a budget place while it trickled');
      while (uploading() !== 0) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(g.deps.importBudget.inFlight, { uploads: 0, bytes: 0, decodedBytes: 0 });
      const uploads = g.deps.media.folders.uploads;
      assert.deepEqual(existsSync(uploads) ? readdirSync(uploads) : [], [], 'no partial file is left behind');
      // The same file sent at an honest speed is accepted.
      const honest = await call(`${g.api.url}/v1/jobs/import?filename=fast.wav`, {
        method: 'POST',
        bearer: g.startupToken,
        body: Buffer.alloc(200_000),
      });
      assert.equal(honest.status, 202);
    }),
);

test('(g) an SSE wait held open longer than the idle timeout is not cut', { timeout: 30_000 }, () =>
  withGateway(SHORT, async (g) => {
    const conn = await raw(g.api.port);
    // A 2 s wait: five idle timeouts, and no heartbeat comes in that time (they are 15 s apart).
    conn.socket.write(
      `GET /v1/recording/wait?until=started&timeout=2 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${g.startupToken}\r\nConnection: close\r\n\r\n`,
    );
    const text = await conn.closed;
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /content-type: text\/event-stream/i);
    assert.match(text, /event: timeout\ndata: /);
  }),
);

test('keep-alive: an idle connection between requests is closed after keepAliveTimeout', { timeout: 30_000 }, () =>
  withGateway(SHORT, async (g) => {
    const conn = await raw(g.api.port);
    conn.socket.write(`GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${g.startupToken}\r\n\r\n`);
    const text = await conn.closed;
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /keep-alive/i);
  }),
);

test('the Control API has the same limits: slow headers get the envelope', { timeout: 30_000 }, () =>
  withGateway(SHORT, async (g) => {
    assert.ok(g.control !== null);
    const conn = await raw(g.control.port);
    conn.socket.write('GET /control/settings HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    trickle(conn, 'X-Slow: 1\r\n', 100);
    const reply = parseReply(await conn.closed);
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, 'bad_request');
  }),
);
