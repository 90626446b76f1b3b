/**
 * Issue 7, part B: the gateway's dependencies fail, and it keeps serving
 * everything else (whoami, the meetings list) throughout. Each case runs the
 * real gateway as a child process with the fault injected from outside:
 *
 * - ffmpeg missing (a PATH without it) or crashing (an `ffmpeg` that kills
 *   itself with SIGSEGV, first on PATH);
 * - the recognizer (pocketsphinx_continuous) missing or crashing, the same way;
 * - the disk full (a small tmpfs as the data folder, filled up);
 * - the capture backend gone (the private PulseAudio daemon killed mid-recording);
 * - the summarizer endpoint never answering (a loopback server that accepts
 *   and stays silent; MAS_SUMMARY_TIMEOUT_MS short).
 *
 * What each case ends in is written down in docs/decisions/024-faults.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientFor, descendants, sleep, startChild, stopChild, until, type ChildGateway, type Loose } from '../testing/child-gateway.ts';
import { checkDataFolder } from '../testing/data-folder-invariants.ts';
import { speechWav } from '../testing/speech-wav.ts';

const ABSOLUTE_PATH = /(^|[\s("'=:])\/(?:[\w.-]+\/)+[\w.-]*/;
const root = mkdtempSync(join(tmpdir(), 'mas-faults-deps-'));
test.after(() => rmSync(root, { recursive: true, force: true }));

/** A bin folder holding links to every program on the usual PATH except `without`, plus `crashing` scripts that die by SIGSEGV. */
function binDir(name: string, opts: { without?: string[]; crashing?: string[] }): string {
  const dir = join(root, name);
  mkdirSync(dir);
  const skip = new Set([...(opts.without ?? []), ...(opts.crashing ?? [])]);
  for (const from of ['/usr/local/bin', '/usr/bin', '/bin']) {
    let names: string[];
    try {
      names = readdirSync(from);
    } catch {
      continue;
    }
    for (const n of names) {
      if (skip.has(n) || existsSync(join(dir, n))) continue;
      symlinkSync(join(from, n), join(dir, n));
    }
  }
  for (const n of opts.crashing ?? []) {
    writeFileSync(join(dir, n), '#!/bin/sh\nkill -SEGV $$\n');
    chmodSync(join(dir, n), 0o755);
  }
  return dir;
}

/** Renders the speech WAV into another container with the system ffmpeg (in the test process, which has it). */
function encode(wav: Uint8Array, args: string[], out: string): Uint8Array {
  const src = join(root, `src-${Math.random().toString(36).slice(2)}.wav`);
  writeFileSync(src, wav);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', src, ...args, out]);
  return new Uint8Array(readFileSync(out));
}

async function importAndSettle(
  gw: ChildGateway,
  bytes: Uint8Array,
  filename: string,
): Promise<{ submit: { status: number; body: Loose }; job: Loose }> {
  const c = clientFor(gw);
  const res = await fetch(`${gw.api}/v1/jobs/import?filename=${filename}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${gw.token}`, 'Content-Type': 'application/octet-stream' },
    body: bytes,
  });
  const submit = { status: res.status, body: (await res.json()) as Loose };
  if (res.status !== 202) return { submit, job: null };
  const job = await until(
    `import ${filename} to end`,
    async () => {
      // Served all along: identity and the meetings list answer while the job works or fails.
      assert.equal((await c.api('GET', '/v1/whoami')).status, 200);
      assert.equal((await c.api('GET', '/v1/meetings')).status, 200);
      const j = (await c.api('GET', `/v1/jobs/${submit.body.job_id}`)).body;
      return ['succeeded', 'failed', 'cancelled'].includes(j.state) ? j : undefined;
    },
    60_000,
    100,
  );
  return { submit, job };
}

function assertRedacted(text: unknown, what: string): void {
  assert.equal(typeof text, 'string', `${what}: a reason is given`);
  assert.doesNotMatch(text as string, ABSOLUTE_PATH, `${what}: no absolute path in "${String(text)}"`);
}

