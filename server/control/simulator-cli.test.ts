/**
 * `simulator/cli.ts devices …` against a gateway's Control API: the same
 * routes (and the same VirtualDeviceCatalog) the conformance suite uses. It
 * sits here, not beside the simulator's CLI, because it starts a gateway, and
 * simulator/ imports nothing of server/ (.dependency-cruiser.js).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../simulator/cli.ts';
import { CONTROL_SECRET, recordingHarness } from '../testing/recording-harness.ts';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log;
  const error = console.error;
  console.log = (...a: unknown[]) => out.push(a.join(' '));
  console.error = (...a: unknown[]) => err.push(a.join(' '));
  try {
    const code = await main(args);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    console.log = log;
    console.error = error;
  }
}

test('devices plug, list, fail, unplug through the Control API; bad command lines exit 2', async () => {
  const h = await recordingHarness({ backend: 'in-process', pocketsphinxRoots: [] });
  try {
    const conn = [`--control-url=${h.control}`, `--secret=${CONTROL_SECRET}`];
    assert.deepEqual(await run(['devices', 'list', ...conn]), { code: 0, out: 'no simulated devices plugged in', err: '' });
    const plugged = await run(['devices', 'plug', 'Desk Mic', '--type', 'input', '--script', 'tiny', ...conn]);
    assert.equal(plugged.code, 0, plugged.err);
    assert.equal(plugged.out, 'plugged in input "Desk Mic" playing tiny');
    assert.equal((await run(['devices', 'plug', 'Speakers', '--type', 'output', '--script', 'none', ...conn])).code, 0);
    await h.devices.ready('Desk Mic');
    const listed = await run(['devices', 'list', ...conn]);
    assert.equal(listed.code, 0);
    assert.match(listed.out, /^name +type +script +transport +state +playback$/m);
    assert.match(listed.out, /^Desk Mic +input +tiny +in-process +ready +not cued$/m);
    assert.match(listed.out, /^Speakers +output +silence /m);

    const failed = await run(['devices', 'fail', 'Speakers', '--error', 'cable pulled', ...conn]);
    assert.deepEqual(failed, { code: 0, out: '"Speakers" failed: cable pulled', err: '' });
    assert.equal(h.devices.virtual('Speakers')?.state, 'failed');
    assert.equal((await run(['devices', 'unplug', 'Speakers', ...conn])).code, 0);
    assert.equal(h.devices.virtual('Speakers'), null);

    const again = await run(['devices', 'plug', 'Desk Mic', '--type', 'input', ...conn]);
    assert.equal(again.code, 1);
    assert.match(again.err, /409 conflict/);
    assert.equal((await run(['devices', 'unplug', 'Nobody', ...conn])).code, 1);
    for (const bad of [
      ['devices'],
      ['devices', 'shout'],
      ['devices', 'plug', 'X', ...conn],
      ['devices', 'plug', '--type', 'input', ...conn],
      ['devices', 'unplug', 'X', '--error', 'e', ...conn],
    ]) {
      assert.equal((await run(bad)).code, 2, bad.join(' '));
    }
    const wrongSecret = await run(['devices', 'list', `--control-url=${h.control}`, '--secret', 'nope-nope-nope-nope']);
    assert.equal(wrongSecret.code, 1);
    assert.match(wrongSecret.err, /401 unauthorized/);
  } finally {
    await h.close();
  }
});

test('devices meeting-app, meeting-apps, hang-up through the Control API; bad command lines exit 2', async () => {
  const h = await recordingHarness({ backend: 'in-process', pocketsphinxRoots: [] });
  try {
    const conn = [`--control-url=${h.control}`, `--secret=${CONTROL_SECRET}`];
    assert.deepEqual(await run(['devices', 'meeting-apps', ...conn]), { code: 0, out: 'no meeting apps started', err: '' });
    assert.equal((await run(['devices', 'plug', 'Desk Mic', '--type', 'input', '--script', 'tiny', ...conn])).code, 0);
    await h.devices.ready('Desk Mic');
    // An in-process device has no sound server for an app to capture from (the PulseAudio path: features/detection/detection-e2e*).
    const app = await run(['devices', 'meeting-app', 'Desk Mic', '--app-name=Microsoft Teams', '--binary=teams', '--seconds=5', ...conn]);
    assert.equal(app.code, 1);
    assert.match(app.err, /409 conflict: .*needs a sound server/);
    assert.equal((await run(['devices', 'hang-up', 'app_nobody', ...conn])).code, 1);
    for (const bad of [
      ['devices', 'meeting-app', 'Desk Mic', '--binary=teams', '--seconds=5', ...conn],
      ['devices', 'meeting-app', 'Desk Mic', '--app-name=zoom', '--binary=zoom', '--seconds=soon', ...conn],
      ['devices', 'meeting-app', 'Desk Mic', '--app-name=zoom', '--binary=zoom', '--seconds=9', '--drop-after=2', ...conn],
      ['devices', 'meeting-app', '--app-name=zoom', '--binary=zoom', '--seconds=9', ...conn],
      ['devices', 'meeting-apps', 'extra', ...conn],
      ['devices', 'hang-up', ...conn],
    ]) {
      assert.equal((await run(bad)).code, 2, bad.join(' '));
    }
  } finally {
    await h.close();
  }
});
