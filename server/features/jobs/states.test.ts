import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableOf } from '../../kernel/state-machine.ts';
import { isTerminal, JOB_MACHINE, JOB_STATES, transition } from './states.ts';

test('the job table, pair by pair (null: refused, 409 at the API)', () => {
  const _ = null;
  const ended = {
    start: _,
    succeed: _,
    fail: _,
    cancel: _,
    cancelled: _,
    pause: _,
    paused: _,
    resume: _,
    resumed: _,
    retry: _,
    interrupt: _,
  };
  assert.deepEqual(tableOf(JOB_MACHINE), {
    queued: { ...ended, start: 'running', cancel: 'cancelled' },
    running: { ...ended, succeed: 'succeeded', fail: 'failed', cancel: 'cancelling', pause: 'pausing', interrupt: 'failed' },
    succeeded: ended,
    failed: { ...ended, retry: 'queued' },
    cancelled: ended,
    pausing: { ...ended, succeed: 'succeeded', fail: 'failed', cancel: 'cancelling', paused: 'paused', interrupt: 'failed' },
    paused: { ...ended, fail: 'failed', cancel: 'cancelled', resume: 'resuming', interrupt: 'failed' },
    resuming: { ...ended, succeed: 'succeeded', fail: 'failed', cancel: 'cancelling', resumed: 'running', interrupt: 'failed' },
    cancelling: { ...ended, cancelled: 'cancelled', interrupt: 'failed' },
  });
});

test('transition() is the table; only the terminal states are terminal', () => {
  assert.equal(transition('queued', 'start'), 'running');
  assert.equal(transition('succeeded', 'retry'), null);
  assert.deepEqual(JOB_STATES.filter(isTerminal), ['succeeded', 'failed', 'cancelled']);
});