test(
  'ffmpeg missing: 16 kHz and 44.1 kHz WAV (and MP3 with MAS_FAULTS_LONG=1) decode in ' +
    'process; content only ffmpeg reads fails, redacted and retryable',
  async () => {
    const wav = await speechWav();
    const wav44 = encode(wav, ['-ar', '44100'], join(root, 'x44.wav'));
    // MP3 is the one compressed format with a built-in decoder (decision 053); its recognition adds a job: long runs only.
    const mp3 = process.env.MAS_FAULTS_LONG === '1' ? encode(wav, ['-c:a', 'libmp3lame'], join(root, 'x.mp3')) : null;
    const au = encode(wav, ['-f', 'au'], join(root, 'x.au')); // Sun audio: no built-in decoder reads it
    const data = mkdtempSync(join(root, 'data-'));
    const gw = await startChild({ dataDir: data, env: { PATH: binDir('bin-no-ffmpeg', { without: ['ffmpeg', 'ffprobe'] }) } });
    try {
      const inputs: [Uint8Array, string][] = [
        [wav, 'a.wav'],
        [wav44, 'b.wav'],
      ];
      if (mp3 !== null) inputs.push([mp3, 'c.mp3']);
      for (const [bytes, name] of inputs) {
        const { submit, job } = await importAndSettle(gw, bytes, name);
        assert.equal(submit.status, 202);
        assert.equal(job.state, 'succeeded', `${name} without ffmpeg: ${job.error}`);
      }
      const { job } = await importAndSettle(gw, au, 'd.wav');
      assert.equal(job.state, 'failed');
      assertRedacted(job.error, 'ffmpeg missing');
      assert.match(job.error, /ffmpeg is not installed/);
      assert.equal(job.is_retryable, true, 'installing ffmpeg makes a retry work');
      console.log(`[faults] ffmpeg missing: AU content → failed, "${job.error}"`);
      assert.deepEqual(checkDataFolder(data, { settled: false }).problems, []);
    } finally {
      await stopChild(gw);
    }
  },
);

test('ffmpeg crashing (SIGSEGV): the import fails with a redacted, retryable reason; the API serves throughout', async () => {
  const wav = await speechWav();
  const wav44 = encode(wav, ['-ar', '44100'], join(root, 'y44.wav'));
  const data = mkdtempSync(join(root, 'data-'));
  const bin = binDir('bin-crash-ffmpeg', { crashing: ['ffmpeg', 'ffprobe'] });
  const gw = await startChild({ dataDir: data, env: { PATH: bin } });
  try {
    // 16 kHz WAV is read in process first: ffmpeg is not needed.
    assert.equal((await importAndSettle(gw, wav, 'a.wav')).job.state, 'succeeded');
    const { job } = await importAndSettle(gw, wav44, 'b.wav');
    assert.equal(job.state, 'failed', 'a crashing ffmpeg is not "missing": no silent fallback hides it');
    assertRedacted(job.error, 'ffmpeg crash');
    assert.match(job.error, /SIGSEGV/);
    assert.equal(job.is_retryable, true);
    console.log(`[faults] ffmpeg crashing: 44.1 kHz WAV → failed, "${job.error}"`);
    assert.deepEqual(checkDataFolder(data, { settled: false }).problems, []);
  } finally {
    await stopChild(gw);
  }
});

test('the recognizer missing or crashing: the import is accepted, then fails with a redacted, retryable reason', async () => {
  const wav = await speechWav();
  for (const variant of ['missing', 'crashing'] as const) {
    const data = mkdtempSync(join(root, 'data-'));
    const bin = binDir(
      `bin-asr-${variant}`,
      variant === 'missing' ? { without: ['pocketsphinx_continuous'] } : { crashing: ['pocketsphinx_continuous'] },
    );
    const gw = await startChild({ dataDir: data, env: { PATH: bin } });
    try {
      const { submit, job } = await importAndSettle(gw, wav, 'a.wav');
      assert.equal(submit.status, 202, `recognizer ${variant}: the upload is accepted`);
      assert.equal(job.state, 'failed');
      assertRedacted(job.error, `recognizer ${variant}`);
      assert.equal(job.is_retryable, true);
      console.log(`[faults] recognizer ${variant}: failed, "${job.error}"`);
      assert.deepEqual(checkDataFolder(data, { settled: false }).problems, []);
    } finally {
      await stopChild(gw);
    }
  }
});

