/**
 * The media store on a real temporary data folder: the layout existing data
 * folders have, a recording handed over around a commit that succeeds, one
 * that fails and the moments a kill can strike in between, captures and
 * pending marks, the sweep, and names that would leave the store's folders.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaStore } from './media-store.ts';

function withStore(run: (store: MediaStore, dir: string) => void | Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-media-'));
    try {
      await run(new MediaStore({ dataDir: dir }), dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  'an upload is staged, committed under <owner>.<ext> in uploads/, and read by the decoder by id',
  withStore(async (store, dir) => {
    const staged = store.stageUpload('job_1', 'mp3');
    await new Promise<void>((resolve, reject) => staged.stream.end(Buffer.from('bytes'), () => resolve()).on('error', reject));
    assert.equal(staged.commit(), 'job_1.mp3');
    assert.deepEqual(readdirSync(join(dir, 'uploads')), ['job_1.mp3']);
    assert.equal(store.hasUpload('job_1.mp3'), true);
    assert.deepEqual(store.audio({ upload: 'job_1.mp3' }), { path: join(dir, 'uploads', 'job_1.mp3'), ext: 'mp3' });
    store.removeUpload('job_1.mp3');
    assert.equal(store.hasUpload('job_1.mp3'), false);
  }),
);

test(
  'an upload handed over to a meeting: linked inside the commit, the upload released after it',
  withStore((store, dir) => {
    writeFileSync(join(dir, 'uploads', 'job_2.wav'), 'audio');
    const handover = store.handOver({ upload: 'job_2.wav' }, 'm1');
    assert.equal(handover.id, 'm1.wav');
    handover.place();
    // A kill here: both names exist; the next start sweeps whichever no row names, and the bytes survive either way.
    assert.equal(existsSync(join(dir, 'uploads', 'job_2.wav')), true);
    assert.equal(readFileSync(join(dir, 'recordings', 'm1.wav'), 'utf8'), 'audio');
    handover.settle();
    assert.deepEqual(readdirSync(join(dir, 'uploads')), []);
    assert.deepEqual(readdirSync(join(dir, 'recordings')), ['m1.wav']);
  }),
);

test(
  'a commit that fails leaves the upload where it was and no recording',
  withStore((store, dir) => {
    writeFileSync(join(dir, 'uploads', 'job_3.wav'), 'audio');
    const handover = store.handOver({ upload: 'job_3.wav' }, 'm2');
    handover.place();
    handover.undo();
    assert.deepEqual(readdirSync(join(dir, 'uploads')), ['job_3.wav']);
    assert.deepEqual(readdirSync(join(dir, 'recordings')), []);
  }),
);

test(
  'a capture keeps being written after it became a meeting recording; pending marks list their meetings',
  withStore((store, dir) => {
    const capture = store.beginCapture('rec_1');
    capture.writer.append(new Int16Array(16_000));
    const handover = store.handOver({ capture: capture.id }, 'm3');
    handover.place();
    handover.settle();
    capture.writer.append(new Int16Array(16_000));
    capture.writer.close();
    assert.deepEqual(readdirSync(join(dir, 'recordings')), ['m3.wav']);
    assert.equal(readFileSync(join(dir, 'recordings', 'm3.wav')).length, 44 + 2 * 32_000, 'the second second landed in the recording');
    store.markPending('m3', 'rec_1');
    assert.deepEqual(store.pendingMeetings(), ['m3']);
    store.clearPending('m3');
    assert.deepEqual(store.pendingMeetings(), []);
  }),
);

test(
  'a generated tone becomes a recording only with its commit; stale captures and orphans are swept, pending marks kept',
  withStore((store, dir) => {
    const tone = store.handOver({ tone: true }, 'm4');
    tone.undo();
    assert.deepEqual(readdirSync(join(dir, 'recordings')), []);
    const kept = store.handOver({ tone: true }, 'm5');
    kept.place();
    store.beginCapture('rec_2').writer.close();
    store.discardStaleCaptures();
    store.markPending('m5', 'rec_3');
    writeFileSync(join(dir, 'recordings', 'm-gone.wav'), 'x');
    writeFileSync(join(dir, 'uploads', '.partial-1'), 'x');
    writeFileSync(join(dir, 'uploads', 'job_4.wav'), 'x');
    const removed = store.sweep({ uploads: new Set(['job_4.wav']), recordings: new Set(['m5.wav']) });
    assert.deepEqual(removed.sort(), ['recordings/m-gone.wav', 'uploads/.partial-1']);
    assert.deepEqual(readdirSync(join(dir, 'recordings')).sort(), ['.pending-m5', 'm5.wav']);
    store.removeAllUploads();
    assert.deepEqual(store.sweep({ uploads: new Set(), recordings: new Set(['m5.wav']) }), [], 'a missing folder is nothing to sweep');
  }),
);

test(
  'a stored name that points outside the store is never resolved nor removed',
  withStore((store, dir) => {
    const outside = join(dir, 'precious.wav');
    writeFileSync(outside, 'keep me');
    for (const name of ['../precious.wav', outside, '..', '.hidden', 'a/b.wav']) {
      assert.equal(store.audio({ recording: name }), null, name);
      assert.equal(store.audio({ upload: name }), null, name);
      assert.equal(store.removeRecording(name), false, name);
      store.removeUpload(name);
    }
    assert.equal(existsSync(outside), true);
    assert.throws(() => store.handOver({ upload: '../precious.wav' }, 'm6'), /not a file of the media store/);
    assert.throws(() => store.stageUpload('../job', 'wav'), /owner id/);
  }),
);
