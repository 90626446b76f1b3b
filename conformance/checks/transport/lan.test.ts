/**
 * The LAN checks send traffic to loopback addresses only (and to --lan-host
 * when the user names one), and still tell a listener on all interfaces from
 * one on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { Socket, createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterEach, beforeEach, test } from 'node:test';
import type { ControlDriver } from '../../harness/control.ts';
import { testEnv } from '../../harness/testing.ts';
import { Secrets } from '../../harness/secrets.ts';
import { runAttempt } from '../../runner/run.ts';
import type { Session } from '../../runner/session-types.ts';
import { check as lanListener } from './lan-listener.check.ts';
import { check as lanOff } from './lan-off-by-default.check.ts';

// eslint-disable-next-line @typescript-eslint/unbound-method -- put back on the prototype, with its own this, after each test
const originalConnect = Socket.prototype.connect;
let contacted: string[] = [];

beforeEach(() => {
  contacted = [];
  // Records the host of every outgoing TCP connection (net and TLS both end here).
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    const first = args[0] as { host?: string } | number | unknown[];
    const host = Array.isArray(first)
      ? (first[0] as { host?: string }).host
      : typeof first === 'object' && first !== null
        ? first.host
        : (args[1] as string | undefined);
    contacted.push(host ?? 'localhost');
    return (originalConnect as (...a: unknown[]) => Socket).apply(this, args);
  };
});
afterEach(() => {
  Socket.prototype.connect = originalConnect;
});

function fakeControl(): ControlDriver {
  const settings = { lan_enabled: false };
  return {
    has: () => true,
    capabilities: new Set(['settings', 'restart']),
    settings: async () => settings,
    patchSettings: async () => settings,
    restart: async () => undefined,
  } as unknown as ControlDriver;
}

function listen(host: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer((s) => s.destroy());
    server.listen(0, host, () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

function session(baseUrl: string, lanHost?: string): Session {
  const env = testEnv(baseUrl, { control: fakeControl(), ...(lanHost === undefined ? {} : { lanHost }) });
  return { env, secrets: new Secrets(), capabilities: undefined, setupLog: [], setCurrent: () => undefined, close: async () => undefined };
}

const loopback = (h: string): boolean => /^127\./.test(h) || h === '::1' || h === 'localhost';

test('lan-off-by-default and lan-listener connect to loopback addresses only', async () => {
  const { server, port } = await listen('127.0.0.1');
  try {
    await runAttempt(lanOff, session(`http://127.0.0.1:${port}`), false);
    await runAttempt(lanListener, session(`http://127.0.0.1:${port}`), false);
    assert.ok(contacted.length > 0);
    assert.deepEqual(
      contacted.filter((h) => !loopback(h)),
      [],
    );
    assert.ok(contacted.includes('127.0.0.2'), contacted.join(' '));
  } finally {
    server.close();
  }
});

test('--lan-host is the one other address reached', async () => {
  const { server, port } = await listen('127.0.0.1');
  try {
    await runAttempt(lanOff, session(`http://127.0.0.1:${port}`, '127.0.0.3'), false);
    assert.ok(contacted.includes('127.0.0.3'));
  } finally {
    server.close();
  }
});

test('a target listening on all interfaces fails lan-off-by-default; one on 127.0.0.1 does not', async () => {
  const all = await listen('0.0.0.0');
  const one = await listen('127.0.0.1');
  try {
    const bad = await runAttempt(lanOff, session(`http://127.0.0.1:${all.port}`), false);
    assert.ok(
      bad.failures.some((f) => f.what.includes(`port ${all.port} on 127.0.0.2`)),
      JSON.stringify(bad),
    );
    const good = await runAttempt(lanOff, session(`http://127.0.0.1:${one.port}`), false);
    assert.ok(!good.failures.some((f) => f.what.includes(`port ${one.port} on 127.0.0.2`)), JSON.stringify(good));
  } finally {
    all.server.close();
    one.server.close();
  }
});
