/**
 * The media store: the one owner of the data folder's audio. It alone knows
 * where uploaded and recorded audio lives; the features hold media ids (the
 * names the database stores: a job's source_file, a meeting's
 * recording_file) and hand them over, never paths (decision 125).
 *
 *   <data>/uploads/<job id>.<ext>             an import's upload (an UploadId)
 *   <data>/uploads/.partial-<uuid>            an upload still arriving
 *   <data>/uploads/fixture-<uuid>.wav         a fixture import's placeholder
 *   <data>/recordings/<meeting id>.<ext>      a meeting's recording (a RecordingId)
 *   <data>/recordings/.capture-<session>.wav  a live recording before its meeting exists (a CaptureId)
 *   <data>/recordings/.pending-<meeting id>   a stopped recording not transcribed yet
 *   <data>/recordings/.tmp-<hex>.wav          a generated fixture recording before its meeting commits
 *
 * The layout is the one data folders already have; nothing is migrated.
 *
 * Crash safety. A file gets its final name only when complete: an upload is
 * written under a temporary name, flushed to disk (fsync) and renamed; a
 * recording's WAV header is kept current as it is written (wav-writer.ts).
 * A recording moves into a meeting (handOver) in three steps around the
 * transaction that commits the meeting: the final name is linked inside it,
 * the old name released after it. A kill before the commit leaves the source
 * where it was (an import can be retried) and an unreferenced final name that
 * the next start sweeps; a kill after it leaves an unreferenced old name,
 * swept too. Nothing stored is lost and nothing half-written is kept.
 *
 * Only the pipeline's decoder gets a path (ffmpeg and the recognizers read
 * files): `audio(ref)` returns it, by id, as an AudioSource the feature hands
 * to the transcription unopened.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { toneWav } from '../../common/audio/wav.ts';
import type { AudioSource, ImportExtension } from '../pipeline/types.ts';
import { WavWriter } from './wav-writer.ts';

/** An upload's name inside uploads/, as jobs.source_file stores it. */
export type UploadId = string;
/** A recording's name inside recordings/, as meetings.recording_file stores it. */
export type RecordingId = string;
/** A live recording's file before its meeting exists. */
export type CaptureId = string;

/** What becomes a new meeting's recording: an import's upload, a live capture, or a generated tone (fixtures). */
export type RecordingSource = { upload: UploadId } | { capture: CaptureId } | { tone: true };

/** Audio a decoder may read: an upload or a meeting's recording. */
export type AudioRef = { upload: UploadId } | { recording: RecordingId };

/** The file-system calls staging an upload makes: node:fs in the gateway, an in-memory one (memfs) in unit tests. */
export type MediaFs = Pick<
  typeof nodeFs,
  'createWriteStream' | 'mkdirSync' | 'renameSync' | 'rmSync' | 'openSync' | 'fsyncSync' | 'closeSync'
>;

/** An upload being written: stream the bytes in, then commit (complete) or discard (refused, broken). */
export interface StagedUpload {
  readonly stream: Writable;
  /** Flushes the bytes to disk and gives the file its final name; returns its id. */
  commit(): UploadId;
  /** Removes what was written. */
  discard(): void;
}

/**
 * A recording moving into a new meeting (MeetingsService.create): `id` is
 * what the meeting row stores; `place` runs inside the transaction that
 * commits the meeting, `settle` after the commit, `undo` when it failed.
 */
export interface RecordingHandover {
  readonly id: RecordingId;
  place(): void;
  settle(): void;
  undo(): void;
}

/** A live recording's file: the writer appends as samples arrive. */
export interface Capture {
  readonly id: CaptureId;
  readonly writer: WavWriter;
}

const PARTIAL_PREFIX = '.partial-';
const CAPTURE_PREFIX = '.capture-';
const PENDING_PREFIX = '.pending-';
const TEMP_PREFIX = '.tmp-';
/** A stored media name: no separator, no leading dot, so never "..". */
const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,200}$/;
/** An owner id (job, meeting, recording session) that names a file. */
const SAFE_OWNER = /^[A-Za-z0-9_-]{1,120}$/;
const SAFE_EXT = /^[a-z0-9]{1,8}$/;

/** The two folders of the store inside a data folder (the composition root and the data-folder checks of the tests). */
export function mediaFolders(dataDir: string): { uploads: string; recordings: string } {
  return { uploads: join(dataDir, 'uploads'), recordings: join(dataDir, 'recordings') };
}

export class MediaStore {
  /** The folders, for tests and tools that inspect the data folder; features never read them. */
  readonly folders: { uploads: string; recordings: string };
  readonly #fs: MediaFs;

  constructor(opts: { dataDir: string; fs?: MediaFs }) {
    this.#fs = opts.fs ?? nodeFs;
    this.folders = mediaFolders(resolve(opts.dataDir));
    this.#fs.mkdirSync(this.folders.recordings, { recursive: true, mode: 0o700 });
    this.#fs.mkdirSync(this.folders.uploads, { recursive: true, mode: 0o700 });
  }

