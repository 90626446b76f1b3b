/**
 * `mas` against the real reference gateway (its own process, loopback, free
 * ports; client/test-support.ts): every command at least once, the exit code
 * classes, --json output equal to the API's own JSON, the progress display on
 * a pseudo-terminal (util-linux `script`) and its absence in a pipe, and
 * Ctrl+C during an upload.
 *
 * Help and usage errors run main() in process (no gateway needed); everything
 * else runs the bin as a child process, as a person or a script would.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildProgram, main, type Io } from './program.ts';
import { ROOT, healthy, httpJson, startStage, type Stage } from '../client/test-support.ts';
import { freePort } from '../conformance/reference.ts';

const MAS = path.join(ROOT, 'cli', 'mas.ts');

let stage: Stage;
let token: string;
let env: NodeJS.ProcessEnv;
/** Every command path run against the gateway, to prove each was exercised. */
const exercised = new Set<string>();

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function commandPaths(cmd: Command, prefix: string[] = []): string[] {
  return cmd.commands.flatMap((c) => {
    const p = [...prefix, c.name()];
    return c.commands.length > 0 ? commandPaths(c, p) : [p.join(' ')];
  });
}
const ALL_PATHS = commandPaths(buildProgram(fakeIo().io));

function note(args: readonly string[]): void {
  const words = args.filter((a) => !a.startsWith('-'));
  for (const p of ALL_PATHS) if (p.split(' ').every((w, i) => words[i] === w)) exercised.add(p);
}

