/**
 * The meetings routes over HTTP: list, get, rename, delete, transcript,
 * summary, speaker labels and export. Replies are schema-checked by the test
 * gateway (a reply that breaks its schema becomes a 500 and lands in
 * gw.errors, which the last test asserts is empty).
 */
import { after, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { MeetingSeed } from './service.ts';
import { ALL_SCOPES, testGateway } from '../../testing/gateway.ts';

const gw = testGateway();
const auth = gw.bearer(ALL_SCOPES);
const api = () => request(gw.app);

function seed(over: Partial<MeetingSeed> = {}): string {
  return gw.deps.meetings.create({
    title: 'Weekly sync',
    created_at: '2026-11-20T09:00:00Z',
    segments: [
      {
        speaker: 'S1',
        start: 0,
        end: 2.4,
        text: 'Good morning.',
        words: [
          { text: 'Good', start: 0, end: 0.3, confidence: 0.9 },
          { text: 'morning.', start: 0.3, end: 0.9 },
        ],
      },
      { speaker: 'S2', start: 2.4, end: 3661.5, text: 'Morning! Budget first.' },
      { speaker: 'S1', start: 3661.5, end: 3670, text: 'Sure.' },
    ],
    summary: { text: 'Short summary.' },
    audio: false,
    ...over,
  }).id;
}

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

beforeEach(() => gw.deps.meetings.deleteAll());
after(() => gw.close());

describe('GET /v1/meetings', () => {
  test('empty store: no meetings, total 0, default limit 50', async () => {
    const res = await api().get('/v1/meetings').set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { meetings: [], total: 0, limit: 50, offset: 0 });
  });

  test('newest first by created_at, whatever the insertion order', async () => {
    const mid = seed({ title: 'mid', created_at: '2026-02-01T00:00:00Z' });
    const old = seed({ title: 'old', created_at: '2026-01-01T00:00:00Z' });
    const recent = seed({ title: 'new', created_at: '2026-03-01T00:00:00Z' });
    const res = await api().get('/v1/meetings').set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.meetings.map((m: { id: string }) => m.id),
      [recent, mid, old],
    );
    assert.equal(res.body.total, 3);
  });

  test('offset and limit page the list; limit is clamped to 1..200', async () => {
    const ids = [1, 2, 3, 4, 5].map((d) => seed({ created_at: `2026-01-0${d}T00:00:00Z` })).reverse();
    const page = await api().get('/v1/meetings?limit=2&offset=1').set('Authorization', auth);
    assert.deepEqual(
      page.body.meetings.map((m: { id: string }) => m.id),
      ids.slice(1, 3),
    );
    assert.deepEqual([page.body.total, page.body.limit, page.body.offset], [5, 2, 1]);

    const big = await api().get('/v1/meetings?limit=1000').set('Authorization', auth);
    assert.equal(big.status, 200);
    assert.equal(big.body.limit, 200);
    const zero = await api().get('/v1/meetings?limit=0').set('Authorization', auth);
    assert.equal(zero.status, 200);
    assert.equal(zero.body.limit, 1);
    assert.equal(zero.body.meetings.length, 1);
    const past = await api().get('/v1/meetings?offset=99').set('Authorization', auth);
    assert.deepEqual([past.body.meetings.length, past.body.total], [0, 5]);
  });

  test('a limit that is not an integer is 422', async () => {
    const res = await api().get('/v1/meetings?limit=ten').set('Authorization', auth);
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'invalid_request');
  });
});

describe('GET /v1/meetings/{id}', () => {
  test('the MeetingDto with computed duration and recording flag', async () => {
    const id = seed({ audio: true, language: 'en' });
    const res = await api().get(`/v1/meetings/${id}`).set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      id,
      title: 'Weekly sync',
      created_at: '2026-11-20T09:00:00.000Z',
      updated_at: '2026-11-20T09:00:00.000Z',
      source: 'fixture',
      language: 'en',
      duration_seconds: 3670,
      has_recording: true,
    });
  });

  test('no segments: duration null; no audio: has_recording false', async () => {
    const id = seed({ segments: [], audio: false });
    const res = await api().get(`/v1/meetings/${id}`).set('Authorization', auth);
    assert.equal(res.body.duration_seconds, null);
    assert.equal(res.body.has_recording, false);
  });

  test('an unknown id, of any spelling, is 404 not_found', async () => {
    for (const id of [UNKNOWN, 'nope', '..%2F..%2Fetc', encodeURIComponent("' OR 1=1 --")]) {
      const res = await api().get(`/v1/meetings/${id}`).set('Authorization', auth);
      assert.equal(res.status, 404, id);
      assert.equal(res.body.error.code, 'not_found');
    }
  });
});