  // ── Uploads (import jobs) ───────────────────────────────────────────────

  /** Starts writing the upload of `owner` (a job id) under a temporary name. */
  stageUpload(owner: string, ext: string): StagedUpload {
    const name = ownedName(owner, ext);
    const fs = this.#fs;
    fs.mkdirSync(this.folders.uploads, { recursive: true, mode: 0o700 });
    const partial = join(this.folders.uploads, `${PARTIAL_PREFIX}${randomUUID()}`);
    const stream = fs.createWriteStream(partial, { mode: 0o600 });
    return {
      stream,
      commit: () => {
        flushToDisk(fs, partial);
        fs.renameSync(partial, join(this.folders.uploads, name));
        return name;
      },
      discard: () => fs.rmSync(partial, { force: true }),
    };
  }

  /** An empty placeholder upload (a fixture import that still has its bytes, so a retry finds them). */
  placeholderUpload(): UploadId {
    const name = `fixture-${randomUUID()}.wav`;
    nodeFs.mkdirSync(this.folders.uploads, { recursive: true, mode: 0o700 });
    nodeFs.writeFileSync(join(this.folders.uploads, name), new Uint8Array(0), { mode: 0o600 });
    return name;
  }

  /** Whether an upload is still there (a retry needs its bytes). */
  hasUpload(id: UploadId | null): boolean {
    const path = id === null ? null : this.#inside(this.folders.uploads, id);
    return path !== null && nodeFs.existsSync(path);
  }

  removeUpload(id: UploadId): void {
    const path = this.#inside(this.folders.uploads, id);
    if (path !== null) nodeFs.rmSync(path, { force: true });
  }

  /** Every upload, arriving ones included (Control API reset). */
  removeAllUploads(): void {
    nodeFs.rmSync(this.folders.uploads, { recursive: true, force: true });
  }

  // ── Recordings (meetings) ───────────────────────────────────────────────

