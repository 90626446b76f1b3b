/**
 * Receives the raw body of POST /v1/jobs/import into the data folder as it
 * arrives: never held in memory, counted against the import budget, written
 * under a temporary name and renamed only when complete. A refused or broken
 * upload leaves no file behind and releases its place in the budget.
 */
import { randomUUID } from 'node:crypto';
import * as nodeFs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, DISK_FULL_MESSAGE, isDiskFull } from '../../../kernel/errors.ts';
import type { ImportExtension } from '../../../pipeline/types.ts';
import type { ImportBudget } from './budget.ts';
import { requestLimitsOf } from '../../../kernel/http/connection-limits.ts';

export interface ReceivedUpload {
  /** File name inside the uploads folder. */
  file: string;
  bytes: number;
}

/** Thrown when the client went away mid-upload: there is nobody to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client disconnected during the upload');
    this.name = 'ClientGoneError';
  }
}

/**
 * The file-system calls staging an upload makes: node:fs in the gateway; an
 * in-memory file system (memfs) in the unit tests of what is left behind.
 */
export type UploadFs = Pick<typeof nodeFs, 'createWriteStream' | 'mkdirSync' | 'renameSync' | 'rmSync'>;

export async function receiveUpload(
  req: IncomingMessage,
  opts: { uploadsDir: string; jobId: string; ext: ImportExtension; budget: ImportBudget; fs?: UploadFs },
): Promise<ReceivedUpload> {
  const { createWriteStream, mkdirSync, renameSync, rmSync } = opts.fs ?? nodeFs;
  const lengthHeader = req.headers['content-length'];
  const declared = lengthHeader === undefined ? null : Number(lengthHeader);
  if (declared !== null && !Number.isSafeInteger(declared)) throw new ApiError('bad_request', 'Content-Length is not a number');

  // Throws 413 / 429 before a single byte is read.
  const reservation = opts.budget.reserve(opts.ext, declared);
  mkdirSync(opts.uploadsDir, { recursive: true, mode: 0o700 });
  const limits = requestLimitsOf(req); // the listener's limits (CONNECTION_DEFAULTS in kernel/http/connection-limits.ts): an upload idle for uploadIdleMs is given up, so it cannot hold its budget place forever
  req.setTimeout(limits.uploadIdleMs, () => req.destroy());
  const partial = join(opts.uploadsDir, `.partial-${randomUUID()}`);
  const final = `${opts.jobId}.${opts.ext}`;
  // Set by the counter when it refuses the upload; an object, so the catch below sees the write.
  const state: { bytes: number; refusal: ApiError | null } = { bytes: 0, refusal: null };

  const counter = new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      try {
        reservation.grow(chunk.length);
        state.bytes += chunk.length;
        if (state.bytes > opts.budget.limits.maxFileBytes) {
          throw new ApiError('payload_too_large', `an imported file may be at most ${opts.budget.limits.maxFileBytes} bytes`);
        }
        done(null, chunk);
      } catch (err) {
        state.refusal = err instanceof ApiError ? err : new ApiError('internal', 'the upload could not be counted');
        done(state.refusal);
      }
    },
  });

  // The minimum rate: each full window must bring enough bytes, or the upload is given up like a stalled one.
  let bytesAtWindowStart = 0;
  const rateCheck = setInterval(() => {
    if (state.bytes - bytesAtWindowStart < limits.uploadMinBytesPerWindow) req.destroy();
    bytesAtWindowStart = state.bytes;
  }, limits.uploadIdleMs);
  rateCheck.unref();

  try {
    await pipeline(req, counter, createWriteStream(partial, { mode: 0o600 }));
    if (declared !== null && state.bytes !== declared) throw new ClientGoneError();
    renameSync(partial, join(opts.uploadsDir, final));
    return { file: final, bytes: state.bytes };
  } catch (err) {
    rmSync(partial, { force: true });
    // A full disk is not the client leaving (the failed write destroys the request stream too): answer 503.
    if (isDiskFull(err)) throw new ApiError('service_unavailable', DISK_FULL_MESSAGE, { Connection: 'close' });
    if (state.refusal !== null) {
      // The rest of the body is not wanted: answer, then close the connection.
      const { code, message, headers } = state.refusal;
      throw new ApiError(code, message, { ...headers, Connection: 'close' });
    }
    if (err instanceof ClientGoneError || req.destroyed || (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') {
      throw new ClientGoneError();
    }
    throw err;
  } finally {
    clearInterval(rateCheck);
    reservation.release();
  }
}
