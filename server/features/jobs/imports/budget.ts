/**
 * The shared import budget of API.md's Limits: all uploads in flight
 * together may hold at most 20 GB, 3 uploads, and an estimated 4 GB of
 * decoded audio. A new import that would pass any of them is refused with
 * 429 import_budget_full and a Retry-After header; one file above 2 GB is
 * 413 payload_too_large.
 *
 * The decoded-memory estimate (docs/decisions/012-jobs.md): the pipeline
 * holds 16 kHz mono float32 audio, 64 kB per second. How many seconds a file
 * holds is estimated from its size and the lowest bitrate its format is
 * commonly written at, so the estimate errs on the large side:
 *   wav 256 kbit/s (16 kHz 16-bit mono PCM) → ×2
 *   flac 128 kbit/s → ×4
 *   mp3, m4a, aac, ogg, wma 64 kbit/s → ×8
 *   mp4, mkv, webm (video dominates the size) 256 kbit/s → ×2
 * An upload without a Content-Length reserves as its bytes arrive.
 */
import { ApiError } from '../../../kernel/errors.ts';
import type { ImportExtension } from '../../../pipeline/types.ts';

export interface ImportLimits {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxConcurrent: number;
  maxDecodedBytes: number;
  /** Seconds suggested in Retry-After. */
  retryAfterSeconds: number;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxFileBytes: 2_000_000_000,
  maxTotalBytes: 20_000_000_000,
  maxConcurrent: 3,
  maxDecodedBytes: 4_000_000_000,
  retryAfterSeconds: 30,
};

const DECODED_BYTES_PER_FILE_BYTE: Record<ImportExtension, number> = {
  wav: 2,
  flac: 4,
  mp3: 8,
  m4a: 8,
  aac: 8,
  ogg: 8,
  wma: 8,
  mp4: 2,
  mkv: 2,
  webm: 2,
};

export interface Reservation {
  /** Adds bytes that arrived (for uploads without a declared length); throws when the budget is passed. */
  grow(bytes: number): void;
  release(): void;
}

export class ImportBudget {
  readonly limits: ImportLimits;
  #uploads = 0;
  #bytes = 0;
  #decoded = 0;

  constructor(limits: ImportLimits = DEFAULT_IMPORT_LIMITS) {
    this.limits = limits;
  }

  /** What is held now, for tests and diagnostics. */
  get inFlight(): { uploads: number; bytes: number; decodedBytes: number } {
    return { uploads: this.#uploads, bytes: this.#bytes, decodedBytes: this.#decoded };
  }

  /**
   * Reserves a place for one upload of `declaredBytes` (null when the client
   * sent no Content-Length). Throws 413 or 429.
   */
  reserve(ext: ImportExtension, declaredBytes: number | null): Reservation {
    const factor = DECODED_BYTES_PER_FILE_BYTE[ext];
    if (declaredBytes !== null) this.#checkFileSize(declaredBytes, factor);
    if (this.#uploads + 1 > this.limits.maxConcurrent) this.#full(`${this.limits.maxConcurrent} imports are already uploading`);
    const initial = declaredBytes ?? 0;
    this.#checkRoom(initial, initial * factor);
    this.#uploads += 1;
    this.#bytes += initial;
    this.#decoded += initial * factor;

    let held = initial;
    let released = false;
    return {
      grow: (bytes) => {
        if (released || declaredBytes !== null) return;
        this.#checkFileSize(held + bytes, factor);
        this.#checkRoom(bytes, bytes * factor);
        held += bytes;
        this.#bytes += bytes;
        this.#decoded += bytes * factor;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#uploads -= 1;
        this.#bytes -= held;
        this.#decoded -= held * factor;
      },
    };
  }

  #checkFileSize(bytes: number, factor: number): void {
    if (bytes > this.limits.maxFileBytes) {
      throw new ApiError('payload_too_large', `an imported file may be at most ${this.limits.maxFileBytes} bytes`);
    }
    if (bytes * factor > this.limits.maxDecodedBytes) {
      // It could never fit, however long the client waits: 413, not 429.
      throw new ApiError('payload_too_large', 'the file would need more decoded memory than the import budget ever allows');
    }
  }

  #checkRoom(bytes: number, decoded: number): void {
    if (this.#bytes + bytes > this.limits.maxTotalBytes) this.#full('the imports in flight already hold the total byte budget');
    if (this.#decoded + decoded > this.limits.maxDecodedBytes) this.#full('the imports in flight already hold the decoded-memory budget');
  }

  #full(reason: string): never {
    throw new ApiError('import_budget_full', `${reason}; try again later`, { 'Retry-After': String(this.limits.retryAfterSeconds) });
  }
}