test(
  'the disk full: import, rename and webhook registration answer 503 service_unavailable, ' +
    'nothing half-written, reads served; writes work again once space is freed',
  async (t) => {
    const data = mkdtempSync(join(root, 'tmpfs-'));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', data], { encoding: 'utf8' });
    if (mounted.status !== 0) {
      t.skip(`cannot mount a tmpfs (needs root): ${mounted.stderr.trim()}`);
      return;
    }
    let gw: ChildGateway | null = null;
    try {
      const wav = await speechWav();
      gw = await startChild({ dataDir: data });
      const c = clientFor(gw);
      const seeded = await c.control('POST', '/control/meetings', {
        title: 'before',
        segments: [{ speaker: 'S1', start: 0, end: 1, text: 'hello' }],
      });
      assert.equal(seeded.status, 201);
      // A loopback target on the allowlist (read at startup, hence the restart); nothing needs to listen there.
      assert.equal(
        (await c.control('PATCH', '/control/settings', { webhooks_enabled: true, local_webhook_targets: ['127.0.0.1:9'] })).status,
        200,
      );
      assert.equal((await c.control('POST', '/control/restart')).status, 204);
      // Fill the file system to the last block.
      const filler = join(data, 'filler');
      spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { encoding: 'utf8' });
      spawnSync('sync');

      const imp = await importAndSettle(gw, wav, 'full.wav');
      const rename = await c.api('PATCH', `/v1/meetings/${seeded.body.id}`, { title: 'renamed while full' });
      const hook = await c.api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['job.completed'] });
      console.log(
        `[faults] disk full: import ${imp.submit.status} ${JSON.stringify(imp.submit.body)}; rename ${rename.status} ${JSON.stringify(rename.body)}; webhook ${hook.status} ${JSON.stringify(hook.body)}`,
      );
      for (const [what, r] of [
        ['import', imp.submit],
        ['rename', rename],
        ['webhook registration', hook],
      ] as const) {
        assert.equal(r.status, 503, `${what} while the disk is full`);
        assert.equal(r.body.error.code, 'service_unavailable');
        assertRedacted(r.body.error.message, what);
      }
      // Reads still served, nothing half-written.
      assert.equal((await c.api('GET', '/v1/whoami')).status, 200);
      const list = await c.api('GET', '/v1/meetings');
      assert.equal(list.status, 200);
      assert.equal(list.body.total, 1);
      assert.equal((await c.api('GET', `/v1/meetings/${seeded.body.id}`)).body.title, 'before');
      assert.deepEqual(readdirSync(join(data, 'uploads')), [], 'no partial upload stays');

      rmSync(filler);
      const again = await importAndSettle(gw, wav, 'after.wav');
      assert.equal(again.submit.status, 202);
      assert.equal(again.job.state, 'succeeded', String(again.job.error));
      assert.equal((await c.api('PATCH', `/v1/meetings/${seeded.body.id}`, { title: 'renamed after' })).status, 200);
      assert.equal((await c.api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['job.completed'] })).status, 201);
      assert.deepEqual(checkDataFolder(data, { settled: false }).problems, []);
    } finally {
      if (gw !== null) await stopChild(gw);
      spawnSync('umount', [data]);
    }
  },
);

