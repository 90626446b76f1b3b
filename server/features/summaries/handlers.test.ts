/**
 * Summary regeneration through HTTP: the operation, its status, its wait,
 * the events, and the failure path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { DomainEvent } from '../../kernel/events.ts';
import { readSse } from '../../testing/sse-client.ts';
import { Gate, SAMPLE_WORDS, scriptedPipeline } from '../../testing/scripted-pipeline.ts';
import { StageError, uncontrolled, type Summarizer } from '../../pipeline/types.ts';
import { testGateway } from '../../testing/gateway.ts';

function gatedSummarizer(gate: Gate, fail = false): Summarizer {
  return {
    name: 'gated',
    async summarize(input) {
      await gate.pass(uncontrolled());
      if (fail) throw new StageError('the summary endpoint at /srv/llm/socket refused', { retryable: true });
      return { text: `Summary of ${input.segments.length} segments`, sections: [{ title: 'Updates', text: 'x' }], model: 'gated' };
    },
  };
}

async function setup(summarizer?: Summarizer) {
  const gw = testGateway({ pipeline: scriptedPipeline({ words: SAMPLE_WORDS, ...(summarizer !== undefined ? { summarizer } : {}) }) });
  const server = gw.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const events: DomainEvent[] = [];
  gw.deps.bus.subscribe((e) => events.push(e));
  const auth = gw.bearer(['read', 'write']);
  const meeting = gw.deps.meetings.create({
    title: 'Sync',
    created_at: '2026-11-20T09:00:00Z',
    segments: [
      { speaker: 'S1', start: 0, end: 2, text: 'Yesterday I finished the budget review.' },
      { speaker: 'S2', start: 2, end: 4, text: 'Today I will prepare the release notes.' },
      { speaker: 'S1', start: 4, end: 6, text: 'I am blocked on the vendor contract.' },
    ],
    summary: { text: 'Old summary' },
    audio: false,
  });
  return {
    gw,
    auth,
    events,
    meetingId: meeting.id,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      gw.close();
    },
  };
}

test('regenerate: 202 with the operation, the wait resolves summary.completed, the event carries the operation id', async () => {
  const s = await setup();
  try {
    const res = await request(s.gw.app).post(`/v1/meetings/${s.meetingId}/summary/regenerate`).set('Authorization', s.auth).send({});
    assert.equal(res.status, 202);
    for (const key of ['operation_id', 'wait_url', 'status_url', 'state', 'meeting_id']) assert.ok(key in res.body, key);
    assert.equal(res.body.template_id, 'daily_standup', 'the default template');
    const wait = await readSse(`${s.base}${res.body.wait_url}`, { Authorization: s.auth });
    assert.deepEqual(
      wait.events.map((e) => e.event),
      ['summary.completed'],
    );
    const status = await request(s.gw.app).get(res.body.status_url).set('Authorization', s.auth);
    assert.equal(status.status, 200);
    assert.equal(status.body.state, 'succeeded');
    const summary = await request(s.gw.app).get(`/v1/meetings/${s.meetingId}/summary`).set('Authorization', s.auth);
    assert.equal(summary.body.status, 'ready');
    assert.equal(summary.body.result.source, 'generated');
    assert.notEqual(summary.body.result.text, 'Old summary');
    const completed = s.events.find((e) => e.event === 'summary.completed');
    assert.equal(completed?.operation_id, res.body.operation_id);
    assert.equal(completed?.resource.id, s.meetingId);
    const noBody = await request(s.gw.app).post(`/v1/meetings/${s.meetingId}/summary/regenerate`).set('Authorization', s.auth);
    assert.equal(noBody.status, 202, 'the body is optional');
    await s.gw.deps.summaries.settled();
  } finally {
    await s.close();
  }
});

test('regenerate: 409 summary_generating while one runs; a failure keeps the old result and sets regeneration_failed', async () => {
  const gate = new Gate();
  const s = await setup(gatedSummarizer(gate, true));
  try {
    const first = await request(s.gw.app)
      .post(`/v1/meetings/${s.meetingId}/summary/regenerate`)
      .set('Authorization', s.auth)
      .send({ template_id: 'meeting_notes' });
    assert.equal(first.status, 202);
    const during = await request(s.gw.app).get(`/v1/meetings/${s.meetingId}/summary`).set('Authorization', s.auth);
    assert.equal(during.body.status, 'generating');
    const second = await request(s.gw.app).post(`/v1/meetings/${s.meetingId}/summary/regenerate`).set('Authorization', s.auth).send({});
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'summary_generating');

    const timeout = await readSse(`${s.base}${first.body.wait_url}?timeout_ms=200`, { Authorization: s.auth });
    assert.deepEqual(
      timeout.events.map((e) => e.event),
      ['timeout'],
    );

    gate.open();
    const wait = await readSse(`${s.base}${first.body.wait_url}`, { Authorization: s.auth });
    assert.deepEqual(
      wait.events.map((e) => e.event),
      ['summary.failed'],
    );
    const summary = await request(s.gw.app).get(`/v1/meetings/${s.meetingId}/summary`).set('Authorization', s.auth);
    assert.equal(summary.body.status, 'ready');
    assert.equal(summary.body.result.text, 'Old summary');
    assert.equal(summary.body.regeneration_failed, true);
    assert.equal(summary.body.error, 'the summary endpoint at socket refused');
    assert.equal(s.events.filter((e) => e.event === 'summary.completed').length, 0);
  } finally {
    await s.close();
  }
});

test('regenerate: 422 for an empty transcript or an unknown template; 404 for unknown meeting or operation', async () => {
  const s = await setup();
  try {
    const empty = s.gw.deps.meetings.create({
      title: 'Silent',
      created_at: '2026-11-20T10:00:00Z',
      segments: [],
      summary: null,
      audio: false,
    });
    const res = await request(s.gw.app).post(`/v1/meetings/${empty.id}/summary/regenerate`).set('Authorization', s.auth).send({});
    assert.equal(res.status, 422);
    const template = await request(s.gw.app)
      .post(`/v1/meetings/${s.meetingId}/summary/regenerate`)
      .set('Authorization', s.auth)
      .send({ template_id: 'nope' });
    assert.equal(template.status, 422);
    const extra = await request(s.gw.app)
      .post(`/v1/meetings/${s.meetingId}/summary/regenerate`)
      .set('Authorization', s.auth)
      .send({ prompt: 'x' });
    assert.equal(extra.status, 422);
    assert.equal((await request(s.gw.app).post('/v1/meetings/nope/summary/regenerate').set('Authorization', s.auth).send({})).status, 404);
    assert.equal(
      (await request(s.gw.app).get(`/v1/meetings/${s.meetingId}/summary/operations/op_nope`).set('Authorization', s.auth)).status,
      404,
    );
    assert.equal(
      (await request(s.gw.app).get(`/v1/meetings/${s.meetingId}/summary/operations/op_nope/wait`).set('Authorization', s.auth)).status,
      404,
    );
  } finally {
    await s.close();
  }
});
