import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepDataFolder } from './data-sweep.ts';

test('the sweep removes temporary and unreferenced files and keeps the referenced ones', () => {
  const root = mkdtempSync(join(tmpdir(), 'mas-sweep-'));
  try {
    const uploads = join(root, 'uploads');
    const recordings = join(root, 'recordings');
    mkdirSync(uploads);
    mkdirSync(recordings);
    for (const f of ['job_a.wav', '.partial-123', 'job_orphan.mp3']) writeFileSync(join(uploads, f), 'x');
    for (const f of ['m1.wav', '.tmp-abc.wav', 'm-gone.wav']) writeFileSync(join(recordings, f), 'x');
    const result = sweepDataFolder({
      uploadsDir: uploads,
      recordingsDir: recordings,
      referencedUploads: new Set(['job_a.wav']),
      referencedRecordings: new Set(['m1.wav']),
    });
    assert.deepEqual(readdirSync(uploads), ['job_a.wav']);
    assert.deepEqual(readdirSync(recordings), ['m1.wav']);
    assert.equal(result.removed.length, 4);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a missing folder is nothing to sweep', () => {
  const result = sweepDataFolder({
    uploadsDir: '/nonexistent/a',
    recordingsDir: '/nonexistent/b',
    referencedUploads: new Set(),
    referencedRecordings: new Set(),
  });
  assert.deepEqual(result.removed, []);
});
