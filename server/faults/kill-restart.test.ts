/**
 * Issue 7, part A: the real gateway (node server/main.ts, a real SQLite file,
 * ffmpeg, pocketsphinx, PulseAudio) is killed with SIGKILL at seeded random
 * moments and started again on the same data folder, many times:
 *
 *   upload     a POST /v1/jobs/import whose bytes are still flowing
 *   decode     an import job decoding, transcribing, saving or summarizing
 *   recording  a recording from a virtual device, starting or capturing
 *   delivery   webhook deliveries in flight and waiting to be retried
 *   migration  a database at schema 1 being migrated (failpoint
 *              migration.before-commit holds each migration open)
 *
 * After every kill and restart the invariants of testing/data-folder-invariants.ts hold, the API
 * answers, an import is accepted (the budget was released), everything the
 * gateway acknowledged with a 2xx before the kill is still there, no process
 * the killed gateway started is left running, and the webhook receiver never
 * gets, after a restart, a delivery of an event raised before the kill
 * (API.md: undelivered events are not replayed).
 *
 * MAS_FAULTS_SEED fixes the seed (printed at the start); MAS_FAULTS_LONG=1
 * runs 80 cycles instead of 25. Decision: docs/decisions/024-faults.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../simulator/seeded-random.ts';
import { startReceiver } from '../testing/webhook-receiver.ts';
import { openDatabase, schemaVersion } from '../kernel/store/database.ts';
import { MIGRATIONS } from '../kernel/store/migrations.ts';
import {
  alive,
  clientFor,
  descendants,
  killHard,
  sleep,
  startChild,
  stopChild,
  until,
  type ChildGateway,
  type Loose,
} from '../testing/child-gateway.ts';
import { checkDatabaseFile, checkDataFolder } from '../testing/data-folder-invariants.ts';
import { speechWav } from '../testing/speech-wav.ts';

const LONG = process.env.MAS_FAULTS_LONG === '1';
const SEED = process.env.MAS_FAULTS_SEED !== undefined ? Number(process.env.MAS_FAULTS_SEED) : Date.now() % 2 ** 31;
const POINTS = ['upload', 'decode', 'recording', 'delivery', 'migration'] as const;
type Point = (typeof POINTS)[number];
const PER_POINT = LONG ? 16 : 5;

/** An absolute path in a message the API shows (job errors are redacted to ~ or the file name). */
const ABSOLUTE_PATH = /(^|[\s("'=:])\/(?:[\w.-]+\/)+[\w.-]*/;

test(
  `SIGKILL at random points and restart, ${PER_POINT * POINTS.length} cycles (seed ${SEED})`,
  { timeout: LONG ? 1_800_000 : 240_000 },
  async () => {
    console.log(`[faults] seed ${SEED} (rerun with MAS_FAULTS_SEED=${SEED})`);
    const rng = seededRandom(SEED);
    const root = mkdtempSync(join(tmpdir(), 'mas-faults-kill-'));
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    const wav = await speechWav();
    const receiver = await startReceiver();
    receiver.answer = 503; // every delivery fails and is retried: there is always one in flight
    const tally: Record<Point, { cycles: number; notes: Record<string, number> }> = Object.fromEntries(
      POINTS.map((p) => [p, { cycles: 0, notes: {} }]),
    ) as never;
    const note = (p: Point, what: string) => (tally[p].notes[what] = (tally[p].notes[what] ?? 0) + 1);
    /** Processes a killed gateway had started, to be gone a little later. */
    const leftBehind: { pid: number; comm: string; since: number }[] = [];
    /** Kill moments and the restart that followed: deliveries after `restartFrom` must be of events after `killAt`. */
    const kills: { killAt: number; restartFrom: number }[] = [];
    let gw: ChildGateway | null = null;

    // Acknowledged writes: what must survive every kill.
    const ledger = { meetings: new Map<string, string>(), webhookId: '', controlToken: '', jobsSeenSucceeded: new Map<string, string>() };

    try {
      gw = await startChild({ dataDir });
      let c = clientFor(gw);
      // A token made through the Control API outlives restarts (the startup token is re-minted each start).
      const tok = await c.control('POST', '/control/tokens', { scopes: ['read', 'write', 'record'], name: 'faults' });
      assert.equal(tok.status, 201);
      ledger.controlToken = tok.body.token;
      const settings = await c.control('PATCH', '/control/settings', { webhooks_enabled: true, local_webhook_targets: [receiver.target] });
      assert.equal(settings.status, 200);
      assert.equal((await c.control('POST', '/control/restart')).status, 204); // the allowlist is read at startup
      const hook = await c.api(
        'POST',
        '/v1/webhooks',
        { url: receiver.url, events: ['job.completed', 'job.failed', 'job.cancelled'] },
        ledger.controlToken,
      );
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      ledger.webhookId = hook.body.id;
      assert.equal((await c.control('POST', `/control/webhooks/${ledger.webhookId}/approval`, { state: 'allowed' })).status, 200);

      // The order of the kill points, shuffled by the seed.
      const plan: Point[] = POINTS.flatMap((p) => Array<Point>(PER_POINT).fill(p));
      for (let i = plan.length - 1; i > 0; i--) {
        const j = rng.int(0, i);
        [plan[i], plan[j]] = [plan[j]!, plan[i]!];
      }

      let cycle = 0;
      for (const point of plan) {
        cycle += 1;
        if (point === 'migration') {
          await migrationCycle(root, rng, note);
          tally.migration.cycles += 1;
          continue;
        }
        c = clientFor(gw);
        // An acknowledged write in every cycle: a seeded meeting and a rename of an earlier one.
        const seeded = await c.control('POST', '/control/meetings', {
          title: `seed ${cycle}`,
          segments: [{ speaker: 'S1', start: 0, end: 1, text: `cycle ${cycle}` }],
          audio: rng.next() < 0.5,
        });
        assert.equal(seeded.status, 201);
        ledger.meetings.set(seeded.body.id, `seed ${cycle}`);
        const ids = [...ledger.meetings.keys()];
        const renameId = ids[rng.int(0, ids.length - 1)]!;
        const renamed = await c.api('PATCH', `/v1/meetings/${renameId}`, { title: `renamed ${cycle}` }, ledger.controlToken);
        assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
        ledger.meetings.set(renameId, `renamed ${cycle}`);

        const delay = await arm(point, gw, c, wav, rng, ledger, note);
        await sleep(delay);
        // What the killed gateway started; they must end by themselves (EOF on their pipes, idle exit).
        const spawned = descendants(gw.pid);
        const killAt = Date.now();
        await killHard(gw);
        for (const p of spawned) leftBehind.push({ ...p, since: killAt });
        tally[point].cycles += 1;

        // ── dead: the file alone ──
        const dbProblems = checkDatabaseFile(join(dataDir, 'gateway.sqlite'));
        assert.deepEqual(dbProblems, [], `cycle ${cycle} (${point}, ${delay} ms): database`);

        // ── restart ──
        const restartFrom = Date.now();
        kills.push({ killAt, restartFrom });
        gw = await startChild({ dataDir });
        c = clientFor(gw);
        const restartedAt = new Date(restartFrom).toISOString();
        const report = checkDataFolder(dataDir, { settled: true, restartedAt });
        if (spawned.length > 0)
          note(
            point,
            `processes left by the kill: ${spawned
              .map((p) => p.comm)
              .sort()
              .join('+')}`,
          );
        if (point === 'recording') note(point, `pending markers after restart: ${report.counts.markers}`);
        assert.deepEqual(report.problems, [], `cycle ${cycle} (${point}, ${delay} ms): data folder`);
        await checkApi(c, ledger, cycle, point);
        // The budget is free: a new import is accepted, not 429 (it then runs, or is interrupted by the next kill).
        const accepted = await importBytes(gw, wav, ledger.controlToken);
        assert.equal(accepted.status, 202, `cycle ${cycle}: import after restart: ${JSON.stringify(accepted.body)}`);
        checkReplays(receiver.received, kills, cycle);
        await reapLeftBehind(leftBehind, 0);
      }

      // The end: let the last jobs settle, then check once more, with everything processed.
      c = clientFor(gw);
      await until(
        'jobs to settle',
        async () => {
          const jobs = (await c.api('GET', '/v1/jobs')).body.jobs as Loose[];
          return jobs.every((j) => ['succeeded', 'failed', 'cancelled'].includes(j.state) || j.state === 'queued') ? true : undefined;
        },
        60_000,
        200,
      );
      await until(
        'recordings to be transcribed',
        async () => {
          const p = (await c.api('GET', '/v1/recording')).body.processing;
          return p === null || p.state === 'succeeded' || p.state === 'failed' ? true : undefined;
        },
        120_000,
        200,
      );
      await checkApi(c, ledger, cycle + 1, 'end');
      {
        const db = new DatabaseSync(join(dataDir, 'gateway.sqlite'), { readOnly: true });
        const rows = db
          .prepare(
            "SELECT m.id, (SELECT COUNT(*) FROM segments s WHERE s.meeting_id = m.id) AS n FROM meetings m WHERE m.source = 'recording'",
          )
          .all() as { id: string; n: number }[];
        db.close();
        console.log(
          `[faults] recorded meetings after all kills: ${rows.length}, with a transcript ${rows.filter((r) => r.n > 0).length}, empty ${rows.filter((r) => r.n === 0).length}`,
        );
      }
      assert.deepEqual(checkDataFolder(dataDir, { settled: true, restartedAt: new Date().toISOString() }).problems, []);
      checkReplays(receiver.received, kills, cycle + 1);
      await reapLeftBehind(leftBehind, 20_000);
      console.log(`[faults] seed ${SEED}: ${JSON.stringify(tally)}`);
      console.log(
        `[faults] deliveries received ${receiver.received.length}, kills ${kills.length}, meetings acknowledged ${ledger.meetings.size}`,
      );
    } finally {
      if (gw !== null) await stopChild(gw);
      // Whatever a killed gateway left running, ended by its pid (processes this test started, transitively).
      for (const p of leftBehind) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
      await receiver.close();
      rmSync(root, { recursive: true, force: true });
    }
  },
);

/** Starts the work the kill is aimed at; returns the delay before the kill. */
async function arm(
  point: Point,
  gw: ChildGateway,
  c: ReturnType<typeof clientFor>,
  wav: Uint8Array,
  rng: ReturnType<typeof seededRandom>,
  ledger: { controlToken: string; jobsSeenSucceeded: Map<string, string> },
  note: (p: Point, what: string) => void,
): Promise<number> {
  switch (point) {
    case 'upload': {
      // The bytes trickle in (4 kB every 10 ms, about 0.4 s for the file): the kill lands while they flow.
      const req = httpRequest(`${gw.api}/v1/jobs/import?filename=slow.wav`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${ledger.controlToken}`,
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(wav.length),
        },
      });
      req.on('error', () => undefined);
      req.on('response', (res) => res.resume());
      const delay = rng.int(20, 450);
      void (async () => {
        const t0 = Date.now();
        let at = 0;
        for (; at < wav.length && !req.destroyed && gw.child.exitCode === null && gw.child.signalCode === null; at += 4096) {
          req.write(wav.subarray(at, at + 4096));
          await sleep(10);
        }
        if (at < wav.length) note(point, `killed with ${Math.round((at / wav.length) * 10) * 10}% sent`);
        else note(point, `all sent after ${Date.now() - t0} ms`);
        req.end();
      })();
      return delay;
    }
    case 'decode': {
      const res = await importBytes(gw, wav, ledger.controlToken);
      assert.equal(res.status, 202);
      // One job runs at a time: wait until this one is being worked on, so the kill lands in its stages.
      await until(
        'the import to run',
        async () => ((await c.api('GET', `/v1/jobs/${res.body.job_id}`)).body.state === 'running' ? true : undefined),
        60_000,
        20,
      );
      // Somewhere in decoding, VAD, recognition, saving or summarizing (a tiny import takes ~3 s here).
      const delay = rng.int(0, 2500);
      setTimeout(
        () => {
          void c.api('GET', `/v1/jobs/${res.body.job_id}`).then(
            (j) => {
              note(point, `killed at ${j.body.stage ?? '?'}`);
              if (j.body.state === 'succeeded') ledger.jobsSeenSucceeded.set(res.body.job_id, j.body.meeting_id);
            },
            () => undefined,
          );
        },
        Math.max(0, delay - 5),
      );
      return delay;
    }
    case 'recording': {
      const plug = await c.control('POST', '/control/devices', { name: 'Fault Mic', device_type: 'input', script: 'tiny' });
      assert.ok(plug.status === 201 || plug.status === 409, JSON.stringify(plug.body));
      await until(
        'the device to be ready',
        async () => {
          const d = (await c.control('GET', '/control/devices')).body.devices as Loose[];
          return d.some((x) => x.name === 'Fault Mic') ? true : undefined;
        },
        30_000,
        50,
      );
      const start = await c.api('POST', '/v1/recording/start', { mic_device_name: 'Fault Mic' }, ledger.controlToken);
      assert.equal(start.status, 202, JSON.stringify(start.body));
      const roll = rng.next();
      if (roll < 0.2) {
        note(point, 'killed while starting');
        return rng.int(0, 1500); // capture comes up after ~1-3 s on this machine
      }
      await until('recording', async () => ((await c.api('GET', '/v1/recording')).body.state === 'recording' ? true : undefined), 20_000);
      if (roll < 0.5) {
        // Stopped first, so the kill may land while the recording is being transcribed.
        await sleep(rng.int(3000, 5000));
        await c.api('POST', '/v1/recording/stop', {}, ledger.controlToken);
        note(point, 'stopped, then killed while processing');
        return rng.int(0, 2500);
      }
      note(point, 'killed while capturing');
      return rng.int(0, 5000);
    }
    case 'delivery': {
      // Two events (a held fixture finished → job.completed; another → job.failed); their deliveries fail and wait for retries.
      for (const outcome of ['succeeded', 'failed'] as const) {
        const job = await c.control('POST', '/control/jobs', { kind: 'diarization', state: 'running', hold: true });
        assert.equal(job.status, 201);
        assert.equal((await c.control('POST', `/control/jobs/${job.body.id}/finish`, { outcome })).status, 200);
      }
      note(point, 'events raised');
      return rng.int(0, 4000);
    }
    case 'migration':
      throw new Error('migration cycles run on their own folder');
  }
}

/** The API answers, every acknowledged write is there, job states are documented and errors redacted. */
async function checkApi(
  c: ReturnType<typeof clientFor>,
  ledger: { meetings: Map<string, string>; webhookId: string; controlToken: string; jobsSeenSucceeded: Map<string, string> },
  cycle: number,
  point: string,
) {
  const where = `cycle ${cycle} (${point})`;
  assert.equal((await c.api('GET', '/v1/whoami')).status, 200, `${where}: whoami`);
  const health = await c.api('GET', '/health');
  assert.equal(health.status, 200, `${where}: health`);
  for (const [id, title] of ledger.meetings) {
    const m = await c.api('GET', `/v1/meetings/${id}`);
    assert.equal(m.status, 200, `${where}: acknowledged meeting ${id} lost`);
    assert.equal(m.body.title, title, `${where}: acknowledged rename of ${id} lost`);
  }
  const hook = await c.api('GET', `/v1/webhooks/${ledger.webhookId}`, undefined, ledger.controlToken);
  assert.equal(hook.status, 200, `${where}: acknowledged webhook registration lost`);
  for (const [jobId, meetingId] of ledger.jobsSeenSucceeded) {
    const t = await c.api('GET', `/v1/meetings/${meetingId}/transcript`);
    assert.equal(t.status, 200, `${where}: meeting of succeeded job ${jobId} lost`);
    assert.ok(t.body.segments.length > 0, `${where}: meeting of succeeded job ${jobId} lost its transcript`);
  }
  const jobs = (await c.api('GET', '/v1/jobs')).body.jobs as Loose[];
  for (const j of jobs) {
    if (typeof j.error === 'string') assert.doesNotMatch(j.error, ABSOLUTE_PATH, `${where}: job ${j.id} error not redacted`);
    if (j.state === 'succeeded' && j.kind === 'import') {
      const t = await c.api('GET', `/v1/meetings/${j.meeting_id}/transcript`);
      assert.equal(t.status, 200, `${where}: succeeded import ${j.id} has no meeting`);
    }
  }
  const rec = await c.api('GET', '/v1/recording');
  assert.equal(rec.status, 200);
  assert.equal(rec.body.state, 'idle', `${where}: a fresh start records nothing`);
}

/** API.md: undelivered events are not replayed after a restart. */
function checkReplays(received: { rawBody: Buffer; at: number }[], kills: { killAt: number; restartFrom: number }[], cycle: number) {
  for (const r of received) {
    let env: { event_id?: string; occurred_at?: string };
    try {
      env = JSON.parse(r.rawBody.toString('utf8')) as typeof env;
    } catch {
      continue;
    }
    const occurred = Date.parse(env.occurred_at ?? '');
    for (const k of kills) {
      if (r.at > k.restartFrom && occurred < k.killAt) {
        assert.fail(`cycle ${cycle}: event ${env.event_id} raised before a kill was delivered after the restart`);
      }
    }
  }
}

/** Every process a killed gateway started ends by itself within `graceMs` of the kill (EOF, the daemon's idle exit). */
async function reapLeftBehind(left: { pid: number; comm: string; since: number }[], graceMs: number) {
  const limit = 20_000;
  for (const p of left) {
    if (!alive(p.pid)) continue;
    const waitMs = Math.max(graceMs, p.since + limit - Date.now());
    if (Date.now() - p.since < limit && graceMs === 0) continue; // not overdue yet; looked at again later
    await until(`${p.comm} (pid ${p.pid}) left by a killed gateway to end`, () => (alive(p.pid) ? undefined : true), waitMs, 100);
  }
}

function importBytes(gw: ChildGateway, bytes: Uint8Array, token: string): Promise<{ status: number; body: Loose }> {
  return fetch(`${gw.api}/v1/jobs/import?filename=tiny.wav&title=imported`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream' },
    body: bytes,
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Loose }));
}

/**
 * One mid-migration kill: a data folder at schema 1 with meetings in it,
 * started with the migration failpoint (each migration held open before its
 * commit), killed at a random moment; then the file must be intact and at a
 * version whose tables all exist, and a normal start must finish the
 * migration with the meetings still there.
 */
async function migrationCycle(root: string, rng: ReturnType<typeof seededRandom>, note: (p: Point, what: string) => void) {
  const dir = mkdtempSync(join(root, 'migrate-'));
  const file = join(dir, 'gateway.sqlite');
  const seed = openDatabase(file, MIGRATIONS.slice(0, 1));
  const insert = seed.prepare('INSERT INTO meetings (id, title, created_at, updated_at, source) VALUES (?, ?, ?, ?, ?)');
  const seg = seed.prepare('INSERT INTO segments (meeting_id, idx, speaker, start_s, end_s, text) VALUES (?, 0, ?, 0, 1, ?)');
  seed.exec('BEGIN');
  for (let i = 0; i < 200; i++) {
    insert.run(`m-${i}`, `old meeting ${i}`, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'fixture');
    seg.run(`m-${i}`, 'S1', `words of meeting ${i}`);
  }
  seed.exec('COMMIT');
  seed.close();

  const child = await startChild({ dataDir: dir, env: { MAS_FAILPOINTS: 'migration.before-commit=700' }, noWait: true });
  const delay = rng.int(0, 4000);
  await sleep(delay);
  await killHard(child);
  assert.deepEqual(checkDatabaseFile(file), [], `migration kill at ${delay} ms: database`);
  const db = new DatabaseSync(file); // no migration: look at it as it is
  const version = schemaVersion(db);
  const tables = new Set(
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name),
  );
  const meetings = (db.prepare('SELECT COUNT(*) AS n FROM meetings').get() as { n: number }).n;
  db.close();
  note('migration', `killed at schema ${version}`);
  assert.equal(tables.has('jobs'), version >= 2, `schema ${version} and the jobs table disagree: half-migrated`);
  assert.equal(tables.has('webhooks'), version >= 3, `schema ${version} and the webhooks table disagree: half-migrated`);
  assert.equal(meetings, 200);

  const gw = await startChild({ dataDir: dir });
  try {
    const c = clientFor(gw);
    const list = await c.api('GET', '/v1/meetings?limit=200');
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 200, 'every meeting of the old schema is there');
    assert.deepEqual(checkDataFolder(dir, { settled: true }).problems, []);
  } finally {
    await stopChild(gw);
  }
  const after = new DatabaseSync(file);
  assert.equal(schemaVersion(after), MIGRATIONS.at(-1)!.version);
  after.close();
  rmSync(dir, { recursive: true, force: true });
}
