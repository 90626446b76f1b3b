/**
 * --jobs: checks that touch only their own state run side by side, every
 * other one alone, and the results come back in the run's order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Check } from '../harness/check.ts';
import { Secrets } from '../harness/secrets.ts';
import { testCheck, testEnv } from '../harness/testing.ts';
import { isolationOf, runChecks } from './run.ts';
import type { Session } from './session-types.ts';

function session(): Session {
  return {
    env: testEnv('http://127.0.0.1:9'),
    secrets: new Secrets(),
    capabilities: undefined,
    setupLog: [],
    setCurrent: () => undefined,
    close: async () => undefined,
  };
}

test(
  'own checks overlap (at most N at once); recorder checks overlap own ones but not each ' +
    'other; global ones never overlap anything; order is kept',
  async () => {
    let running = 0;
    let recording = 0;
    let most = 0;
    let recorderBesideOwn = false;
    const log: string[] = [];
    const mk = (id: string, touches: 'own' | 'recorder' | 'global' | undefined): Check =>
      testCheck({
        id,
        ...(touches === undefined ? {} : { touches }),
        async run() {
          running += 1;
          if (touches === 'recorder') recording += 1;
          most = Math.max(most, running);
          log.push(`${id} start ${running}`);
          // Yield a few turns so that side-by-side checks really interleave (no clock involved).
          for (let i = 0; i < 5; i++) {
            await new Promise((r) => setImmediate(r));
            if (touches === 'recorder' && running > recording) recorderBesideOwn = true;
          }
          if (touches === 'global' || touches === undefined) assert.equal(running, 1, `${id} ran beside another check`);
          if (touches === 'recorder') assert.equal(recording, 1, `${id} ran beside another recorder check`);
          if (touches === 'recorder') recording -= 1;
          running -= 1;
        },
      });
    const checks = [
      mk('a/own-1', 'own'),
      mk('b/global', 'global'),
      mk('c/own-2', 'own'),
      mk('d/default', undefined),
      mk('e/own-3', 'own'),
      mk('f/own-4', 'own'),
      mk('g/rec-1', 'recorder'),
      mk('h/rec-2', 'recorder'),
      mk('i/rec-3', 'recorder'),
    ];
    const results = await runChecks(checks, session(), { retry: false, jobs: 3 });
    assert.deepEqual(
      results.map((r) => r.id),
      checks.map((c) => c.id),
    );
    assert.ok(
      results.every((r) => r.outcome === 'PASS'),
      JSON.stringify(results.map((r) => [r.id, r.outcome, r.error?.message])),
    );
    assert.equal(most, 3, log.join('\n'));
    assert.ok(recorderBesideOwn, `a recorder check ran beside own ones\n${log.join('\n')}`);
    assert.equal(isolationOf(checks[3]!), 'global', 'unset means global');
    // Sequential by default.
    most = 0;
    await runChecks(checks, session(), { retry: false });
    assert.equal(most, 1);
  },
);
