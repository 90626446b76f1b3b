/**
 * Pairing under abuse, over a real listener (docs/decisions/015-pairing.md,
 * 022-host-origin-and-secrets.md): the two pairing routes need no token, so
 *
 *  - a flood of POST /v1/pair/request from one address gets 429
 *    too_many_requests with Retry-After after 10 a minute, and the pending
 *    cap (20 in all) holds against several addresses;
 *  - guessing GET /v1/pair/{id} is limited: after 30 unknown ids a minute,
 *    every poll from that address is 429, the right id included (so the
 *    answer tells a guesser nothing), while other addresses are unaffected;
 *  - all the while, an authenticated GET /v1/whoami is served.
 *
 * Several client addresses come from binding the client socket to other
 * addresses of 127.0.0.0/8 (all loopback on Linux).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gateway } from '../gateway.ts';
import { normaliseAddress, PAIRING_LIMITS } from '../features/pairing/service.ts';
import { listenerTestOptions } from '../testing/gateway.ts';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: { error?: { code?: string }; pairing_id?: string; state?: string };
}

function send(base: string, from: string, method: string, path: string, opts: { body?: unknown; bearer?: string } = {}): Promise<Reply> {
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      {
        method,
        agent: false,
        localAddress: from,
        headers: {
          ...(opts.bearer === undefined ? {} : { authorization: `Bearer ${opts.bearer}` }),
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Reply['body'],
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function assertTooMany(reply: Reply, what: string): void {
  assert.equal(reply.status, 429, what);
  assert.equal(reply.body.error?.code, 'too_many_requests', what);
  const retry = Number(reply.headers['retry-after']);
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 600, `${what}: Retry-After ${reply.headers['retry-after']}`);
}

describe('pairing under abuse on a real listener', () => {
  let dataDir: string;
  let gateway: Gateway;
  let base: string;
  const counts = { created: 0, refusedRequests: 0, misses: 0, refusedPolls: 0, whoami: 0 };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mas-pair-abuse-'));
    gateway = await Gateway.start(listenerTestOptions(dataDir, { control: null }));
    base = gateway.api.url;
  });

  after(async () => {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.stdout.write(`# pairing abuse: ${JSON.stringify(counts)}\n`);
  });

  async function whoamiServed(): Promise<void> {
    const reply = await send(base, '127.0.0.1', 'GET', '/v1/whoami', { bearer: gateway.startupToken });
    assert.equal(reply.status, 200, 'an authenticated call is served during the flood');
    counts.whoami += 1;
  }

  const ask = (from: string) => send(base, from, 'POST', '/v1/pair/request', { body: { client_name: `flood ${from}`, scopes: ['read'] } });

  test('a flood of pairing requests: 10 a minute per address, 20 pending in all, then 429 with Retry-After', async () => {
    let firstId = '';
    for (const from of ['127.0.0.2', '127.0.0.3']) {
      for (let i = 0; i < PAIRING_LIMITS.perAddress; i += 1) {
        const reply = await ask(from);
        assert.equal(reply.status, 202, `request ${i + 1} from ${from}`);
        firstId ||= reply.body.pairing_id ?? '';
        counts.created += 1;
      }
      for (let i = 0; i < 15; i += 1) {
        assertTooMany(await ask(from), `request ${PAIRING_LIMITS.perAddress + i + 1} from ${from}`);
        counts.refusedRequests += 1;
        if (i % 5 === 0) await whoamiServed();
      }
    }
    // 20 pending now: a fresh address is refused too, by the pending cap.
    assertTooMany(await ask('127.0.0.4'), 'a third address past the pending cap');
    counts.refusedRequests += 1;
    assert.equal(gateway.deps.pairing.list().length, PAIRING_LIMITS.maxPending);
    assert.ok(firstId.startsWith('pair_'));
    await whoamiServed();
  });

  test('guessing pairing ids: 30 unknown ids a minute per address, then every poll from it is 429', async () => {
    const known = gateway.deps.pairing.list()[0]?.id ?? '';
    assert.ok(known !== '');
    const guesser = '127.0.0.5';
    for (let i = 0; i < PAIRING_LIMITS.pollMissesPerAddress; i += 1) {
      const reply = await send(base, guesser, 'GET', `/v1/pair/pair_${randomBytes(24).toString('base64url')}`);
      assert.equal(reply.status, 404, `guess ${i + 1}`);
      counts.misses += 1;
    }
    for (let i = 0; i < 10; i += 1) {
      assertTooMany(
        await send(base, guesser, 'GET', `/v1/pair/pair_${randomBytes(24).toString('base64url')}`),
        `guess ${PAIRING_LIMITS.pollMissesPerAddress + i + 1}`,
      );
      counts.refusedPolls += 1;
    }
    // The right id from the guessing address is refused the same way: a 429 says nothing about the guess.
    assertTooMany(await send(base, guesser, 'GET', `/v1/pair/${known}`), 'the right id from the guessing address');
    counts.refusedPolls += 1;
    // Another address (the device itself) polls its id as before.
    const device = await send(base, '127.0.0.2', 'GET', `/v1/pair/${known}`);
    assert.equal(device.status, 200);
    assert.equal(device.body.state, 'pending');
    await whoamiServed();
  });

  test('addresses are limited by IPv4, by IPv4-mapped IPv6 as IPv4, and by the /64 of IPv6', () => {
    assert.equal(normaliseAddress('192.168.1.9'), '192.168.1.9');
    assert.equal(normaliseAddress('::ffff:192.168.1.9'), '192.168.1.9');
    assert.equal(normaliseAddress('::1'), '::1');
    assert.equal(normaliseAddress('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(normaliseAddress('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
    assert.equal(normaliseAddress('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(normaliseAddress('unknown'), 'unknown');
  });
});
