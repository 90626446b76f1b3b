import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineStateMachine, outcomes, tableOf, transition } from './state-machine.ts';

const LAMP = defineStateMachine({
  name: 'lamp',
  states: ['off', 'on', 'broken'],
  events: ['press', 'smash'],
  rows: [
    { from: ['off'], on: 'press', to: 'on' },
    { from: ['on'], on: 'press', to: 'off' },
    { from: ['off', 'on'], on: 'smash', to: 'broken' },
  ],
});

test('transition follows the rows and refuses a pair with none (null)', () => {
  assert.equal(transition(LAMP, 'off', 'press'), 'on');
  assert.equal(transition(LAMP, 'on', 'press'), 'off');
  assert.equal(transition(LAMP, 'on', 'smash'), 'broken');
  assert.equal(transition(LAMP, 'broken', 'press'), null);
  assert.equal(transition(LAMP, 'broken', 'smash'), null);
});

test('outcomes and tableOf enumerate every (state, event) pair', () => {
  assert.equal(outcomes(LAMP).length, 6);
  assert.deepEqual(tableOf(LAMP), {
    off: { press: 'on', smash: 'broken' },
    on: { press: 'off', smash: 'broken' },
    broken: { press: null, smash: null },
  });
});

test('a table with two rows for one pair, or an unknown state or event, is refused when defined', () => {
  const base = { name: 'bad', states: ['a', 'b'], events: ['go'] } as const;
  assert.throws(
    () =>
      defineStateMachine({
        ...base,
        rows: [
          { from: ['a'], on: 'go', to: 'b' },
          { from: ['a'], on: 'go', to: 'a' },
        ],
      }),
    /two rows for a go/,
  );
  assert.throws(() => defineStateMachine({ ...base, rows: [{ from: ['a'], on: 'go', to: 'c' as 'a' }] }), /unknown state c/);
  assert.throws(() => defineStateMachine({ ...base, rows: [{ from: ['c' as 'a'], on: 'go', to: 'b' }] }), /unknown state c/);
  assert.throws(() => defineStateMachine({ ...base, rows: [{ from: ['a'], on: 'jump' as 'go', to: 'b' }] }), /unknown event jump/);
});