  /**
   * Prepares `source` to become the recording of the meeting `meetingId`
   * (see the header: linked inside the commit, released after it). A tone is
   * written now under a temporary name.
   */
  handOver(source: RecordingSource, meetingId: string): RecordingHandover {
    const dir = this.folders.recordings;
    nodeFs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if ('tone' in source) {
      const id = ownedName(meetingId, 'wav');
      const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}.wav`);
      nodeFs.writeFileSync(temp, toneWav(), { mode: 0o600 });
      return {
        id,
        place: () => nodeFs.renameSync(temp, join(dir, id)),
        settle: () => undefined,
        undo: () => {
          nodeFs.rmSync(temp, { force: true });
          nodeFs.rmSync(join(dir, id), { force: true });
        },
      };
    }
    const from = 'upload' in source ? this.#inside(this.folders.uploads, source.upload) : this.#capturePath(source.capture);
    if (from === null) throw new Error('the recording to hand over is not a file of the media store');
    const id = ownedName(meetingId, extname(from).slice(1));
    return this.#linkInto(from, join(dir, id), id);
  }

  /** Deletes a meeting's recording; false when it was not there or could not be removed (the meeting is gone either way). */
  removeRecording(id: RecordingId): boolean {
    const path = this.#inside(this.folders.recordings, id);
    if (path === null) return false;
    try {
      nodeFs.unlinkSync(path);
      return true;
    } catch {
      return false;
    }
  }

  /** Every recording, capture and pending marker (Control API reset). */
  removeAllRecordings(): void {
    const dir = this.folders.recordings;
    nodeFs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of nodeFs.readdirSync(dir)) nodeFs.rmSync(join(dir, name), { recursive: true, force: true });
  }

  /** What the decoder reads, by id; null for a name that is not the store's. */
  audio(ref: AudioRef): AudioSource | null {
    const path = 'upload' in ref ? this.#inside(this.folders.uploads, ref.upload) : this.#inside(this.folders.recordings, ref.recording);
    if (path === null) return null;
    return { path, ext: (extname(path).slice(1) || 'wav') as ImportExtension };
  }

  // ── Live recordings ─────────────────────────────────────────────────────

  /** Creates the file a recording session writes to until its meeting exists (then handOver({ capture })). */
  beginCapture(sessionId: string): Capture {
    nodeFs.mkdirSync(this.folders.recordings, { recursive: true, mode: 0o700 });
    const id = `${CAPTURE_PREFIX}${ownedName(sessionId, 'wav')}`;
    return { id, writer: new WavWriter(join(this.folders.recordings, id)) };
  }

  discardCapture(id: CaptureId): void {
    const path = this.#capturePath(id);
    if (path !== null) nodeFs.rmSync(path, { force: true });
  }

  /** At start: a capture that never became a meeting holds at most the first samples of a start that failed. */
  discardStaleCaptures(): void {
    for (const name of this.#recordingNames()) if (name.startsWith(CAPTURE_PREFIX)) this.discardCapture(name);
  }

  /** Marks a meeting's recording as waiting for its transcription, so the next start does it if this process cannot. */
  markPending(meetingId: string, sessionId: string): void {
    nodeFs.writeFileSync(this.#pendingPath(meetingId), JSON.stringify({ meeting_id: meetingId, session_id: sessionId }), { mode: 0o600 });
  }

  clearPending(meetingId: string): void {
    nodeFs.rmSync(this.#pendingPath(meetingId), { force: true });
  }

  /** Meetings whose recording a stop left untranscribed. */
  pendingMeetings(): string[] {
    return this.#recordingNames()
      .filter((n) => n.startsWith(PENDING_PREFIX))
      .map((n) => n.slice(PENDING_PREFIX.length));
  }

  // ── Restart recovery ────────────────────────────────────────────────────

  /**
   * At start, once the owners have recovered: removes what a crash can leave
   * (temporary names, files no job or meeting names). Pending markers stay:
   * the recorder owns them. Returns what was removed (uploads/…, recordings/…).
   */
  sweep(referenced: { uploads: Set<UploadId>; recordings: Set<RecordingId> }): string[] {
    const removed: string[] = [];
    const sweepFolder = (dir: string, keep: Set<string>) => {
      let names: string[];
      try {
        names = nodeFs.readdirSync(dir);
      } catch {
        return; // no folder yet: nothing to sweep
      }
      for (const name of names) {
        if (keep.has(name) || name.startsWith(PENDING_PREFIX)) continue;
        nodeFs.rmSync(join(dir, name), { recursive: true, force: true });
        removed.push(`${basename(dir)}/${name}`);
      }
    };
    sweepFolder(this.folders.uploads, referenced.uploads);
    sweepFolder(this.folders.recordings, referenced.recordings);
    return removed;
  }

  // ── Internals ───────────────────────────────────────────────────────────

  /**
   * Hands a file over under a second name: a hard link inside the commit (the
   * source stays until settle), or, on a file system without hard links, a
   * rename (then undo renames it back).
   */
  #linkInto(from: string, to: string, id: RecordingId): RecordingHandover {
    let placed: 'linked' | 'renamed' | null = null;
    return {
      id,
      place: () => {
        try {
          nodeFs.linkSync(from, to);
          placed = 'linked';
        } catch (err) {
          if (!isNoHardLinks(err)) throw err;
          nodeFs.renameSync(from, to);
          placed = 'renamed';
        }
      },
      settle: () => {
        if (placed === 'linked') nodeFs.rmSync(from, { force: true });
      },
      // Best effort, while the caller's error is on its way: what stays under the final name no meeting names, and the next start sweeps it.
      undo: () => {
        try {
          if (placed === 'linked') nodeFs.rmSync(to, { force: true });
          if (placed === 'renamed') nodeFs.renameSync(to, from);
        } catch {
          // nothing more to do here
        }
        placed = null;
      },
    };
  }

  /** A stored name resolved inside its folder; null for anything that would land elsewhere (a separator, "..", a dot-file). */
  #inside(dir: string, name: string): string | null {
    if (!SAFE_NAME.test(name) || basename(name) !== name) return null;
    const path = resolve(dir, name);
    return dirname(path) === dir ? path : null;
  }

  #capturePath(id: CaptureId): string | null {
    if (!id.startsWith(CAPTURE_PREFIX)) return null;
    return this.#inside(this.folders.recordings, id.slice(CAPTURE_PREFIX.length)) === null ? null : join(this.folders.recordings, id);
  }

  #pendingPath(meetingId: string): string {
    if (!SAFE_OWNER.test(meetingId)) throw new Error('a meeting id names a file only with letters, digits, - and _');
    return join(this.folders.recordings, `${PENDING_PREFIX}${meetingId}`);
  }

  #recordingNames(): string[] {
    nodeFs.mkdirSync(this.folders.recordings, { recursive: true, mode: 0o700 });
    return nodeFs.readdirSync(this.folders.recordings);
  }
}

/** `<owner>.<ext>`, refusing an owner or extension that could name anything else. */
function ownedName(owner: string, ext: string): string {
  if (!SAFE_OWNER.test(owner)) throw new Error('a media owner id is letters, digits, - and _ only');
  if (!SAFE_EXT.test(ext)) throw new Error('a media extension is letters and digits only');
  return `${owner}.${ext}`;
}

/** Flushes a written file to disk before it is renamed, so a power loss cannot leave the final name on missing bytes. */
function flushToDisk(fs: MediaFs, path: string): void {
  const fd = fs.openSync(path, 'r');
  try {
    fs.fsyncSync(fd);
  } catch {
    // a file system without fsync still has the data
  } finally {
    fs.closeSync(fd);
  }
}

/** The errors of a file system that cannot make hard links (some network and FAT mounts). */
function isNoHardLinks(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EXDEV' || code === 'EMLINK';
}
