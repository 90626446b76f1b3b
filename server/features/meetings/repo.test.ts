/**
 * The meetings store below HTTP: MeetingsRepo's SQL and the storage rules of
 * MeetingsService (fixture seeding all-or-nothing, reverse segment insertion,
 * recording files kept inside their folder, reset).
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MeetingsService, type MeetingSeed } from './service.ts';
import { openDatabase, type Database } from '../../kernel/store/database.ts';
import { MeetingsRepo } from './repo.ts';
import { EventBus } from '../../kernel/events.ts';
import { MediaStore } from '../../media/media-store.ts';

let db: Database;
let root: string;
let recordings: string;
let service: MeetingsService;
let media: MediaStore;
let now = new Date('2026-12-01T12:00:00.000Z');

const baseSeed: MeetingSeed = {
  title: 'Seeded',
  created_at: '2026-11-20T09:00:00+01:00',
  segments: [
    { speaker: 'S1', start: 0, end: 1, text: 'first' },
    { speaker: 'S2', start: 1, end: 2, text: 'second' },
    { speaker: 'S1', start: 2, end: 3.5, text: 'third' },
  ],
  summary: { text: 'sum' },
  audio: true,
};

beforeEach(() => {
  db = openDatabase(':memory:');
  root = mkdtempSync(join(tmpdir(), 'mas-repo-'));
  recordings = join(root, 'recordings');
  mkdirSync(recordings);
  now = new Date('2026-12-01T12:00:00.000Z');
  const clock = { now: () => now };
  media = new MediaStore({ dataDir: root });
  service = new MeetingsService({ db, clock, bus: new EventBus(clock), media });
});

afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('MeetingsService.create', () => {
  test('stores meeting, segments, summary and a WAV file; created_at is normalised to UTC', () => {
    const m = service.create(baseSeed);
    assert.equal(m.created_at, '2026-11-20T08:00:00.000Z');
    assert.equal(m.updated_at, m.created_at);
    assert.equal(m.source, 'fixture');
    assert.equal(m.duration_seconds, 3.5);
    assert.equal(m.has_recording, true);
    assert.deepEqual(readdirSync(recordings), [`${m.id}.wav`]);
    assert.equal(service.summary(m.id).status, 'ready');
    assert.equal(service.transcript(m.id).segments.length, 3);
  });

  test('segments are inserted last-first: a higher segment id is an earlier segment', () => {
    const m = service.create(baseSeed);
    const rows = db.prepare('SELECT id, idx FROM segments WHERE meeting_id = ? ORDER BY id DESC').all(m.id) as { idx: number }[];
    assert.deepEqual(
      rows.map((r) => r.idx),
      [0, 1, 2],
    );
  });

  test('a failing seed leaves neither rows nor files behind', () => {
    const bad = { ...baseSeed, segments: [{ speaker: null as unknown as string, start: 0, end: 1, text: 'x' }] };
    assert.throws(() => service.create(bad));
    assert.deepEqual(readdirSync(recordings), []);
    assert.equal(new MeetingsRepo(db).count(), 0);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM titles_fts').get() as { n: number }).n, 0);
  });

  test('an unreadable created_at is refused', () => {
    assert.throws(() => service.create({ ...baseSeed, created_at: 'yesterday' }), /created_at/);
    assert.deepEqual(readdirSync(recordings), []);
  });

  test('without audio no file is written; without summary the status is none', () => {
    const m = service.create({ ...baseSeed, audio: false, summary: null, segments: [] });
    assert.equal(m.has_recording, false);
    assert.equal(m.duration_seconds, null);
    assert.deepEqual(readdirSync(recordings), []);
    assert.equal(service.recording(m.id), null);
    assert.deepEqual(service.summary(m.id), {
      meeting_id: m.id,
      status: 'none',
      result: null,
      regeneration_failed: false,
      error: null,
      updated_at: m.updated_at,
    });
  });
});

describe('recording files stay inside the recordings folder', () => {
  test('a stored name that points outside is never touched', () => {
    const outside = join(root, 'precious.wav');
    writeFileSync(outside, 'keep me');
    for (const [i, name] of ['../precious.wav', `${root}/precious.wav`, '..', '.hidden', 'a/b.wav'].entries()) {
      const id = `evil-${i}`;
      db.prepare(
        `INSERT INTO meetings (id, title, created_at, updated_at, source, recording_file)
         VALUES (?, 't', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'fixture', ?)`,
      ).run(id, name);
      assert.equal(media.audio({ recording: name }), null, name);
      assert.deepEqual(service.delete(id, { deleteFiles: true }), { filesDeleted: false });
      assert.ok(existsSync(outside), name);
    }
  });
});

describe('changes', () => {
  test('rename moves updated_at to now and keeps created_at', () => {
    const m = service.create(baseSeed);
    const renamed = service.rename(m.id, 'New name');
    assert.equal(renamed.title, 'New name');
    assert.equal(renamed.updated_at, now.toISOString());
    assert.equal(renamed.created_at, m.created_at);
  });

  test('an unknown id is not_found for every operation', () => {
    const calls: (() => unknown)[] = [
      () => service.get('x'),
      () => service.rename('x', 't'),
      () => service.delete('x', { deleteFiles: true }),
      () => service.transcript('x'),
      () => service.summary('x'),
      () => service.overwriteSummary('x', 't'),
      () => service.setSpeakerLabels('x', { S1: 'A' }),
      () => service.exportData('x'),
      () => service.storeSummary('x', { status: 'generating', result: null, regeneration_failed: false, error: null }),
    ];
    for (const call of calls) assert.throws(call, (err: { code?: string }) => err.code === 'not_found');
  });

  test('storeSummary keeps what the generator reports', () => {
    const m = service.create(baseSeed);
    const previous = service.summary(m.id).result;
    const failed = service.storeSummary(m.id, { status: 'failed', result: previous, regeneration_failed: true, error: 'model crashed' });
    assert.deepEqual(service.summary(m.id), failed);
    assert.equal(failed.regeneration_failed, true);
    assert.deepEqual(failed.result, previous);
    assert.equal(failed.updated_at, now.toISOString());
  });

  test('labels: set, replace and remove in one call each; the map comes back sorted by key', () => {
    const m = service.create(baseSeed);
    assert.deepEqual(service.setSpeakerLabels(m.id, { S2: 'Bob', S1: 'Alice' }).labels, { S1: 'Alice', S2: 'Bob' });
    assert.deepEqual(service.setSpeakerLabels(m.id, { S1: null, S2: 'Robert' }).labels, { S2: 'Robert' });
  });

  test('a failing label update changes nothing (one transaction)', () => {
    const m = service.create(baseSeed);
    service.setSpeakerLabels(m.id, { S1: 'Alice' });
    assert.throws(() => service.setSpeakerLabels(m.id, { S2: 'Bob', S3: null, S4: 5 as unknown as string, S5: {} as unknown as string }));
    assert.deepEqual(service.setSpeakerLabels(m.id, {}).labels, { S1: 'Alice' });
  });
});

describe('deleteAll', () => {
  test('removes every meeting, their rows, index entries and every file in the folder', () => {
    service.create(baseSeed);
    service.create({ ...baseSeed, title: 'Second' });
    writeFileSync(join(recordings, 'stray.tmp'), 'x');
    service.deleteAll();
    assert.deepEqual(readdirSync(recordings), []);
    for (const table of ['meetings', 'segments', 'speaker_labels', 'summaries']) {
      assert.equal((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n, 0, table);
    }
    assert.equal((db.prepare(`SELECT COUNT(*) AS n FROM segments_fts WHERE segments_fts MATCH '"first"'`).get() as { n: number }).n, 0);
    assert.equal((db.prepare(`SELECT COUNT(*) AS n FROM titles_fts WHERE titles_fts MATCH '"seeded"'`).get() as { n: number }).n, 0);
    assert.deepEqual(service.list({ limit: 50, offset: 0 }), { meetings: [], total: 0 });
  });
});

describe('MeetingsRepo', () => {
  test('page orders by created_at then id, both descending', () => {
    const repo = new MeetingsRepo(db);
    for (const [id, at] of [
      ['b', '2026-01-01T00:00:00.000Z'],
      ['a', '2026-01-01T00:00:00.000Z'],
      ['c', '2025-01-01T00:00:00.000Z'],
      ['d', '2027-01-01T00:00:00.000Z'],
    ] as const) {
      repo.insert({
        id,
        title: id,
        created_at: at,
        updated_at: at,
        source: 'fixture',
        language: null,
        duration_seconds: null,
        recording_file: null,
      });
    }
    assert.deepEqual(
      repo.page(10, 0).map((r) => r.id),
      ['d', 'b', 'a', 'c'],
    );
    assert.deepEqual(
      repo.page(2, 1).map((r) => r.id),
      ['b', 'a'],
    );
    assert.equal(repo.count(), 4);
  });

  test('a stored duration wins over the last segment end', () => {
    const repo = new MeetingsRepo(db);
    repo.insert({
      id: 'm',
      title: 't',
      created_at: 'x',
      updated_at: 'x',
      source: 'recording',
      language: 'de',
      duration_seconds: 99,
      recording_file: null,
    });
    repo.insertSegment('m', { idx: 0, speaker: 'S1', start_s: 0, end_s: 5, text: 'hi', words: null });
    assert.equal(repo.get('m')?.duration_seconds, 99);
  });

  test('delete returns the recording file name, then undefined', () => {
    const repo = new MeetingsRepo(db);
    repo.insert({
      id: 'm',
      title: 't',
      created_at: 'x',
      updated_at: 'x',
      source: 'recording',
      language: null,
      duration_seconds: null,
      recording_file: 'm.wav',
    });
    assert.deepEqual({ ...repo.delete('m') }, { recording_file: 'm.wav' });
    assert.equal(repo.delete('m'), undefined);
  });
});