describe('PATCH /v1/meetings/{id}', () => {
  test('renames, moves updated_at, and later reads see the new title', async () => {
    const id = seed({ created_at: '2020-01-01T00:00:00Z' });
    const res = await api().patch(`/v1/meetings/${id}`).set('Authorization', auth).send({ title: 'Quarterly review' });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, id);
    assert.equal(res.body.title, 'Quarterly review');
    assert.ok(res.body.updated_at > res.body.created_at);
    const read = await api().get(`/v1/meetings/${id}`).set('Authorization', auth);
    assert.equal(read.body.title, 'Quarterly review');
    const transcript = await api().get(`/v1/meetings/${id}/transcript`).set('Authorization', auth);
    assert.equal(transcript.body.title, 'Quarterly review');
  });

  test('500 code points are accepted and 501 refused, counting an emoji as one', async () => {
    const id = seed();
    const at500 = '😀'.repeat(500); // 1000 UTF-16 units, 500 code points
    const ok = await api().patch(`/v1/meetings/${id}`).set('Authorization', auth).send({ title: at500 });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.title, at500);
    const tooLong = await api()
      .patch(`/v1/meetings/${id}`)
      .set('Authorization', auth)
      .send({ title: '😀'.repeat(501) });
    assert.equal(tooLong.status, 422);
    assert.equal(tooLong.body.error.code, 'invalid_request');
    const read = await api().get(`/v1/meetings/${id}`).set('Authorization', auth);
    assert.equal(read.body.title, at500, 'a refused rename leaves the title unchanged');
  });

  test('blank, missing, wrongly typed, control-character and extra-field bodies are 422', async () => {
    const id = seed();
    for (const body of [
      { title: '' },
      { title: '   ' },
      {},
      { title: 42 },
      { title: null },
      { title: 'a\u0007b' },
      { title: 'ok', extra: 1 },
    ]) {
      const res = await api().patch(`/v1/meetings/${id}`).set('Authorization', auth).send(body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.code, 'invalid_request');
    }
    const read = await api().get(`/v1/meetings/${id}`).set('Authorization', auth);
    assert.equal(read.body.title, 'Weekly sync');
  });

  test('an unknown meeting is 404', async () => {
    const res = await api().patch(`/v1/meetings/${UNKNOWN}`).set('Authorization', auth).send({ title: 'x' });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });

  test('the title index follows a rename', async () => {
    const id = seed({ title: 'Alpha planning', segments: [] });
    await api().patch(`/v1/meetings/${id}`).set('Authorization', auth).send({ title: 'Omega planning' });
    const oldWord = await api().get('/v1/search?q=alpha').set('Authorization', auth);
    assert.deepEqual(oldWord.body.results, []);
    const newWord = await api().get('/v1/search?q=omega').set('Authorization', auth);
    assert.equal(newWord.body.results.length, 1);
    assert.equal(newWord.body.results[0].title, 'Omega planning');
  });
});

