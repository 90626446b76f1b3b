import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableOf } from '../../kernel/state-machine.ts';
import { apiOutcome, RECORDING_MACHINE, RECORDING_STATES, transition, type ApiAction } from './states.ts';

test('the happy path: idle → starting → recording → paused → recording → stopping → idle', () => {
  let s = transition('idle', 'start');
  assert.equal(s, 'starting');
  s = transition(s, 'capture_up');
  assert.equal(s, 'recording');
  s = transition(s, 'pause');
  assert.equal(s, 'paused');
  s = transition(s, 'resume');
  assert.equal(s, 'recording');
  s = transition(s, 'stop');
  assert.equal(s, 'stopping');
  assert.equal(transition(s, 'finalized'), 'idle');
});

test('every end passes through stopping; a failure from any active state too', () => {
  for (const from of ['starting', 'recording', 'paused'] as const) {
    assert.equal(transition(from, 'stop'), 'stopping');
    assert.equal(transition(from, 'fail'), 'stopping');
  }
  assert.equal(transition('idle', 'fail'), null);
  assert.equal(transition('stopping', 'fail'), null);
  assert.equal(transition('idle', 'finalized'), null);
});

test('reset reaches idle from every state', () => {
  for (const s of RECORDING_STATES) assert.equal(transition(s, 'reset'), 'idle');
});

test('the table, pair by pair (null: the state does not move)', () => {
  const _ = null;
  assert.deepEqual(tableOf(RECORDING_MACHINE), {
    idle: { start: 'starting', capture_up: _, pause: _, resume: _, stop: _, fail: _, finalized: _, reset: 'idle' },
    starting: { start: _, capture_up: 'recording', pause: _, resume: _, stop: 'stopping', fail: 'stopping', finalized: _, reset: 'idle' },
    recording: { start: _, capture_up: _, pause: 'paused', resume: _, stop: 'stopping', fail: 'stopping', finalized: _, reset: 'idle' },
    paused: { start: _, capture_up: _, pause: _, resume: 'recording', stop: 'stopping', fail: 'stopping', finalized: _, reset: 'idle' },
    stopping: { start: _, capture_up: _, pause: _, resume: _, stop: _, fail: _, finalized: 'idle', reset: 'idle' },
  });
});

test(
  'API outcomes: start only from idle (else recording_in_progress); stop/pause/resume need an ' +
    'active recording (else recording_active)',
  () => {
    const table: Record<ApiAction, Record<string, string>> = {
      start: {
        idle: 'move',
        starting: 'recording_in_progress',
        recording: 'recording_in_progress',
        paused: 'recording_in_progress',
        stopping: 'recording_in_progress',
      },
      stop: { idle: 'recording_active', starting: 'move', recording: 'move', paused: 'move', stopping: 'same' },
      pause: { idle: 'recording_active', starting: 'recording_active', recording: 'move', paused: 'same', stopping: 'recording_active' },
      resume: { idle: 'recording_active', starting: 'recording_active', recording: 'same', paused: 'move', stopping: 'recording_active' },
    };
    for (const [action, row] of Object.entries(table) as [ApiAction, Record<string, string>][]) {
      for (const state of RECORDING_STATES) {
        const o = apiOutcome(state, action);
        const got = o.kind === 'refuse' ? o.code : o.kind;
        assert.equal(got, row[state], `${action} in ${state}`);
        if (o.kind === 'refuse') assert.ok(o.message.length > 10);
      }
    }
  },
);
