import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { pollRecording } from './recording.ts';
import { runAttempt } from '../runner/run.ts';
import { openSession } from '../runner/session.ts';
import * as x from './expect.ts';
import { pollJob } from './jobs.ts';
import type { Poll } from './polling.ts';
import { describeSeen, settleOf, skipWhenStillPending, stillPendingReason } from './polling.ts';
import { SkipSignal } from './signals.ts';
import type { LocalServer } from './testing.ts';
import { localServer, testCheck } from './testing.ts';

const poll = (state: unknown, status = 200, seen: unknown[] = [state]): Poll => ({
  state,
  status,
  seen,
  want: ['recording'],
  pending: ['starting'],
  budgetMs: 10_000,
});

test('settleOf: reached, still on the way when the budget ran out, a wrong state, no answer', () => {
  assert.equal(settleOf(poll('recording'), ['recording'], ['starting']), 'reached');
  assert.equal(settleOf(poll('starting'), ['recording'], ['starting']), 'pending');
  // Going idle after a start, a state outside the enumerated set, a missing state: graded by the check.
  assert.equal(settleOf(poll('idle'), ['recording'], ['starting']), 'wrong');
  assert.equal(settleOf(poll('capturing'), ['recording'], ['starting']), 'wrong');
  assert.equal(settleOf(poll(undefined), ['recording'], ['starting']), 'wrong');
  // An error answer is never "still on the way", even when its body names such a state.
  assert.equal(settleOf(poll('starting', 500), ['recording'], ['starting']), 'wrong');
  assert.equal(settleOf(poll(undefined, 0), ['recording'], ['starting']), 'no-answer');
});

test('the reason names the budget, the state it ran out in, the wanted state and every state seen', () => {
  const reason = stillPendingReason('the recording', poll('starting', 200, ['idle', 'starting']));
  assert.match(reason, /10 s/);
  assert.match(reason, /still starting, not yet recording/);
  assert.match(reason, /states seen idle → starting/);
  assert.equal(describeSeen([]), '(none)');
  assert.equal(describeSeen([null, 'idle']), 'null → idle');
});

test('skipWhenStillPending skips only a poll still on the way', () => {
  const ctx = {
    skip(reason: string): never {
      throw new SkipSignal(reason);
    },
  };
  assert.throws(() => skipWhenStillPending(ctx, 'the recording', poll('starting')), SkipSignal);
  for (const p of [poll('recording'), poll('idle'), poll('paused'), poll(undefined, 0)])
    assert.doesNotThrow(() => skipWhenStillPending(ctx, 'the recording', p));
});

// A target whose recording stays starting and whose job stays cancelling: the pollers report it as pending.
let server: LocalServer;
before(async () => {
  server = await localServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (path === '/v1/recording') res.end(JSON.stringify({ state: 'starting' }));
    else if (path === '/v1/jobs/j1') res.end(JSON.stringify({ id: 'j1', state: 'cancelling' }));
    else res.end(JSON.stringify({ n: 1 }));
  });
});
after(() => server.close());

async function session() {
  return openSession({ baseUrl: server.url, seed: 5, runs: 10, slow: false, fresh: false, requestTimeoutMs: 3000 });
}

test('pollRecording and pollJob: a budget of 0 ends after one read, still on the way', async () => {
  const s = await session();
  const got: { recording?: Poll; job?: Poll } = {};
  await runAttempt(
    testCheck({
      async run(ctx) {
        got.recording = await pollRecording(ctx.as('t'), ['recording'], 0);
        const job = await pollJob(ctx.as('t'), 'j1', (j) => j.state === 'cancelled', 0);
        got.job = { ...job, want: ['cancelled'], pending: ['cancelling'] };
      },
    }),
    s,
    false,
  );
  const { recording, job } = got;
  assert.ok(recording !== undefined && job !== undefined);
  assert.deepEqual(recording.pending, ['starting']);
  assert.equal(settleOf(recording, recording.want, recording.pending), 'pending');
  assert.deepEqual(job.seen, ['cancelling']);
  assert.equal(settleOf(job, job.want, job.pending), 'pending');
});

test('a skip inside a property (or a model run) ends the check SKIPPED, not ERROR; a failure found before it stays a FAIL', async () => {
  const s = await session();
  let runs = 0;
  const skipped = await runAttempt(
    testCheck({
      async run(ctx) {
        await ctx.property('budget', fc.integer({ min: 0, max: 9 }), async () => {
          runs += 1;
          await ctx.api.get('/anything');
          ctx.skip('the budget ran out while still starting');
        });
      },
    }),
    s,
    false,
  );
  assert.equal(skipped.outcome, 'SKIPPED');
  assert.match(skipped.skipReason ?? '', /still starting/);
  assert.equal(runs, 1, 'the runs after the skip do nothing');

  let calls = 0;
  const failed = await runAttempt(
    testCheck({
      async run(ctx) {
        await ctx.property('budget', fc.integer({ min: 0, max: 9 }), async () => {
          calls += 1;
          const res = await ctx.api.get('/anything');
          if (calls === 1) ctx.expect('meetings.rename.applies', 'a wrong answer first', x.status(res, 201), res);
          ctx.skip('then a budget ran out');
        });
      },
    }),
    await session(),
    false,
  );
  assert.equal(failed.outcome, 'FAIL');
});