describe('DELETE /v1/meetings/{id}', () => {
  test('deletes with transcript and summary; search forgets it; a second delete is 404', async () => {
    const id = seed({ title: 'Zanzibar offsite' });
    const keep = seed({ title: 'Other meeting' });
    const res = await api().delete(`/v1/meetings/${id}`).set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id, deleted: true, files_deleted: false });
    for (const path of [`/v1/meetings/${id}`, `/v1/meetings/${id}/transcript`, `/v1/meetings/${id}/summary`, `/v1/meetings/${id}/export`]) {
      const gone = await api().get(path).set('Authorization', auth);
      assert.equal(gone.status, 404, path);
      assert.equal(gone.body.error.code, 'not_found');
    }
    const search = await api().get('/v1/search?q=zanzibar').set('Authorization', auth);
    assert.deepEqual(search.body.results, []);
    const byText = await api().get('/v1/search?q=budget').set('Authorization', auth);
    assert.ok(byText.body.results.every((r: { meeting_id: string }) => r.meeting_id === keep));
    const again = await api().delete(`/v1/meetings/${id}`).set('Authorization', auth);
    assert.equal(again.status, 404);
    // Rows hanging off the meeting went with it (foreign-key cascade).
    for (const table of ['segments', 'speaker_labels', 'summaries']) {
      const row = gw.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE meeting_id = ?`).get(id) as { n: number };
      assert.equal(row.n, 0, table);
    }
  });

  test('delete_files=true removes the recording file; false (the default) keeps it', async () => {
    const recordings = join(gw.dataDir, 'recordings');
    const withFiles = seed({ audio: true });
    const keepFiles = seed({ audio: true });
    const fileOf = (id: string) => join(recordings, `${id}.wav`);
    assert.ok(existsSync(fileOf(withFiles)) && existsSync(fileOf(keepFiles)));
    assert.equal(readFileSync(fileOf(withFiles)).subarray(0, 4).toString('ascii'), 'RIFF');

    const removed = await api().delete(`/v1/meetings/${withFiles}?delete_files=true`).set('Authorization', auth);
    assert.deepEqual(removed.body, { id: withFiles, deleted: true, files_deleted: true });
    assert.equal(existsSync(fileOf(withFiles)), false);

    const kept = await api().delete(`/v1/meetings/${keepFiles}?delete_files=false`).set('Authorization', auth);
    assert.deepEqual(kept.body, { id: keepFiles, deleted: true, files_deleted: false });
    assert.equal(existsSync(fileOf(keepFiles)), true);
  });

  test('delete_files=true with the file already gone still deletes the meeting', async () => {
    const id = seed({ audio: true });
    const path = gw.deps.media.audio({ recording: gw.deps.meetings.recording(id)! })?.path ?? null;
    assert.ok(path !== null);
    rmSync(path);
    const res = await api().delete(`/v1/meetings/${id}?delete_files=true`).set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id, deleted: true, files_deleted: false });
  });

  test('delete_files must be a boolean', async () => {
    const id = seed();
    const res = await api().delete(`/v1/meetings/${id}?delete_files=maybe`).set('Authorization', auth);
    assert.equal(res.status, 422);
    const still = await api().get(`/v1/meetings/${id}`).set('Authorization', auth);
    assert.equal(still.status, 200);
  });
});

describe('GET /v1/meetings/{id}/transcript', () => {
  test('segments in order with speaker names from labels, words, and the speaker list', async () => {
    const id = seed();
    await api()
      .put(`/v1/meetings/${id}/speaker-labels`)
      .set('Authorization', auth)
      .send({ labels: { S1: 'Alice' } });
    const res = await api().get(`/v1/meetings/${id}/transcript`).set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.equal(res.body.meeting_id, id);
    assert.equal(res.body.title, 'Weekly sync');
    assert.deepEqual(res.body.segments[0], {
      index: 0,
      speaker: 'S1',
      speaker_name: 'Alice',
      start: 0,
      end: 2.4,
      text: 'Good morning.',
      words: [
        { text: 'Good', start: 0, end: 0.3, confidence: 0.9 },
        { text: 'morning.', start: 0.3, end: 0.9 },
      ],
    });
    assert.deepEqual(
      res.body.segments.map((s: { index: number; text: string }) => [s.index, s.text]),
      [
        [0, 'Good morning.'],
        [1, 'Morning! Budget first.'],
        [2, 'Sure.'],
      ],
    );
    assert.deepEqual(res.body.segments[1].words, []);
    assert.equal(res.body.segments[1].speaker_name, null);
    assert.deepEqual(res.body.speakers, [
      { key: 'S1', name: 'Alice', label_source: 'user' },
      { key: 'S2', name: null, label_source: null },
    ]);
  });

  test('an empty transcript and an unknown meeting', async () => {
    const id = seed({ segments: [] });
    const res = await api().get(`/v1/meetings/${id}/transcript`).set('Authorization', auth);
    assert.deepEqual(res.body, { meeting_id: id, title: 'Weekly sync', proposed_names: [], segments: [], speakers: [] });
    const missing = await api().get(`/v1/meetings/${UNKNOWN}/transcript`).set('Authorization', auth);
    assert.equal(missing.status, 404);
  });
});

describe('summary', () => {
  test('a meeting without a summary reads as status none, dated by the meeting', async () => {
    const id = seed({ summary: null });
    const res = await api().get(`/v1/meetings/${id}/summary`).set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      meeting_id: id,
      status: 'none',
      result: null,
      regeneration_failed: false,
      error: null,
      updated_at: '2026-11-20T09:00:00.000Z',
    });
  });

  test('a fixture summary reads as a ready, generated summary', async () => {
    const id = seed();
    const res = await api().get(`/v1/meetings/${id}/summary`).set('Authorization', auth);
    assert.equal(res.body.status, 'ready');
    assert.deepEqual(res.body.result, {
      text: 'Short summary.',
      sections: [],
      template_id: 'daily_standup',
      model: null,
      source: 'generated',
    });
  });

  test('PUT replaces the summary by the text, marked manual, and later reads agree', async () => {
    for (const summary of [null, { text: 'old' }]) {
      const id = seed({ summary });
      const res = await api().put(`/v1/meetings/${id}/summary`).set('Authorization', auth).send({ text: 'Decisions:\n- ship it' });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'ready');
      assert.deepEqual(res.body.result, { text: 'Decisions:\n- ship it', sections: [], template_id: null, model: null, source: 'manual' });
      assert.equal(res.body.regeneration_failed, false);
      assert.equal(res.body.error, null);
      const read = await api().get(`/v1/meetings/${id}/summary`).set('Authorization', auth);
      assert.deepEqual(read.body, res.body);
    }
  });

  test('PUT without text, with a wrong type, or for an unknown meeting is refused', async () => {
    const id = seed();
    for (const body of [{}, { text: 5 }, { text: 'x', more: true }]) {
      const res = await api().put(`/v1/meetings/${id}/summary`).set('Authorization', auth).send(body);
      assert.equal(res.status, 422, JSON.stringify(body));
    }
    const missing = await api().put(`/v1/meetings/${UNKNOWN}/summary`).set('Authorization', auth).send({ text: 'x' });
    assert.equal(missing.status, 404);
    const get = await api().get(`/v1/meetings/${UNKNOWN}/summary`).set('Authorization', auth);
    assert.equal(get.status, 404);
  });
});

describe('PUT /v1/meetings/{id}/speaker-labels', () => {
  test('labels merge across calls, null removes one, any key is accepted', async () => {
    const id = seed();
    const put = (labels: Record<string, string | null>) =>
      api().put(`/v1/meetings/${id}/speaker-labels`).set('Authorization', auth).send({ labels });
    const first = await put({ S1: 'Alice', S2: 'Bob' });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { meeting_id: id, labels: { S1: 'Alice', S2: 'Bob' } });
    const second = await put({ S2: null, S9: 'Carol' });
    assert.deepEqual(second.body.labels, { S1: 'Alice', S9: 'Carol' });
    const renamed = await put({ S1: 'Alicia' });
    assert.deepEqual(renamed.body.labels, { S1: 'Alicia', S9: 'Carol' });
    const removeMissing = await put({ S7: null });
    assert.deepEqual(removeMissing.body.labels, { S1: 'Alicia', S9: 'Carol' });
    const transcript = await api().get(`/v1/meetings/${id}/transcript`).set('Authorization', auth);
    assert.deepEqual(transcript.body.speakers, [
      { key: 'S1', name: 'Alicia', label_source: 'user' },
      { key: 'S2', name: null, label_source: null },
    ]);
  });

  test('keys that name Object.prototype members are ordinary keys; __proto__ never pollutes', async () => {
    const id = seed({ segments: [{ speaker: 'constructor', start: 0, end: 1, text: 'x' }] });
    const res = await api()
      .put(`/v1/meetings/${id}/speaker-labels`)
      .set('Authorization', auth)
      .set('Content-Type', 'application/json')
      .send('{"labels":{"__proto__":"Proto","constructor":"Builder","toString":null}}');
    assert.equal(res.status, 200);
    // zod's record parser drops a "__proto__" key before the handler sees it.
    assert.equal(res.text, `{"meeting_id":"${id}","labels":{"constructor":"Builder"}}`);
    assert.equal(({} as Record<string, unknown>).Proto, undefined);
    const transcript = await api().get(`/v1/meetings/${id}/transcript`).set('Authorization', auth);
    assert.equal(transcript.body.segments[0].speaker_name, 'Builder');
  });

  test('missing labels, wrong types and an unknown meeting are refused', async () => {
    const id = seed();
    for (const body of [{}, { labels: 'Alice' }, { labels: { S1: 3 } }, { labels: { S1: '' } }, { labels: { S1: 'a\nb' } }]) {
      const res = await api().put(`/v1/meetings/${id}/speaker-labels`).set('Authorization', auth).send(body);
      assert.equal(res.status, 422, JSON.stringify(body));
    }
    const missing = await api()
      .put(`/v1/meetings/${UNKNOWN}/speaker-labels`)
      .set('Authorization', auth)
      .send({ labels: { S1: 'A' } });
    assert.equal(missing.status, 404);
  });
});

describe('GET /v1/meetings/{id}/export', () => {
  test('json (the default) holds meeting, transcript and summary', async () => {
    const id = seed();
    const res = await api().get(`/v1/meetings/${id}/export`).set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(res.body).sort(), ['meeting', 'summary', 'transcript']);
    assert.equal(res.body.meeting.id, id);
    assert.equal(res.body.transcript.segments.length, 3);
    assert.equal(res.body.summary.status, 'ready');
    const explicit = await api().get(`/v1/meetings/${id}/export?format=json`).set('Authorization', auth);
    assert.deepEqual(explicit.body, res.body);
  });

  test('json summary is null for a meeting without one', async () => {
    const id = seed({ summary: null });
    const res = await api().get(`/v1/meetings/${id}/export`).set('Authorization', auth);
    assert.equal(res.body.summary, null);
  });

  test('md renders a readable document; markdown is the same', async () => {
    const id = seed({ title: '# x *y*' });
    await api()
      .put(`/v1/meetings/${id}/speaker-labels`)
      .set('Authorization', auth)
      .send({ labels: { S1: 'Alice' } });
    const res = await api().get(`/v1/meetings/${id}/export?format=md`).set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/markdown; charset=utf-8');
    assert.match(res.headers['content-disposition'] ?? '', /^inline; filename="x _y\.md"; filename\*=UTF-8''/);
    const md = res.text;
    assert.ok(md.startsWith('# \\# x \\*y\\*\n'), md);
    assert.match(md, /\*\*Date:\*\* 2026-11-20 09:00 UTC · \*\*Duration:\*\* 01:01:10/);
    assert.match(md, /## Summary\n\nShort summary\.\n/);
    assert.match(md, /\*\*\[00:00:00\] Alice:\*\* Good morning\./);
    assert.match(md, /\*\*\[00:00:02\] S2:\*\* Morning! Budget first\./);
    assert.match(md, /\*\*\[01:01:01\] Alice:\*\* Sure\./);
    const alias = await api().get(`/v1/meetings/${id}/export?format=markdown`).set('Authorization', auth);
    assert.equal(alias.text, md);
    assert.equal(alias.headers['content-type'], res.headers['content-type']);
  });

  test('txt renders plain text; text is the same', async () => {
    const id = seed({ summary: null });
    const res = await api().get(`/v1/meetings/${id}/export?format=txt`).set('Authorization', auth);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.match(res.headers['content-disposition'] ?? '', /^inline; filename="Weekly sync\.txt"/);
    assert.ok(res.text.startsWith('Weekly sync\n===========\n'), res.text);
    assert.match(res.text, /\[00:00:00\] S1: Good morning\.\n/);
    assert.doesNotMatch(res.text, /SUMMARY/);
    const alias = await api().get(`/v1/meetings/${id}/export?format=text`).set('Authorization', auth);
    assert.equal(alias.text, res.text);
  });

  test('an unknown format is 422; an unknown meeting 404', async () => {
    const id = seed();
    const bad = await api().get(`/v1/meetings/${id}/export?format=pdf`).set('Authorization', auth);
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, 'invalid_request');
    const missing = await api().get(`/v1/meetings/${UNKNOWN}/export?format=md`).set('Authorization', auth);
    assert.equal(missing.status, 404);
  });
});

test('no request above ended in an unexpected failure', () => {
  assert.deepEqual(gw.errors, []);
});