function mas(args: readonly string[], opts: { input?: string | Buffer; env?: NodeJS.ProcessEnv } = {}): Ran {
  note(args);
  const r = spawnSync(process.execPath, [MAS, ...args], {
    env: opts.env ?? env,
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ok(args: readonly string[], opts: { input?: string | Buffer; env?: NodeJS.ProcessEnv } = {}): Ran {
  const r = mas(args, opts);
  assert.equal(r.code, 0, `mas ${args.join(' ')}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
  return r;
}

/** `mas --json …` must print exactly what the API answers for the same GET. */
async function sameAsApi(args: readonly string[], route: string): Promise<unknown> {
  const printed = JSON.parse(ok(['--json', ...args]).stdout) as unknown;
  const res = await httpJson('GET', `${stage.ref.baseUrl}${route}`, token);
  assert.equal(res.status, 200, `GET ${route}`);
  assert.deepEqual(printed, res.json, `mas --json ${args.join(' ')} equals GET ${route}`);
  return printed;
}

function fakeIo(): { io: Io; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const io: Io = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: process.stdin,
    env: {},
    signal: new AbortController().signal,
    version: '9.9.9',
  };
  return { io, out: () => out, err: () => err };
}

async function fixtureJob(body: Record<string, unknown>): Promise<string> {
  const r = await stage.control('POST', '/control/jobs', body);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return (r.json as { id: string }).id;
}

async function seedMeeting(title: string): Promise<string> {
  const r = await stage.control('POST', '/control/meetings', {
    title,
    created_at: '2026-11-20T09:00:00Z',
    segments: [
      { speaker: 'S1', start: 0, end: 2.4, text: 'Good morning, the budget for the launch is approved.' },
      { speaker: 'S2', start: 2.6, end: 5, text: 'Then the release ships on Friday after the review.' },
    ],
    summary: { text: 'Budget approved; release on Friday.' },
    audio: true,
  });
  assert.equal(r.status, 201);
  return (r.json as { id: string }).id;
}

before(async () => {
  stage = await startStage();
  token = await stage.token(['read', 'record', 'write', 'delete'], { kind: 'first_party' });
  const config = path.join(stage.tmp, 'xdg');
  mkdirSync(config);
  // A clean environment: this gateway, this token, and a config folder of the test's own.
  env = { PATH: process.env['PATH'], HOME: stage.tmp, XDG_CONFIG_HOME: config, MAS_BASE_URL: stage.ref.baseUrl, MAS_TOKEN: token };
});

after(async () => {
  await stage?.stop();
});

test('--help on every command, --version, and usage errors exit 2 (in process)', async () => {
  const root = fakeIo();
  assert.equal(await main(['--help'], root.io), 0);
  assert.match(root.out(), /Exit codes:\n {2}0 {4}done\n {2}1 {4}the API refused/);
  assert.match(root.out(), /MAS_TOKEN/);
  const v = fakeIo();
  assert.equal(await main(['--version'], v.io), 0);
  assert.equal(v.out(), '9.9.9\n');
  for (const p of ALL_PATHS) {
    const h = fakeIo();
    assert.equal(await main([...p.split(' '), '--help'], h.io), 0, p);
    assert.match(h.out(), new RegExp(`^Usage: mas ${p} `), p);
  }
  for (const bad of [
    ['bogus'],
    ['jobs', 'get'],
    ['meetings', 'export', 'x', '--format', 'pdf'],
    ['search', 'x', '--limit', 'ten'],
    ['recording', 'wait'],
  ]) {
    const u = fakeIo();
    assert.equal(await main(bad, u.io), 2, bad.join(' '));
    assert.match(u.err(), /error: .*\n\(add --help for usage\)/, bad.join(' '));
  }
});

test('system commands; --json equals the API', async () => {
  assert.match(ok(['health']).stdout, /^status: +ok$/m);
  await sameAsApi(['whoami'], '/v1/whoami');
  await sameAsApi(['devices'], '/v1/devices');
  await sameAsApi(['models'], '/v1/models');
  await sameAsApi(['openapi'], '/openapi.json');
  assert.match(ok(['whoami']).stdout, /^scopes: +read,record,write,delete$/m);
  assert.match(ok(['models']).stdout, /^NAME +SIZE_MB/);
});

test('meetings, transcript, speaker labels, search, summary and export', async () => {
  const id = await seedMeeting('Launch review');
  assert.match(ok(['meetings', 'list']).stdout, /Launch review/);
  await sameAsApi(['meetings', 'list', '--limit', '5'], '/v1/meetings?limit=5');
  await sameAsApi(['meetings', 'get', id], `/v1/meetings/${id}`);
  assert.match(ok(['meetings', 'rename', id, 'Launch review (final)']).stdout, /^title: +Launch review \(final\)$/m);
  assert.match(ok(['transcript', id]).stdout, /^\[00:00\] S1: Good morning/m);
  assert.match(ok(['speaker-labels', id, 'S1=Alice', 'S2=Ben']).stdout, /^S1: Alice$/m);
  await sameAsApi(['transcript', id], `/v1/meetings/${id}/transcript`);
  await sameAsApi(['search', 'budget'], '/v1/search?q=budget');
  assert.match(ok(['search', 'budget']).stdout, /Launch review/);

  await sameAsApi(['summary', 'get', id], `/v1/meetings/${id}/summary`);
  assert.match(ok(['summary', 'set', id, 'Written by hand.']).stdout, /Written by hand\./);
  assert.match(ok(['summary', 'set', id], { input: 'From stdin.' }).stdout, /From stdin\./);

  const regen = JSON.parse(ok(['--json', 'summary', 'regenerate', id, '--wait']).stdout) as { operation_id: string; state: string };
  assert.equal(regen.state, 'succeeded');
  await sameAsApi(['summary', 'operation', id, regen.operation_id], `/v1/meetings/${id}/summary/operations/${regen.operation_id}`);
  assert.match(ok(['summary', 'wait', id, regen.operation_id]).stdout, /^state: +succeeded$/m);
  const started = JSON.parse(ok(['--json', 'summary', 'regenerate', id]).stdout) as { operation_id: string };
  assert.ok(started.operation_id.length > 0);
  ok(['summary', 'wait', id, started.operation_id]);

  const md = ok(['meetings', 'export', id, '--format', 'md']).stdout;
  assert.match(md, /Launch review \(final\)/);
  const exported = path.join(stage.tmp, 'launch.md');
  assert.equal(ok(['meetings', 'export', id, `--out=${exported}`]).stdout, `${exported}\n`);
  assert.equal(readFileSync(exported, 'utf8'), md);
  await sameAsApi(['meetings', 'export', id, '--format', 'json'], `/v1/meetings/${id}/export?format=json`);

  const refused = mas(['meetings', 'delete', id]);
  assert.equal(refused.code, 2, 'deleting needs --yes');
  assert.match(refused.stderr, /--yes/);
  assert.match(ok(['meetings', 'delete', id, '--yes']).stdout, new RegExp(`^deleted ${id}`));
  const gone = mas(['meetings', 'get', id]);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, new RegExp(`^mas: HTTP 404 not_found: [^\n]*${id}[^\n]*\n$`));
  const goneJson = mas(['--json', 'meetings', 'get', id]);
  assert.equal((JSON.parse(goneJson.stdout) as { error: { code: string } }).error.code, 'not_found');
});

test('config get and set, from a file and from stdin', async () => {
  const vad = (await sameAsApi(['config', 'get', 'vad'], '/v1/config/vad')) as { config: Record<string, unknown> };
  const file = path.join(stage.tmp, 'vad.json');
  writeFileSync(file, JSON.stringify(vad.config));
  assert.match(ok(['config', 'set', 'vad', file]).stdout, /^section: vad$/m);
  const words = JSON.parse(ok(['--json', 'config', 'get', 'custom-words']).stdout) as { config: Record<string, unknown> };
  assert.deepEqual(
    JSON.parse(ok(['--json', 'config', 'set', 'custom-words'], { input: JSON.stringify(words.config) }).stdout).config,
    words.config,
  );
  const bad = mas(['config', 'set', 'vad'], { input: '{not json' });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^mas: the section is not valid JSON/);
  const unknown = mas(['config', 'get', 'everything']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^mas: HTTP 404 not_found: there is no config section "everything"/);
});

test('jobs import --wait in a pipe: the meeting id alone, no progress; --json is the job as the API answers it', async () => {
  const plain = ok(['jobs', 'import', stage.audio, '--title', 'Tiny', '--wait']);
  assert.equal(plain.stderr, '', 'nothing decorative in a pipe');
  const meetingId = plain.stdout.trim();
  assert.match(meetingId, /^[0-9a-f-]{36}$/);
  assert.match(ok(['meetings', 'get', meetingId]).stdout, /^title: +Tiny$/m);

  const json = ok(['--json', 'jobs', 'import', stage.audio, '--wait']);
  assert.doesNotMatch(json.stdout + json.stderr, /\x1b|\r/);
  const job = JSON.parse(json.stdout) as { id: string; state: string; meeting_id: string };
  assert.equal(job.state, 'succeeded');
  await sameAsApi(['jobs', 'get', job.id], `/v1/jobs/${job.id}`);
  assert.deepEqual(JSON.parse(ok(['--json', 'jobs', 'get', job.id]).stdout), job);
  assert.deepEqual(JSON.parse(ok(['--json', 'jobs', 'wait', job.id]).stdout), job, 'waiting on an ended job answers at once');

  const queued = ok(['jobs', 'import', '-', '--filename', 'call.mp3'], { input: readFileSync(stage.audio) });
  assert.match(queued.stdout, /^job_[0-9a-f-]+\n$/);
  ok(['jobs', 'wait', queued.stdout.trim()]);
  await sameAsApi(['jobs', 'list'], '/v1/jobs');
});

test('jobs pause/resume/cancel/retry/wait/diarization; sub-codes on one line; exit 1 and 4', async () => {
  const held = { id: await fixtureJob({ kind: 'import', state: 'running', hold: true }) };
  const paused = mas(['jobs', 'pause', held.id]);
  assert.equal(paused.code, 1);
  assert.match(paused.stderr, /^mas: HTTP 409 conflict\/import_not_pausable: .+\n$/);
  const pausedJson = mas(['--json', 'jobs', 'pause', held.id]);
  assert.equal((JSON.parse(pausedJson.stdout) as { error: { code: string } }).error.code, 'import_not_pausable');
  const waited = mas(['jobs', 'wait', held.id, '--timeout', '0']);
  assert.equal(waited.code, 4);
  assert.match(waited.stderr, /gave up waiting/);
  assert.match(ok(['jobs', 'cancel', held.id]).stdout, /^state: +cancel/m);
  assert.equal(mas(['jobs', 'wait', held.id]).code, 1, 'a cancelled job ends the wait with exit 1');

  const meetingId = await seedMeeting('Diarize me');
  const pausedJob = { id: await fixtureJob({ kind: 'diarization', meeting_id: meetingId, state: 'paused' }) };
  assert.match(ok(['jobs', 'resume', pausedJob.id]).stdout, /^state: +(resuming|running|queued)/m);
  ok(['jobs', 'cancel', pausedJob.id]);

  const failed = {
    id: await fixtureJob({
      kind: 'retranscription',
      meeting_id: meetingId,
      state: 'failed',
      is_retryable: true,
      error: 'decoder failed on /home/alice/x.wav',
    }),
  };
  assert.match(ok(['jobs', 'retry', failed.id]).stdout, /^state: +(queued|running|succeeded|failed)/m);
  // The seeded recording is a generated tone, so whether the rerun finds speech is the recognizer's call:
  // either way the exit code follows the end state (0 succeeded, 1 failed).
  const rerun = mas(['--json', 'jobs', 'wait', failed.id]);
  const rerunJob = JSON.parse(rerun.stdout) as { state: string };
  assert.equal(rerun.code, rerunJob.state === 'succeeded' ? 0 : 1, rerun.stdout);

  const dia = mas(['--json', 'jobs', 'diarization', meetingId, '--speakers', '2', '--wait']);
  const diaJob = JSON.parse(dia.stdout) as { kind: string; state: string };
  assert.equal(diaJob.kind, 'diarization');
  assert.equal(dia.code, diaJob.state === 'succeeded' ? 0 : 1, dia.stdout + dia.stderr);
  assert.match(ok(['jobs', 'diarization', meetingId]).stdout, /^job_/);
  assert.match(ok(['jobs', 'list']).stdout, /^ID +KIND +STATE +STAGE +PROGRESS/);
});

test('recording start/pause/resume/stop with --wait, status and wait', async () => {
  const devices = (JSON.parse(ok(['--json', 'devices']).stdout) as { devices: { device_type: string }[] }).devices;
  if (!devices.some((d) => d.device_type === 'input')) {
    // No microphone and nothing plugged in: the service lacks a dependency, a 5xx, so exit 3.
    const none = mas(['recording', 'start']);
    assert.equal(none.code, 3, none.stderr);
    assert.match(none.stderr, /^mas: HTTP 503 service_unavailable: no capture device/);
  }
  assert.equal((await stage.control('POST', '/control/devices', { name: 'Test Mic', device_type: 'input' })).status, 201);
  await sameAsApi(['recording', 'status'], '/v1/recording');
  assert.match(ok(['recording', 'start', '--name', 'Standup', '--mic', 'Test Mic', '--wait']).stdout, /^state: +recording$/m);
  const again = mas(['recording', 'start']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /^mas: HTTP 409 conflict\/recording_in_progress: /);
  assert.match(ok(['recording', 'wait', '--until', 'started']).stdout, /^state: +recording$/m);
  assert.match(ok(['recording', 'pause']).stdout, /^state: +paused$/m);
  assert.match(ok(['recording', 'resume']).stdout, /^state: +recording$/m);
  assert.match(ok(['recording', 'stop', '--wait']).stdout, /^state: +idle$/m);
  assert.equal(JSON.parse(ok(['--json', 'recording', 'wait', '--until', 'stopped']).stdout).state, 'idle');
});

test('webhooks create/list/get/test/deliveries/delete', async () => {
  const port = await freePort();
  await stage.control('PATCH', '/control/settings', { webhooks_enabled: true, local_webhook_targets: [`127.0.0.1:${port}`] });
  await stage.control('POST', '/control/restart');
  await healthy(stage.ref.baseUrl);
  const created = JSON.parse(
    ok(['--json', 'webhooks', 'create', `http://127.0.0.1:${port}/hook`, '--events', 'job.completed,summary.completed']).stdout,
  ) as { id: string; hmac_secret: string };
  assert.ok(created.hmac_secret.length > 0);
  assert.match(
    ok(['webhooks', 'list']).stdout,
    new RegExp(`^${created.id} +http://127.0.0.1:${port}/hook +job.completed,summary.completed +at-least-once +pending`, 'm'),
  );
  await sameAsApi(['webhooks', 'get', created.id], `/v1/webhooks/${created.id}`);
  assert.match(ok(['webhooks', 'test', created.id]).stdout, /^approval_state: +pending$/m);
  await sameAsApi(['webhooks', 'deliveries', created.id], `/v1/webhooks/${created.id}/deliveries`);
  await sameAsApi(['webhooks', 'list', '--all'], '/v1/webhooks?all=true');
  const bad = mas(['webhooks', 'create', 'http://127.0.0.1:1/x', '--events', 'meeting.created']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^mas: HTTP 400 bad_request: /);
  assert.equal(ok(['webhooks', 'delete', created.id]).stdout, `deleted ${created.id}\n`);
});

test('pair request and status without a token; the token shows once after approval', async () => {
  const noToken = { ...env, MAS_TOKEN: '' };
  const req = JSON.parse(ok(['--json', 'pair', 'request', 'QA laptop', '--scopes', 'read,record'], { env: noToken }).stdout) as {
    pairing_id: string;
    state: string;
  };
  assert.equal(req.state, 'pending');
  assert.match(ok(['pair', 'status', req.pairing_id], { env: noToken }).stdout, /^state: +pending$/m);
  assert.equal((await stage.control('POST', `/control/pairings/${req.pairing_id}/approve`)).status, 200);
  const first = JSON.parse(ok(['--json', 'pair', 'status', req.pairing_id], { env: noToken }).stdout) as { state: string; token?: string };
  assert.equal(first.state, 'approved');
  assert.match(first.token ?? '', /^mas_/);
});

test('the token from the config file; no token is 401 with a hint; nothing listening is exit 3', async () => {
  const dir = path.join(stage.tmp, 'xdg-file');
  mkdirSync(path.join(dir, 'mas'), { recursive: true });
  writeFileSync(path.join(dir, 'mas', 'config.json'), JSON.stringify({ token, base_url: stage.ref.baseUrl }));
  const fromFile = { PATH: env['PATH'], HOME: stage.tmp, XDG_CONFIG_HOME: dir };
  assert.match(ok(['whoami'], { env: fromFile }).stdout, /^license_tier: +pro$/m);

  const none = mas(['meetings', 'list'], { env: { ...env, MAS_TOKEN: '' } });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^mas: HTTP 401 unauthorized: .+\nmas: no token: pass --token, set MAS_TOKEN/);
  assert.equal(mas(['--token', 'mas_not-a-token', 'whoami']).code, 1);

  writeFileSync(path.join(dir, 'mas', 'config.json'), '{"token": 5}');
  const broken = mas(['whoami'], { env: fromFile });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /config.json: token must be a string/);

  const closed = mas(['--base-url', `http://127.0.0.1:${await freePort()}`, 'health']);
  assert.equal(closed.code, 3);
  assert.match(closed.stderr, /^mas: nothing is listening at http:\/\/127\.0\.0\.1:\d+/);
  assert.equal(mas(['--base-url', 'ftp://x', 'health']).code, 2);
});

