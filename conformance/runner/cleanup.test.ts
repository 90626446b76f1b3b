/** The cleanup (cleanup.ts) against a small fake target: what it removes, what it leaves and why, and Ctrl+C. */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import { RunLedger } from '../harness/ledger.ts';
import { Secrets } from '../harness/secrets.ts';
import { localServer } from '../harness/testing.ts';
import type { PoolToken } from '../harness/token-pool.ts';
import { LEFT, cleanUp, guardInterrupts } from './cleanup.ts';

/** A target holding meetings, webhooks (with owners) and jobs; 'reader' may not delete, 'gone' no longer authenticates. */
function fakeTarget(): {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  meetings: Set<string>;
  hooks: Map<string, string>;
  requests: string[];
} {
  const meetings = new Set(['m1', 'm2', 'theirs']);
  const hooks = new Map([
    ['w1', 'owner'],
    ['w2', 'gone'],
  ]);
  const jobs = new Map<string, { state: string; meeting_id: string | null }>([
    ['j1', { state: 'running', meeting_id: null }],
    ['j2', { state: 'succeeded', meeting_id: 'm2' }],
  ]);
  const requests: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    requests.push(`${req.method} ${req.url} ${token}`);
    const send = (status: number, body?: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    if (token === 'gone') {
      send(401, { error: { code: 'unauthorized', message: 'no' } });
      return;
    }
    const [, , kind, id, action] = (req.url ?? '').split('/');
    if (kind === 'jobs' && id !== undefined) {
      const job = jobs.get(id);
      if (job === undefined) {
        send(404, { error: { code: 'not_found', message: 'no' } });
        return;
      }
      if (action === 'cancel') {
        // A cancelled import made its meeting before it stopped: the cleanup must find it and remove it too.
        job.state = 'cancelled';
        job.meeting_id = 'm1';
        send(200, { id, ...job });
        return;
      }
      send(200, { id, ...job });
      return;
    }
    if (kind === 'webhooks' && id !== undefined && req.method === 'DELETE') {
      if (!hooks.has(id)) {
        send(404, { error: { code: 'not_found', message: 'no' } });
        return;
      }
      if (hooks.get(id) !== token) {
        send(403, { error: { code: 'forbidden', message: 'not yours' } });
        return;
      }
      hooks.delete(id);
      send(204);
      return;
    }
    if (kind === 'meetings' && id !== undefined && req.method === 'DELETE') {
      if (token !== 'deleter') {
        send(403, { error: { code: 'insufficient_scope', message: 'delete' } });
        return;
      }
      if (meetings.delete(id)) send(204);
      else send(404, { error: { code: 'not_found', message: 'no' } });
      return;
    }
    send(404, { error: { code: 'not_found', message: 'no' } });
  };
  return { handler, meetings, hooks, requests };
}

const pooled = (token: string, scopes: string[]): PoolToken => ({
  token,
  tokenId: token,
  scopes,
  origin: 'loopback',
  kind: 'standard',
  source: '--token',
});

function ledgerOfARun(): RunLedger {
  const ledger = new RunLedger('http://127.0.0.1:1');
  const seen = (method: string, path: string, body: unknown, bearer: string): void =>
    ledger.onApi({ method, path, status: 201, body, bearer });
  seen('POST', '/v1/jobs/import', { job_id: 'j1' }, 'owner');
  seen('POST', '/v1/jobs/import', { job_id: 'j2' }, 'owner');
  seen('POST', '/v1/webhooks', { id: 'w1' }, 'owner');
  seen('POST', '/v1/webhooks', { id: 'w2' }, 'gone');
  seen('POST', '/v1/webhooks', { id: 'w3' }, 'owner'); // a check deleted it without the ledger seeing it: 404 at cleanup
  seen('POST', '/v1/pair/request', { pairing_id: 'p1' }, '');
  return ledger;
}

test('the cleanup removes what the run made and its tokens may remove, and says why the rest stays', async () => {
  const fake = fakeTarget();
  const target = await localServer(fake.handler);
  try {
    const ledger = ledgerOfARun();
    const summary = await cleanUp({
      baseUrl: target.url,
      secrets: new Secrets(),
      ledger,
      pool: [pooled('reader', ['read', 'write']), pooled('deleter', ['read', 'delete'])],
      control: null,
      requestTimeoutMs: 5000,
    });
    assert.deepEqual([...fake.meetings], ['theirs'], 'the run’s meetings go, the one that was there stays');
    assert.deepEqual([...fake.hooks.keys()], ['w2']);
    const kinds = Object.fromEntries(summary.kinds.map((k) => [k.kind, k]));
    assert.deepEqual(
      summary.kinds.map((k) => [k.kind, k.created, k.removed, k.left]),
      [
        ['meetings', 2, 2, 0],
        ['jobs', 2, 0, 2],
        ['webhooks', 3, 2, 1],
        ['pairings', 1, 0, 1],
      ],
    );
    assert.equal(kinds.jobs!.leftWhy[0]!.reason, LEFT.jobs);
    assert.deepEqual(kinds.jobs!.notes, ['1 still running cancelled']);
    assert.match(kinds.webhooks!.leftWhy[0]!.reason, /owner token may no longer delete it \(DELETE answered 401/);
    assert.equal(kinds.pairings!.leftWhy[0]!.reason, LEFT.pairings);
    assert.ok(fake.requests.includes('POST /v1/jobs/j1/cancel owner'));
  } finally {
    await target.close();
  }
});

test('without a token that may delete, meetings stay with that reason', async () => {
  const fake = fakeTarget();
  const target = await localServer(fake.handler);
  try {
    const ledger = new RunLedger(target.url);
    ledger.onApi({ method: 'POST', path: '/v1/jobs/import', status: 202, body: { job_id: 'j2' }, bearer: 'owner' });
    const summary = await cleanUp({
      baseUrl: target.url,
      secrets: new Secrets(),
      ledger,
      pool: [pooled('reader', ['read', 'write'])],
      control: null,
      requestTimeoutMs: 5000,
    });
    const meetings = summary.kinds.find((k) => k.kind === 'meetings')!;
    assert.deepEqual([meetings.created, meetings.removed, meetings.left], [1, 0, 1]);
    assert.equal(meetings.leftWhy[0]!.reason, LEFT.noDeleteToken);
    assert.ok(fake.meetings.has('m2'));
  } finally {
    await target.close();
  }
});

test('Ctrl+C: the first stops new checks and cleans up, then exits 130; a second exits at once', async () => {
  const exits: number[] = [];
  const said: string[] = [];
  let release = (): void => undefined;
  const cleaning = new Promise<void>((r) => {
    release = r;
  });
  const guard = guardInterrupts(
    () => cleaning,
    (t) => said.push(t),
    (code) => exits.push(code),
  );
  try {
    assert.equal(guard.signal.aborted, false);
    process.emit('SIGINT', 'SIGINT');
    assert.equal(guard.signal.aborted, true);
    assert.deepEqual(exits, [], 'the cleanup runs before the exit');
    process.emit('SIGINT', 'SIGINT');
    assert.deepEqual(exits, [130]);
    release();
    await cleaning;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(exits, [130, 130]);
    assert.match(said[0]!, /removing what the run created/);
  } finally {
    guard.dispose();
  }
});

test('SIGTERM exits with 143 after the cleanup', async () => {
  const exits: number[] = [];
  const guard = guardInterrupts(
    async () => undefined,
    () => undefined,
    (code) => exits.push(code),
  );
  try {
    process.emit('SIGTERM', 'SIGTERM');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(exits, [143]);
  } finally {
    guard.dispose();
  }
});
