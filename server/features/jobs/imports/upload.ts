/**
 * Receives the raw body of POST /v1/jobs/import into the media store as it
 * arrives: never held in memory, counted against the import budget, staged
 * by the store under a temporary name and committed only when complete. A
 * refused or broken upload leaves no file behind and releases its place in
 * the budget.
 */
import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, DISK_FULL_MESSAGE, isDiskFull } from '../../../kernel/errors.ts';
import type { ImportExtension } from '../../../pipeline/types.ts';
import type { ImportBudget } from './budget.ts';
import { requestLimitsOf } from '../../../kernel/http/connection-limits.ts';
import type { MediaStore, UploadId } from '../../../media/media-store.ts';

export interface ReceivedUpload {
  /** The upload's media id (the job's source_file). */
  file: UploadId;
  bytes: number;
}

/** Thrown when the client went away mid-upload: there is nobody to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client disconnected during the upload');
    this.name = 'ClientGoneError';
  }
}

export async function receiveUpload(
  req: IncomingMessage,
  opts: { media: Pick<MediaStore, 'stageUpload'>; jobId: string; ext: ImportExtension; budget: ImportBudget },
): Promise<ReceivedUpload> {
  const lengthHeader = req.headers['content-length'];
  const declared = lengthHeader === undefined ? null : Number(lengthHeader);
  if (declared !== null && !Number.isSafeInteger(declared)) throw new ApiError('bad_request', 'Content-Length is not a number');

  // Throws 413 / 429 before a single byte is read.
  const reservation = opts.budget.reserve(opts.ext, declared);
  let staged;
  try {
    staged = opts.media.stageUpload(opts.jobId, opts.ext);
  } catch (err) {
    reservation.release();
    throw err;
  }
  const limits = requestLimitsOf(req); // the listener's limits (CONNECTION_DEFAULTS in kernel/http/connection-limits.ts): an upload idle for uploadIdleMs is given up, so it cannot hold its budget place forever
  req.setTimeout(limits.uploadIdleMs, () => req.destroy());
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
    await pipeline(req, counter, staged.stream);
    if (declared !== null && state.bytes !== declared) throw new ClientGoneError();
    return { file: staged.commit(), bytes: state.bytes };
  } catch (err) {
    staged.discard();
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
