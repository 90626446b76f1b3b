import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { skipTable } from '../reporters/skips.ts';
import { missingNeeds } from '../runner/needs.ts';
import { runAttempt } from '../runner/run.ts';
import { openSession } from '../runner/session.ts';
import type { CheckResult } from '../runner/result.ts';
import { NO_INPUT_DEVICE, inputDevice } from './devices.ts';
import type { LocalServer } from './testing.ts';
import { localServer, resultBase, testCheck, testEnv } from './testing.ts';

/** What GET /v1/devices of the stand-in target lists (a test sets it). */
let listed: unknown[] = [];
let server: LocalServer;
before(async () => {
  server = await localServer((req, res) => {
    res.writeHead(req.url === '/v1/devices' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/v1/devices' ? { devices: listed } : { error: { code: 'not_found', message: 'no' } }));
  });
});
after(() => server.close());

async function recordFrom(): Promise<{ outcome: string; device: string | null; skipReason?: string }> {
  const s = await openSession({ baseUrl: server.url, seed: 5, runs: 1, slow: false, fresh: false, requestTimeoutMs: 3000 });
  let device: string | null = null;
  const a = await runAttempt(
    testCheck({
      run: async (ctx) => {
        device = await inputDevice(ctx, ctx.as('mas_test'), { name: 'Conformance Mic', script: null });
      },
    }),
    s,
    false,
  );
  return { outcome: a.outcome, device, ...(a.skipReason === undefined ? {} : { skipReason: a.skipReason }) };
}

test('without the Control API a recording check takes the first input device GET /v1/devices lists', async () => {
  listed = [
    { name: 'Speakers', device_type: 'output' },
    { name: 'USB Microphone', device_type: 'input' },
    { name: 'Headset', device_type: 'input' },
  ];
  assert.deepEqual(await recordFrom(), { outcome: 'PASS', device: 'USB Microphone' });
});

test('a target listing no input device gets the recording check SKIPPED, naming what would unlock it', async () => {
  listed = [{ name: 'Speakers', device_type: 'output' }];
  const r = await recordFrom();
  assert.equal(r.outcome, 'SKIPPED');
  assert.equal(r.skipReason, NO_INPUT_DEVICE);
  assert.match(r.skipReason, /input device.*'devices' capability/);
});

test('a skip names every missing Control API capability, each with what it brings', () => {
  const env = testEnv('http://127.0.0.1:1');
  const webhooks = testCheck({ needs: ['settings', 'restart', 'webhook-approval'], run: async () => undefined });
  assert.match(
    missingNeeds(webhooks, env) ?? '',
    /^needs the Control API capabilities 'settings' \(.+\), 'restart' \(.+\), 'webhook-approval' \(approving webhooks.*no --control-url/,
  );
  // One capability, or another need first: the need's own reason, as before.
  assert.match(
    missingNeeds(testCheck({ needs: ['jobs'], run: async () => undefined }), env) ?? '',
    /^needs the Control API capability 'jobs'/,
  );
  assert.match(missingNeeds(testCheck({ needs: ['slow', 'jobs', 'meetings'], run: async () => undefined }), env) ?? '', /--slow/);
  assert.equal(missingNeeds(testCheck({ needs: [], run: async () => undefined }), env), null);
});

test('the skip table groups the skipped checks by reason, the largest group first', () => {
  const r = (id: string, outcome: CheckResult['outcome'], skipReason?: string): CheckResult => ({
    ...resultBase(),
    id,
    area: id.split('/')[0]!,
    clauses: [],
    description: '',
    requirement: '',
    outcome,
    ...(skipReason === undefined ? {} : { skipReason }),
  });
  const table = skipTable([
    r('sse/slow-caps', 'SKIPPED', 'run with --slow'),
    r('recording/gaps', 'SKIPPED', NO_INPUT_DEVICE),
    r('recording/lifecycle', 'SKIPPED', NO_INPUT_DEVICE),
    r('health/no-auth', 'PASS'),
  ]);
  assert.equal(
    table,
    [
      'Skipped 3 checks, by what would unlock them:',
      `  ${NO_INPUT_DEVICE}`,
      '      2: recording/gaps recording/lifecycle',
      '  run with --slow',
      '      1: sse/slow-caps',
    ].join('\n'),
  );
  assert.equal(skipTable([r('health/no-auth', 'PASS')]), '');
});