test(
  'the capture backend gone: killing the PulseAudio daemon mid-recording ends the recording ' +
    'with last_error, as a meeting; the API stays up',
  async () => {
    const data = mkdtempSync(join(root, 'data-'));
    const gw = await startChild({ dataDir: data, env: { MAS_VIRTUAL_DEVICES: 'pulse' } });
    try {
      const c = clientFor(gw);
      assert.equal((await c.control('POST', '/control/devices', { name: 'Fault Mic', device_type: 'input', script: 'tiny' })).status, 201);
      await until(
        'the device',
        async () => ((await c.control('GET', '/control/devices')).body.devices as Loose[]).find((d) => d.name === 'Fault Mic'),
        30_000,
      );
      assert.equal((await c.api('POST', '/v1/recording/start', { mic_device_name: 'Fault Mic' })).status, 202);
      await until('recording', async () => ((await c.api('GET', '/v1/recording')).body.state === 'recording' ? true : undefined), 20_000);
      await sleep(800);
      const daemon = descendants(gw.pid).find((p) => p.comm === 'pulseaudio');
      assert.ok(daemon !== undefined, 'the gateway runs a private PulseAudio daemon');
      process.kill(daemon.pid, 'SIGKILL');
      const ended = await until(
        'the recording to end',
        async () => {
          assert.equal((await c.api('GET', '/v1/whoami')).status, 200);
          const r = (await c.api('GET', '/v1/recording')).body;
          return r.state === 'idle' ? r : undefined;
        },
        20_000,
      );
      console.log(
        `[faults] capture backend gone: last_error "${ended.last_error}", meeting ${ended.last_meeting_id}, captured ${ended.captured_seconds} s`,
      );
      assertRedacted(ended.last_error, 'recording last_error');
      assert.ok(ended.last_meeting_id !== null, 'the audio captured so far became a meeting');
      assert.equal((await c.api('GET', `/v1/meetings/${ended.last_meeting_id}`)).status, 200);
      assert.equal((await c.api('GET', '/v1/meetings')).status, 200);
    } finally {
      await stopChild(gw);
    }
  },
);

test(
  'the summarizer endpoint never answers: the regeneration ends failed within ' +
    'MAS_SUMMARY_TIMEOUT_MS, redacted; the API serves meanwhile',
  async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((s) => {
      sockets.add(s); // accepted, read, never answered
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const data = mkdtempSync(join(root, 'data-'));
    const gw = await startChild({ dataDir: data, env: { MAS_SUMMARY_URL: `http://127.0.0.1:${port}`, MAS_SUMMARY_TIMEOUT_MS: '1500' } });
    try {
      const c = clientFor(gw);
      const m = await c.control('POST', '/control/meetings', {
        title: 'talk',
        segments: [{ speaker: 'S1', start: 0, end: 2, text: 'we agreed to ship on friday' }],
      });
      const regen = await c.api('POST', `/v1/meetings/${m.body.id}/summary/regenerate`, { model: 'openai-compatible' });
      assert.equal(regen.status, 202, JSON.stringify(regen.body));
      const t0 = Date.now();
      const op = await until(
        'the operation to end',
        async () => {
          assert.equal((await c.api('GET', '/v1/whoami')).status, 200);
          assert.equal((await c.api('GET', '/v1/meetings')).status, 200);
          const o = (await c.api('GET', `/v1/meetings/${m.body.id}/summary/operations/${regen.body.operation_id}`)).body;
          return o.state === 'succeeded' || o.state === 'failed' ? o : undefined;
        },
        30_000,
        100,
      );
      console.log(`[faults] summarizer silent: ${op.state} after ${Date.now() - t0} ms, "${op.error}"; ${sockets.size} connection(s) held`);
      assert.equal(op.state, 'failed');
      assertRedacted(op.error, 'summary operation');
      assert.match(String(op.error), /did not answer within/);
      const summary = await c.api('GET', `/v1/meetings/${m.body.id}/summary`);
      assert.equal(summary.status, 200);
      assert.equal(summary.body.regeneration_failed, true);
    } finally {
      await stopChild(gw);
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  },
);
