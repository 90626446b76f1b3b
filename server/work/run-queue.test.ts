/**
 * The run queue alone, on a lane of plain items: order and concurrency, the
 * stage control (pause at a checkpoint, resume, cancel), endings told to the
 * lane, stop, recovery before anything runs, and the ordered workers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunQueue, type Lane } from './run-queue.ts';
import { Workers } from './workers.ts';
import { StageError } from '../pipeline/types.ts';

interface Item {
  id: string;
  /** The work waits here until the test lets it go on. */
  gate: Promise<void>;
  open: () => void;
}

function item(id: string): Item {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { id, gate, open };
}

function lane(waiting: Item[], log: string[], extra: Partial<Lane<Item, string, string>> = {}): Lane<Item, string, string> {
  return {
    next: () => waiting[0] ?? null,
    key: (i) => i.id,
    begin: (i) => {
      waiting.shift();
      log.push(`begin ${i.id}`);
      return i;
    },
    work: async (i, run) => {
      run.stage('first');
      run.control.progress(0.33333);
      await i.gate;
      await run.control.checkpoint();
      run.stage('second');
      if (i.id.startsWith('bad')) throw new StageError(`${i.id} failed`, { retryable: true });
      return `${i.id} made`;
    },
    stage: (i, s) => log.push(`${i.id} stage ${s}`),
    progress: (i, f) => log.push(`${i.id} progress ${f}`),
    pausedAt: (i) => log.push(`${i.id} paused`),
    succeeded: (i, r) => log.push(`${i.id} succeeded: ${r}`),
    cancelled: (i) => log.push(`${i.id} cancelled`),
    failed: (i, err, s) => log.push(`${i.id} failed at ${s}: ${(err as Error).message}`),
    ...extra,
  };
}

test('one at a time in order; the lane hears stages, rounded progress and each ending', async () => {
  const log: string[] = [];
  const a = item('a');
  const bad = item('bad');
  const waiting = [a, bad];
  const queue = new RunQueue(lane(waiting, log), {});
  queue.kick();
  assert.deepEqual(log, ['begin a'], 'taken at once, run on the next turn; the second waits');
  a.open();
  bad.open();
  await queue.idle();
  assert.deepEqual(log, [
    'begin a',
    'a stage first',
    'a progress 0.333',
    'a stage second',
    'a succeeded: a made',
    'begin bad',
    'bad stage first',
    'bad progress 0.333',
    'bad stage second',
    'bad failed at second: bad failed',
  ]);
});

test('pause stops at the next checkpoint, resume goes on; cancel ends a paused run as cancelled', async () => {
  const log: string[] = [];
  const a = item('a');
  const b = item('b');
  const waiting = [a, b];
  const queue = new RunQueue(lane(waiting, log), {});
  queue.kick();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(queue.pause('a'), 'at-checkpoint', 'no child process: pure code stops at its checkpoint');
  assert.equal(queue.pause('nobody'), 'not-running');
  a.open();
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(log.includes('a paused'));
  assert.ok(!log.some((l) => l.startsWith('a succeeded')));
  assert.equal(queue.resume('a'), true);
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(log.includes('a succeeded: a made'));
  // b: paused at its checkpoint, then cancelled.
  await new Promise((resolve) => setImmediate(resolve));
  queue.pause('b');
  b.open();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(queue.cancel('b'), true);
  await queue.idle();
  assert.deepEqual(log.slice(-2), ['b paused', 'b cancelled']);
  assert.equal(queue.isRunning('b'), false);
});

test('after stop nothing is told and nothing starts; start() recovers before anything runs', async () => {
  const log: string[] = [];
  const a = item('a');
  const waiting = [a, item('b')];
  const queue = new RunQueue(lane(waiting, log, { recover: () => log.push('recover') }), {});
  queue.start();
  await new Promise((resolve) => setImmediate(resolve));
  queue.stop();
  a.open();
  await queue.idle();
  assert.deepEqual(log, ['recover', 'begin a', 'a stage first', 'a progress 0.333'], 'the stopped run writes nothing; b never begins');
  queue.reopen();
  assert.equal(queue.stopped, false);
});

test('a lane that starts on arrival runs its items at once, side by side, and runNow reports their end', async () => {
  const log: string[] = [];
  const queue = new RunQueue(lane([], log, { startOn: 'now', concurrency: Infinity, begin: undefined }), {});
  const a = item('a');
  const bad = item('bad');
  const first = queue.runNow(a);
  const second = queue.runNow(bad);
  assert.deepEqual(log, ['a stage first', 'a progress 0.333', 'bad stage first', 'bad progress 0.333'], 'both began synchronously');
  a.open();
  bad.open();
  assert.equal(await first, 'a made');
  await assert.rejects(second, /bad failed/);
  await queue.idle();
});

test('workers start in their order and stop in the reverse one', () => {
  const log: string[] = [];
  const worker = (name: string) => ({ name, start: () => log.push(`start ${name}`), stop: () => log.push(`stop ${name}`) });
  const workers = new Workers([worker('summaries'), worker('jobs'), worker('recording')]);
  assert.deepEqual(workers.names, ['summaries', 'jobs', 'recording']);
  workers.start();
  workers.stop();
  assert.deepEqual(log, ['start summaries', 'start jobs', 'start recording', 'stop recording', 'stop jobs', 'stop summaries']);
});
