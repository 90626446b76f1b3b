/**
 * The job routes through HTTP: import upload and its limits, the state
 * machine, pause/resume/cancel/retry with their sub-codes, events, and the
 * SSE wait. The pipeline's stages are scripted here (testing/scripted-pipeline.ts) so
 * every transition can be met on purpose; the real stages run end to end in
 * server/features/jobs/import-end-to-end.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import type { Server } from 'node:http';
import request from 'supertest';
import { readSse } from '../../testing/sse-client.ts';
import { Gate, SAMPLE_WORDS, scriptedPipeline, type Script } from '../../testing/scripted-pipeline.ts';
import { StageError } from '../../pipeline/types.ts';
import type { DomainEvent } from '../../kernel/events.ts';
import { testGateway, type TestGateway, type TestGatewayOptions } from '../../testing/gateway.ts';
import { DEFAULT_IMPORT_LIMITS } from './imports/budget.ts';

const ALL = ['read', 'record', 'write', 'delete'];

interface Harness {
  gw: TestGateway;
  base: string;
  auth: string;
  events: DomainEvent[];
  close(): Promise<void>;
}

async function harness(script: Script, opts: TestGatewayOptions = {}): Promise<Harness> {
  const gw = testGateway({ ...opts, pipeline: scriptedPipeline(script) });
  const server: Server = gw.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const events: DomainEvent[] = [];
  gw.deps.bus.subscribe((e) => events.push(e));
  return {
    gw,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    auth: gw.bearer(ALL),
    events,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      gw.close();
    },
  };
}

async function importBytes(h: Harness, query: string, body: Buffer = Buffer.from('RIFF....WAVE')) {
  return request(h.gw.app)
    .post(`/v1/jobs/import?${query}`)
    .set('Authorization', h.auth)
    .set('Content-Type', 'application/octet-stream')
    .send(body);
}

function seedMeeting(gw: TestGateway, opts: { audio?: boolean; segments?: number } = {}): string {
  const segments = Array.from({ length: opts.segments ?? 2 }, (_, i) => ({
    speaker: i % 2 === 0 ? 'S1' : 'S2',
    start: i * 2,
    end: i * 2 + 1.5,
    text: i % 2 === 0 ? 'Yesterday I finished the budget review.' : 'Today I will plan the release and I am blocked on the vendor.',
  }));
  return gw.deps.meetings.create({
    title: 'Standup',
    created_at: '2026-11-20T09:00:00Z',
    segments,
    summary: null,
    audio: opts.audio ?? true,
  }).id;
}

test('an import is received, runs through the stages and ends succeeded with a meeting, transcript and summary', async () => {
  const h = await harness({ words: SAMPLE_WORDS });
  try {
    const res = await importBytes(h, 'filename=standup.WAV&title=Daily%20standup&language=en');
    assert.equal(res.status, 202);
    assert.deepEqual(Object.keys(res.body), ['job_id']);
    const wait = await readSse(`${h.base}/v1/jobs/${res.body.job_id}/wait?timeout=30`, { Authorization: h.auth });
    assert.equal(wait.status, 200);
    assert.match(wait.contentType, /^text\/event-stream/);
    assert.equal(wait.events.length, 1);
    assert.equal(wait.events[0]!.event, 'job.completed');
    assert.equal(wait.closedByServer, true);

    const job = await request(h.gw.app).get(`/v1/jobs/${res.body.job_id}`).set('Authorization', h.auth);
    assert.equal(job.body.state, 'succeeded');
    assert.equal(job.body.kind, 'import');
    assert.equal(job.body.progress, 1);
    assert.equal(job.body.stage, 'done');
    const meetingId = job.body.meeting_id as string;
    const meeting = await request(h.gw.app).get(`/v1/meetings/${meetingId}`).set('Authorization', h.auth);
    assert.equal(meeting.body.title, 'Daily standup');
    assert.equal(meeting.body.source, 'import');
    assert.equal(meeting.body.has_recording, true);
    const transcript = await request(h.gw.app).get(`/v1/meetings/${meetingId}/transcript`).set('Authorization', h.auth);
    assert.equal(transcript.body.segments.map((s: { text: string }) => s.text).join(' '), 'yesterday we finished the budget');
    const summary = await request(h.gw.app).get(`/v1/meetings/${meetingId}/summary`).set('Authorization', h.auth);
    assert.equal(summary.body.status, 'ready');

    const names = h.events.map((e) => e.event);
    assert.deepEqual(names, ['transcript.updated', 'summary.completed', 'job.completed']);
    assert.equal(
      h.events.find((e) => e.event === 'summary.completed')!.operation_id,
      undefined,
      'an app-generated summary has no operation',
    );
    assert.deepEqual(readdirSync(h.gw.deps.media.folders.uploads), [], 'the upload became the recording');
  } finally {
    await h.close();
  }
});

test('import refuses what it cannot take: filename, extension, content type, provider', async () => {
  const h = await harness({ words: SAMPLE_WORDS });
  try {
    const missing = await importBytes(h, 'title=x');
    assert.equal(missing.status, 422);
    for (const name of ['notes.txt', 'archive.wav.zip', 'noextension', '.wav', 'x.']) {
      const res = await importBytes(h, `filename=${encodeURIComponent(name)}`);
      assert.equal(res.status, 422, name);
      assert.equal(res.body.error.code, 'invalid_request');
    }
    const json = await request(h.gw.app).post('/v1/jobs/import?filename=a.wav').set('Authorization', h.auth).send({ path: '/etc/passwd' });
    assert.equal(json.status, 400);
    const provider = await importBytes(h, 'filename=a.wav&provider=nonsense');
    assert.equal(provider.status, 422);
    for (const ext of ['mp4', 'm4a', 'wav', 'mp3', 'flac', 'ogg', 'aac', 'mkv', 'webm', 'wma']) {
      assert.equal((await importBytes(h, `filename=../../etc/x.${ext}`)).status, 202, ext);
    }
    assert.deepEqual(h.gw.errors, []);
  } finally {
    await h.close();
  }
});

test('a file above the per-file cap is 413 at once from Content-Length, and counted while streaming without it', async () => {
  const h = await harness({ words: SAMPLE_WORDS }, { importLimits: { ...DEFAULT_IMPORT_LIMITS, maxFileBytes: 1000 } });
  try {
    const declared = await importBytes(h, 'filename=a.wav', Buffer.alloc(2000));
    assert.equal(declared.status, 413);
    assert.equal(declared.body.error.code, 'payload_too_large');

    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${h.base}/v1/jobs/import?filename=a.wav`, {
        method: 'POST',
        headers: { Authorization: h.auth, 'Content-Type': 'application/octet-stream' },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      for (let i = 0; i < 4; i++) req.write(Buffer.alloc(400));
      req.end();
    });
    assert.equal(chunked.status, 413);
    assert.equal(JSON.parse(chunked.body).error.code, 'payload_too_large');
    assert.deepEqual(readdirSync(h.gw.deps.media.folders.uploads), [], 'the partial file is removed');
    assert.deepEqual(h.gw.deps.importBudget.inFlight, { uploads: 0, bytes: 0, decodedBytes: 0 });
    assert.equal(h.gw.deps.jobs.list().length, 0);
  } finally {
    await h.close();
  }
});

test(
  'the budget: past the concurrent uploads, 429 import_budget_full with Retry-After; a client ' +
    'that leaves frees its place and leaves no file',
  async () => {
    const h = await harness({ words: SAMPLE_WORDS }, { importLimits: { ...DEFAULT_IMPORT_LIMITS, maxConcurrent: 1 } });
    try {
      // An upload that stalls half-way holds the only place.
      const stalled = httpRequest(`${h.base}/v1/jobs/import?filename=a.mp3`, {
        method: 'POST',
        headers: { Authorization: h.auth, 'Content-Type': 'application/octet-stream', 'Content-Length': '100000' },
      });
      stalled.on('error', () => undefined);
      stalled.write(Buffer.alloc(1000));
      await waitFor(() => h.gw.deps.importBudget.inFlight.uploads === 1);

      const second = await importBytes(h, 'filename=b.mp3');
      assert.equal(second.status, 429);
      assert.equal(second.body.error.code, 'import_budget_full');
      assert.ok(Number(second.headers['retry-after']) > 0);

      stalled.destroy(); // the client goes away mid-upload
      await waitFor(() => h.gw.deps.importBudget.inFlight.uploads === 0);
      assert.deepEqual(readdirSync(h.gw.deps.media.folders.uploads), [], 'no partial file stays');
      assert.equal(h.gw.deps.jobs.list().length, 0, 'no job for an upload that never finished');

      const third = await importBytes(h, 'filename=c.mp3');
      assert.equal(third.status, 202);
    } finally {
      await h.close();
    }
  },
);

test('pause of an import is 409 import_not_pausable and changes nothing', async () => {
  const gate = new Gate();
  const h = await harness({ words: SAMPLE_WORDS, recognizeGate: gate });
  try {
    const res = await importBytes(h, 'filename=a.wav');
    await waitFor(() => gate.reached > 0);
    const pause = await request(h.gw.app).post(`/v1/jobs/${res.body.job_id}/pause`).set('Authorization', h.auth);
    assert.equal(pause.status, 409);
    assert.equal(pause.body.error.code, 'import_not_pausable');
    assert.equal(h.gw.deps.jobs.get(res.body.job_id).state, 'running');
    gate.open();
    await h.gw.deps.jobs.idle();
  } finally {
    await h.close();
  }
});

test('pause and resume a diarization: pausing then paused, two job.paused events, the wait stays open, then job.completed', async () => {
  const gate = new Gate();
  const h = await harness({ words: SAMPLE_WORDS, diarizeGate: gate });
  try {
    const meetingId = seedMeeting(h.gw);
    const submit = await request(h.gw.app)
      .post('/v1/jobs/diarization')
      .set('Authorization', h.auth)
      .send({ meeting_id: meetingId, speaker_count: 2 });
    assert.equal(submit.status, 202);
    const id = submit.body.job_id as string;
    await waitFor(() => gate.reached > 0);

    const busy = await request(h.gw.app).post('/v1/jobs/diarization').set('Authorization', h.auth).send({ meeting_id: meetingId });
    assert.equal(busy.status, 409, 'a second diarization of the same meeting while one runs');
    assert.equal(busy.body.error.code, 'engine_busy');

    let opened = false;
    const waiting = readSse(`${h.base}/v1/jobs/${id}/wait?timeout=30`, { Authorization: h.auth }, { onOpen: () => (opened = true) });
    await waitFor(() => opened);

    const pause = await request(h.gw.app).post(`/v1/jobs/${id}/pause`).set('Authorization', h.auth);
    assert.equal(pause.status, 200);
    assert.equal(pause.body.state, 'pausing');
    await waitFor(() => h.gw.deps.jobs.get(id).state === 'paused');
    assert.equal(h.events.filter((e) => e.event === 'job.paused' && e.resource.id === id).length, 2);

    const resume = await request(h.gw.app).post(`/v1/jobs/${id}/resume`).set('Authorization', h.auth);
    assert.equal(resume.status, 200);
    assert.equal(resume.body.state, 'resuming');
    assert.equal(h.events.filter((e) => e.event === 'job.resumed').length, 1);
    gate.open();

    const wait = await waiting;
    assert.equal(wait.events.length, 1, 'pause and resume never resolve a wait');
    assert.equal(wait.events[0]!.event, 'job.completed');
    assert.equal((wait.events[0]!.data as { state: string }).state, 'succeeded');
  } finally {
    await h.close();
  }
});

test('cancel a running job: cancelled with job.cancelled; cancelling again is idempotent', async () => {
  const gate = new Gate();
  const h = await harness({ words: SAMPLE_WORDS, recognizeGate: gate });
  try {
    const res = await importBytes(h, 'filename=a.wav');
    const id = res.body.job_id as string;
    await waitFor(() => gate.reached > 0);
    const cancel = await request(h.gw.app).post(`/v1/jobs/${id}/cancel`).set('Authorization', h.auth);
    assert.equal(cancel.status, 200);
    await h.gw.deps.jobs.idle();
    assert.equal(h.gw.deps.jobs.get(id).state, 'cancelled');
    assert.equal(h.events.filter((e) => e.event === 'job.cancelled').length, 1);
    const again = await request(h.gw.app).post(`/v1/jobs/${id}/cancel`).set('Authorization', h.auth);
    assert.equal(again.status, 200);
    assert.equal(again.body.state, 'cancelled');
    const wait = await readSse(`${h.base}/v1/jobs/${id}/wait`, { Authorization: h.auth });
    assert.equal(wait.events[0]!.event, 'job.cancelled', 'a wait on an ended job resolves at once');
  } finally {
    await h.close();
  }
});

test('a failed stage ends the job failed with a redacted error; an undecodable file is not retryable and its upload is gone', async () => {
  const h = await harness({
    words: SAMPLE_WORDS,
    decodeError: new StageError('cannot decode /home/alice/Music/x.wav: not a WAV file', { retryable: false }),
  });
  try {
    const res = await importBytes(h, 'filename=x.wav');
    const wait = await readSse(`${h.base}/v1/jobs/${res.body.job_id}/wait`, { Authorization: h.auth });
    assert.equal(wait.events[0]!.event, 'job.failed');
    const job = await request(h.gw.app).get(`/v1/jobs/${res.body.job_id}`).set('Authorization', h.auth);
    assert.equal(job.body.state, 'failed');
    assert.equal(job.body.error, 'cannot decode ~/Music/x.wav: not a WAV file');
    assert.equal(job.body.is_retryable, false);
    assert.equal(job.body.meeting_id, null);
    assert.deepEqual(readdirSync(h.gw.deps.media.folders.uploads), []);
    assert.equal(h.gw.deps.meetings.list({ limit: 10, offset: 0 }).total, 0, 'no meeting without a transcript');
    const retry = await request(h.gw.app).post(`/v1/jobs/${res.body.job_id}/retry`).set('Authorization', h.auth);
    assert.equal(retry.status, 409);
    assert.equal(retry.body.error.code, 'not_retryable');
  } finally {
    await h.close();
  }
});

test('retry: a failed, retryable desktop job runs again; sub-codes for the others', async () => {
  const gate = new Gate();
  const h = await harness({ words: SAMPLE_WORDS, recognizeGate: gate });
  try {
    const meetingId = seedMeeting(h.gw);
    const jobs = h.gw.deps.jobs;
    const failed = jobs.createFixture({
      kind: 'retranscription',
      state: 'failed',
      meeting_id: meetingId,
      is_retryable: true,
      source_gone: false,
      error: 'decoder failed on /home/alice/Music/x.wav',
      hold: false,
    });
    const listed = await request(h.gw.app).get(`/v1/jobs/${failed.id}`).set('Authorization', h.auth);
    assert.equal(listed.body.error, 'decoder failed on ~/Music/x.wav');

    const retry = await request(h.gw.app).post(`/v1/jobs/${failed.id}/retry`).set('Authorization', h.auth);
    assert.equal(retry.status, 200);
    assert.equal(retry.body.state, 'queued');
    await waitFor(() => jobs.get(failed.id).state === 'running');
    const notTerminal = await request(h.gw.app).post(`/v1/jobs/${failed.id}/retry`).set('Authorization', h.auth);
    assert.equal(notTerminal.body.error.code, 'not_terminal');
    gate.open();
    await jobs.idle();
    assert.equal(jobs.get(failed.id).state, 'succeeded');
    assert.equal(jobs.get(failed.id).attempts, 1);
    const transcript = await request(h.gw.app).get(`/v1/meetings/${meetingId}/transcript`).set('Authorization', h.auth);
    assert.equal(transcript.body.segments.map((s: { text: string }) => s.text).join(' '), 'yesterday we finished the budget');

    const succeeded = await request(h.gw.app).post(`/v1/jobs/${failed.id}/retry`).set('Authorization', h.auth);
    assert.equal(succeeded.body.error.code, 'not_retryable');

    const gone = jobs.createFixture({
      kind: 'import',
      state: 'failed',
      meeting_id: null,
      is_retryable: true,
      source_gone: true,
      error: 'x',
      hold: false,
    });
    const sourceGone = await request(h.gw.app).post(`/v1/jobs/${gone.id}/retry`).set('Authorization', h.auth);
    assert.equal(sourceGone.status, 409);
    assert.equal(sourceGone.body.error.code, 'source_gone');

    const notRetryable = jobs.createFixture({
      kind: 'diarization',
      state: 'failed',
      meeting_id: meetingId,
      is_retryable: false,
      source_gone: false,
      error: 'x',
      hold: false,
    });
    assert.equal(
      (await request(h.gw.app).post(`/v1/jobs/${notRetryable.id}/retry`).set('Authorization', h.auth)).body.error.code,
      'not_retryable',
    );
  } finally {
    await h.close();
  }
});

test('held jobs (Control API fixtures): the wait times out with a timeout event, finish resolves it', async () => {
  const h = await harness({ words: SAMPLE_WORDS });
  try {
    const held = h.gw.deps.jobs.createFixture({
      kind: 'diarization',
      state: 'running',
      meeting_id: null,
      is_retryable: false,
      source_gone: false,
      error: null,
      hold: true,
    });
    const timedOut = await readSse(`${h.base}/v1/jobs/${held.id}/wait?timeout=1`, { Authorization: h.auth });
    assert.equal(timedOut.status, 200);
    assert.deepEqual(
      timedOut.events.map((e) => e.event),
      ['timeout'],
    );
    assert.equal(timedOut.closedByServer, true);

    let opened = false;
    const waiting = readSse(`${h.base}/v1/jobs/${held.id}/wait?timeout=7200`, { Authorization: h.auth }, { onOpen: () => (opened = true) });
    await waitFor(() => opened);
    h.gw.deps.jobs.finishFixture(held.id, 'failed', 'engine crashed');
    const resolved = await waiting;
    assert.deepEqual(
      resolved.events.map((e) => e.event),
      ['job.failed'],
    );

    const bad = await request(h.gw.app).get(`/v1/jobs/${held.id}/wait?timeout=soon`).set('Authorization', h.auth);
    assert.equal(bad.status, 422);
    const missing = await request(h.gw.app).get('/v1/jobs/job_nope/wait').set('Authorization', h.auth);
    assert.equal(missing.status, 404);
  } finally {
    await h.close();
  }
});

test('the job list: newest first, JobDto fields, no state named completed', async () => {
  const h = await harness({ words: SAMPLE_WORDS });
  try {
    await importBytes(h, 'filename=a.wav');
    await h.gw.deps.jobs.idle();
    h.gw.deps.jobs.createFixture({
      kind: 'diarization',
      state: 'queued',
      meeting_id: null,
      is_retryable: false,
      source_gone: false,
      error: null,
      hold: true,
    });
    const res = await request(h.gw.app).get('/v1/jobs').set('Authorization', h.auth);
    assert.equal(res.status, 200);
    assert.equal(res.body.jobs.length, 2);
    assert.equal(res.body.jobs[0].kind, 'diarization');
    for (const job of res.body.jobs) {
      assert.notEqual(job.state, 'completed');
      for (const key of ['id', 'kind', 'state', 'stage', 'progress', 'meeting_id', 'is_retryable', 'error', 'created_at'])
        assert.ok(key in job, key);
    }
  } finally {
    await h.close();
  }
});

test('after a restart, jobs that were in flight fail as interrupted and may be retried; queued ones run', async () => {
  const h = await harness({ words: SAMPLE_WORDS });
  try {
    const meetingId = seedMeeting(h.gw);
    const jobs = h.gw.deps.jobs;
    const wasRunning = jobs.createFixture({
      kind: 'diarization',
      state: 'running',
      meeting_id: meetingId,
      is_retryable: false,
      source_gone: false,
      error: null,
      hold: false,
    });
    jobs.recover();
    const after = jobs.get(wasRunning.id);
    assert.equal(after.state, 'failed');
    assert.equal(after.is_retryable, true);
    assert.match(after.error ?? '', /interrupted/);
  } finally {
    await h.close();
  }
});

test('after a restart, an import whose meeting was already saved succeeds naming it, not offered for a second import', async () => {
  const h = await harness({ words: SAMPLE_WORDS });
  try {
    const meetingId = seedMeeting(h.gw);
    const jobs = h.gw.deps.jobs;
    // Killed while summarizing: the meeting is saved and linked, the job still running.
    const linked = jobs.createFixture({
      kind: 'import',
      state: 'running',
      meeting_id: meetingId,
      is_retryable: false,
      source_gone: false,
      error: null,
      hold: false,
    });
    const unlinked = jobs.createFixture({
      kind: 'import',
      state: 'running',
      meeting_id: null,
      is_retryable: false,
      source_gone: false,
      error: null,
      hold: false,
    });
    jobs.recover();
    const done = jobs.get(linked.id);
    assert.equal(done.state, 'succeeded');
    assert.equal(done.meeting_id, meetingId);
    assert.equal(done.error, null);
    assert.equal(jobs.get(unlinked.id).state, 'failed');
  } finally {
    await h.close();
  }
});

test('deleting a meeting cancels its unfinished jobs', async () => {
  const gate = new Gate();
  const h = await harness({ words: SAMPLE_WORDS, diarizeGate: gate });
  try {
    const meetingId = seedMeeting(h.gw);
    const submit = await request(h.gw.app).post('/v1/jobs/diarization').set('Authorization', h.auth).send({ meeting_id: meetingId });
    await waitFor(() => gate.reached > 0);
    const del = await request(h.gw.app).delete(`/v1/meetings/${meetingId}?delete_files=true`).set('Authorization', h.auth);
    assert.equal(del.status, 200);
    await h.gw.deps.jobs.idle();
    const job = h.gw.deps.jobs.get(submit.body.job_id);
    assert.equal(job.state, 'cancelled');
    assert.equal(job.meeting_id, null);
  } finally {
    await h.close();
  }
});

test('diarization needs an existing meeting and a body', async () => {
  const h = await harness({ words: SAMPLE_WORDS });
  try {
    const unknown = await request(h.gw.app).post('/v1/jobs/diarization').set('Authorization', h.auth).send({ meeting_id: 'nope' });
    assert.equal(unknown.status, 400);
    const noBody = await request(h.gw.app).post('/v1/jobs/diarization').set('Authorization', h.auth);
    assert.equal(noBody.status, 422);
    const badCount = await request(h.gw.app)
      .post('/v1/jobs/diarization')
      .set('Authorization', h.auth)
      .send({ meeting_id: 'x', speaker_count: 0 });
    assert.equal(badCount.status, 422);
  } finally {
    await h.close();
  }
});

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
