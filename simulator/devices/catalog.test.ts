/**
 * Virtual devices on the real PulseAudio path (a private daemon started by
 * the catalog), and the in-process stand-in. Every process a test starts is
 * checked gone by its pid afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { loadScriptAudio } from './script-audio.ts';
import { VirtualDeviceCatalog } from './catalog.ts';
import { alignCapture } from './fidelity.ts';
import { PcmReader } from '../../common/audio/pcm-reader.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function assertAllGone(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 5000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(pids.filter(alive), [], 'every process the catalog started has exited');
}

/** Records a pulse device's monitor with parec, cueing the device at the first samples. */
async function recordPulse(catalog: VirtualDeviceCatalog, name: string, ms: number): Promise<{ samples: Int16Array; pid: number }> {
  const vd = await catalog.ready(name);
  const child = spawn(
    'parec',
    ['--raw', `--device=${vd.monitorSource}`, '--format=s16le', '--rate=16000', '--channels=1', '--latency-msec=100'],
    {
      env: vd.pulseEnv!,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const reader = new PcmReader();
  const chunks: Int16Array[] = [];
  child.stdout.on('data', (c: Buffer) => {
    if (chunks.length === 0) vd.cue();
    chunks.push(reader.push(c));
  });
  await new Promise((r) => setTimeout(r, ms));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return { samples: out, pid: child.pid! };
}

test('pulse: plug makes a null sink fed by pacat; its monitor gives back the script; unplug removes both', async () => {
  const catalog = new VirtualDeviceCatalog({ backend: 'pulse', pulse: { mode: 'private' } });
  const started: number[] = [];
  try {
    assert.equal(catalog.plug({ name: 'Sim Mic', device_type: 'input', script: 'tiny' }), true);
    assert.equal(catalog.plug({ name: 'Sim Mic', device_type: 'output', script: null }), false, 'one device per name');
    const vd = await catalog.ready('Sim Mic');
    started.push(...catalog.processIds());
    assert.equal(vd.transport, 'pulse');
    assert.match(vd.sink ?? '', /^mas_sim_\d+_sim_mic$/);
    const sinks = spawnSync('pactl', ['list', 'short', 'sinks'], { env: vd.pulseEnv!, encoding: 'utf8' }).stdout;
    assert.match(sinks, new RegExp(`\\t${vd.sink}\\t.*s16le 1ch 16000Hz`));
    assert.deepEqual(
      catalog.list().find((d) => d.name === 'Sim Mic'),
      { name: 'Sim Mic', device_type: 'input', simulated: true, backend: 'simulator' },
    );

    const { samples, pid } = await recordPulse(catalog, 'Sim Mic', 7500);
    started.push(pid);
    const script = (await loadScriptAudio('tiny')).samples;
    const fit = alignCapture(script, samples, 40_000);
    assert.ok(fit.correlation > 0.99, `captured audio matches the script (correlation ${fit.correlation.toFixed(4)})`);
    assert.ok(fit.offsetMs > 500 && fit.offsetMs < 1500, `and arrives one player lead (1 s) after the cue (${fit.offsetMs} ms)`);
    assert.equal(vd.view().playback.finished, true);

    const lost: string[] = [];
    catalog.onLost((name, reason) => lost.push(`${name}: ${reason}`));
    assert.equal(catalog.unplug('Sim Mic'), true);
    assert.deepEqual(lost, ['Sim Mic: the device "Sim Mic" was unplugged']);
    assert.equal(catalog.virtual('Sim Mic'), null);
    await new Promise((r) => setTimeout(r, 300));
    const after = spawnSync('pactl', ['list', 'short', 'sinks'], { env: vd.pulseEnv!, encoding: 'utf8' }).stdout;
    assert.doesNotMatch(after, new RegExp(vd.sink!), 'the sink is gone');
  } finally {
    started.push(...catalog.processIds());
    catalog.dispose();
    await catalog.disposed();
    await assertAllGone(started);
  }
});

test('pulse: fail() breaks a plugged device (listed, failed, player gone); a script that does not exist fails the device', async () => {
  const catalog = new VirtualDeviceCatalog({ backend: 'pulse', pulse: { mode: 'private' } });
  const started: number[] = [];
  try {
    catalog.plug({ name: 'Speakers', device_type: 'output', script: null });
    catalog.plug({ name: 'Odd', device_type: 'input', script: 'no-such-meeting' });
    await catalog.ready('Speakers');
    started.push(...catalog.processIds());
    await assert.rejects(catalog.ready('Odd'), /cannot play the script "no-such-meeting"/);
    const lost: string[] = [];
    catalog.onLost((name) => lost.push(name));
    assert.equal(catalog.fail('Speakers', 'unplugged cable'), true);
    assert.equal(catalog.fail('Nobody'), false);
    assert.deepEqual(lost, ['Speakers']);
    assert.equal(catalog.virtual('Speakers')?.state, 'failed');
    assert.ok(
      catalog.listSimulated().some((d) => d.name === 'Speakers'),
      'a failed device stays plugged in',
    );
    await assert.rejects(catalog.ready('Speakers'), /unplugged cable/);
  } finally {
    started.push(...catalog.processIds());
    catalog.dispose();
    await catalog.disposed();
    await assertAllGone(started);
  }
});

test('in-process: the same timeline delivered in real time by a timer', async () => {
  const catalog = new VirtualDeviceCatalog({ backend: 'in-process' });
  try {
    catalog.plug({ name: 'Sim Mic', device_type: 'input', script: 'tiny' });
    const vd = await catalog.ready('Sim Mic');
    assert.equal(vd.transport, 'in-process');
    assert.deepEqual(catalog.processIds(), []);
    const got: Int16Array[] = [];
    const t0 = performance.now();
    const stream = vd.openInProcess((s) => got.push(s));
    vd.cue();
    await new Promise((r) => setTimeout(r, 1000));
    stream.close();
    const seconds = got.reduce((n, c) => n + c.length, 0) / 16_000;
    const elapsed = (performance.now() - t0) / 1000;
    assert.ok(Math.abs(seconds - elapsed) < 0.1, `${seconds} s delivered in ${elapsed} s`);
  } finally {
    catalog.dispose();
  }
});

test('auto: where PulseAudio cannot start, devices run in-process and say why', async () => {
  const catalog = new VirtualDeviceCatalog({
    backend: 'auto',
    pulse: { mode: 'private', tools: { pulseaudio: '/nonexistent/pulseaudio' } },
  });
  try {
    catalog.plug({ name: 'Sim Mic', device_type: 'input', script: null });
    const vd = await catalog.ready('Sim Mic');
    assert.equal(vd.transport, 'in-process');
    assert.equal(catalog.backendInfo().pulse, 'unavailable');
    assert.match(catalog.backendInfo().reason ?? '', /pulseaudio .*is not installed/);
  } finally {
    catalog.dispose();
  }
});
