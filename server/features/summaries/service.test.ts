import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableOf } from '../../kernel/state-machine.ts';
import { ACTIVE_OPERATION_STATES, isOperationEnded, OPERATION_MACHINE } from './service.ts';

test('the summary operation table, pair by pair (null: the operation does not move)', () => {
  const ended = { start: null, succeed: null, fail: null, interrupt: null };
  assert.deepEqual(tableOf(OPERATION_MACHINE), {
    queued: { start: 'running', succeed: null, fail: 'failed', interrupt: 'failed' },
    running: { start: null, succeed: 'succeeded', fail: 'failed', interrupt: 'failed' },
    succeeded: ended,
    failed: ended,
  });
});

test('queued and running keep the meeting busy; succeeded and failed are ended', () => {
  assert.deepEqual(ACTIVE_OPERATION_STATES, ['queued', 'running']);
  assert.equal(isOperationEnded('succeeded'), true);
  assert.equal(isOperationEnded('failed'), true);
  assert.equal(isOperationEnded('running'), false);
});