/** Runs a command line on a pseudo-terminal (util-linux script); resolves with everything the terminal showed. */
function onTerminal(
  commandLine: string,
  opts: { interruptWhen?: (screen: string) => boolean } = {},
): Promise<{ code: number | null; screen: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-q', '-e', '-c', commandLine, '/dev/null'], {
      env: { ...env, TERM: 'xterm' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let interrupted = false;
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString('utf8');
      if (!interrupted && opts.interruptWhen?.(screen) === true) {
        interrupted = true;
        child.stdin.write('\x03'); // Ctrl+C, as typed: the terminal turns it into SIGINT for mas
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

test('on a terminal: upload bytes and rate, then the job stage and progress, then the meeting id', async () => {
  note(['jobs', 'import']);
  const { code, screen } = await onTerminal(
    `${JSON.stringify(process.execPath)} ${JSON.stringify(MAS)} jobs import ${JSON.stringify(stage.audio)} --wait`,
  );
  assert.equal(code, 0, screen);
  assert.match(screen, /\r\x1b\[2KUploading tiny\.mp3 {2}\d+(\.\d)? (B|KB) \/ \d+(\.\d)? KB {2}100% {2}\d+(\.\d)? (B|KB|MB)\/s/);
  assert.match(screen, /\r\x1b\[2KJob job_[0-9a-f-]+ {2}succeeded {2}done {2}100%/);
  assert.match(screen, /\n[0-9a-f-]{36}\r?\n/);
});

test('Ctrl+C during an upload aborts it: exit 130, no job, the gateway unharmed', async () => {
  const before = JSON.parse(ok(['--json', 'jobs', 'list']).stdout) as { jobs: { id: string }[] };
  // /dev/zero never ends, so the upload is still running whenever the interrupt arrives.
  const { code, screen } = await onTerminal(
    `${JSON.stringify(process.execPath)} ${JSON.stringify(MAS)} jobs import - --filename endless.wav --wait < /dev/zero`,
    {
      interruptWhen: (s) => /Uploading endless\.wav {2}[1-9]/.test(s),
    },
  );
  assert.equal(code, 130, screen);
  assert.match(screen, /mas: interrupted; an upload in progress was aborted and imports nothing/);
  const afterwards = JSON.parse(ok(['--json', 'jobs', 'list']).stdout) as { jobs: { id: string }[] };
  assert.deepEqual(
    afterwards.jobs.map((j) => j.id),
    before.jobs.map((j) => j.id),
  );
  ok(['health']);
});

test('every command was run against the gateway', () => {
  assert.deepEqual(
    ALL_PATHS.filter((p) => !exercised.has(p)),
    [],
  );
});
