/**
 * Staging an upload in the media store, on an in-memory file system (memfs): what is left in
 * uploads/ after an upload that succeeds, one the budget refuses halfway, one
 * whose client leaves, and one that meets a full disk. The HTTP side is a real
 * IncomingMessage fed by hand; the routes' own tests cover it over a socket.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { memfs } from 'memfs';
import { ApiError } from '../../../kernel/errors.ts';
import { DEFAULT_IMPORT_LIMITS, ImportBudget } from './budget.ts';
import { MediaStore, type MediaFs } from '../../../media/media-store.ts';
import { ClientGoneError, receiveUpload } from './upload.ts';

const UPLOADS = '/data/uploads';

/** A request whose body is `chunks`, with a Content-Length when `declared` is given. */
function upload(chunks: readonly Buffer[], declared?: number): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  if (declared !== undefined) req.headers['content-length'] = String(declared);
  for (const chunk of chunks) req.push(chunk);
  req.push(null);
  return req;
}

function disk(): { fs: MediaFs; names: () => string[]; mode: (path: string) => number } {
  const { fs } = memfs({ '/data': null });
  return {
    fs: fs as unknown as MediaFs,
    names: () => (fs.existsSync(UPLOADS) ? (fs.readdirSync(UPLOADS) as string[]).sort() : []),
    mode: (path) => fs.statSync(path).mode & 0o777,
  };
}

test('a complete upload lands as <job>.<ext>, owner-only, and no partial file is left', async () => {
  const d = disk();
  const budget = new ImportBudget();
  const body = Buffer.from('RIFF....WAVEfmt ');
  const got = await receiveUpload(upload([body.subarray(0, 5), body.subarray(5)], body.length), {
    media: new MediaStore({ dataDir: '/data', fs: d.fs }),
    jobId: 'job_1',
    ext: 'wav',
    budget,
  });
  assert.deepEqual(got, { file: 'job_1.wav', bytes: body.length });
  assert.deepEqual(d.names(), ['job_1.wav']);
  assert.equal(d.mode(UPLOADS), 0o700);
  assert.equal(d.mode(`${UPLOADS}/job_1.wav`), 0o600);
  assert.equal(budget.inFlight.uploads, 0, 'the budget place is given back');
});

test('an upload the size limit refuses halfway leaves nothing behind', async () => {
  const d = disk();
  const budget = new ImportBudget({ ...DEFAULT_IMPORT_LIMITS, maxFileBytes: 8 });
  // No Content-Length: the limit is found while counting, after the partial file exists.
  await assert.rejects(
    receiveUpload(upload([Buffer.alloc(6), Buffer.alloc(6)]), {
      media: new MediaStore({ dataDir: '/data', fs: d.fs }),
      jobId: 'job_2',
      ext: 'mp3',
      budget,
    }),
    (err) => err instanceof ApiError && err.code === 'payload_too_large',
  );
  assert.deepEqual(d.names(), []);
  assert.equal(budget.inFlight.uploads, 0);
});

test('a client that sends less than its Content-Length is gone: nothing is kept', async () => {
  const d = disk();
  const budget = new ImportBudget();
  await assert.rejects(
    receiveUpload(upload([Buffer.alloc(10)], 100), {
      media: new MediaStore({ dataDir: '/data', fs: d.fs }),
      jobId: 'job_3',
      ext: 'wav',
      budget,
    }),
    ClientGoneError,
  );
  assert.deepEqual(d.names(), []);
  assert.equal(budget.inFlight.uploads, 0);
});

test('a full disk is a 503, and the partial file written so far is removed', async () => {
  const d = disk();
  const budget = new ImportBudget();
  // The write stream fails with ENOSPC after the partial file was created, as a real full disk does.
  const full: MediaFs = {
    ...d.fs,
    createWriteStream: ((path: string, options?: Parameters<MediaFs['createWriteStream']>[1]) => {
      const stream = d.fs.createWriteStream(path, options);
      stream.write = (_chunk: unknown, _enc?: unknown, cb?: unknown) => {
        const error = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        stream.destroy(error);
        if (typeof cb === 'function') (cb as (e: Error) => void)(error);
        return false;
      };
      return stream;
    }) as MediaFs['createWriteStream'],
  };
  await assert.rejects(
    receiveUpload(upload([Buffer.alloc(10)], 10), {
      media: new MediaStore({ dataDir: '/data', fs: full }),
      jobId: 'job_4',
      ext: 'wav',
      budget,
    }),
    (err) => err instanceof ApiError && err.code === 'service_unavailable',
  );
  assert.deepEqual(d.names(), []);
  assert.equal(budget.inFlight.uploads, 0);
});
