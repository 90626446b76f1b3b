/**
 * The voiceprints' storage (decision 147): in the owner-only database file,
 * summed per person over their meetings, a meeting labelled again replacing
 * its share, names left out of known_speakers deleted, a damaged row skipped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../kernel/store/database.ts';
import { emptyStats } from '../../pipeline/diarize/features.ts';
import { toVoiceprint } from '../../pipeline/voiceprint.ts';
import { VoiceprintRepo } from './repo.ts';

function print(n: number) {
  const s = emptyStats();
  s.n = n;
  s.sum[0] = n / 2;
  return toVoiceprint(s);
}

test('voiceprints live in the owner-only database file and add up per person', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mas-voiceprints-'));
  const file = join(dir, 'mas.db');
  const db = openDatabase(file);
  try {
    const repo = new VoiceprintRepo(db);
    repo.enrol('Fiona', 'm1', print(400), '2026-01-01T00:00:00.000Z');
    repo.enrol('Fiona', 'm2', print(600), '2026-01-02T00:00:00.000Z');
    repo.enrol('Fiona', 'm2', print(500), '2026-01-03T00:00:00.000Z'); // m2 labelled again: replaces its share
    repo.enrol('Omar', 'm1', print(300), '2026-01-04T00:00:00.000Z');
    assert.deepEqual(repo.names(), ['Fiona', 'Omar']);
    assert.deepEqual(
      repo.voiceprints().map((v) => [v.name, v.print.n, v.meetings]),
      [
        ['Fiona', 900, 2],
        ['Omar', 300, 1],
      ],
    );
    assert.equal(statSync(file).mode & 0o777, 0o600);

    // A damaged row is skipped, not thrown.
    db.prepare("INSERT INTO voiceprint_enrolments (name, meeting_id, stats, enrolled_at) VALUES ('Zed', 'm9', '{', 'x')").run();
    assert.deepEqual(
      repo.voiceprints().map((v) => v.name),
      ['Fiona', 'Omar'],
    );

    repo.keepOnly(['Omar']);
    assert.deepEqual(repo.names(), ['Omar']);
    repo.deleteAll();
    assert.deepEqual(repo.names(), []);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
