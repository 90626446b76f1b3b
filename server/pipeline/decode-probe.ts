/**
 * What a file is before it is decoded: its container named from its first
 * bytes (the contents decide, not the extension), the sample rate of a WAV
 * header, and how long the file says it is (its own headers, or ffprobe),
 * for progress, for sizing the output and for telling a truncated file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { open, stat } from 'node:fs/promises';
import { StageError, type StageControl } from './types.ts';

/** Enough of the head of a file to recognise it, including a long ID3v2 tag. */
export const SNIFF_BYTES = 64 * 1024;
/**
 * Files at least this big get a concurrent ffprobe for a duration estimate
 * (progress, and one allocation for the output). A smaller file decodes in a
 * second or two, where a second process only costs time.
 */
export const PROBE_MIN_BYTES = 16 * 1024 * 1024;

export async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StageError('the file is missing', { retryable: false, cause: err });
    throw new StageError(`the file cannot be read: ${(err as Error).message}`, { retryable: true, cause: err });
  }
}

export async function readHead(file: string, bytes: number, position = 0): Promise<Uint8Array> {
  const fh = await open(file, 'r');
  try {
    const head = new Uint8Array(bytes);
    const { bytesRead } = await fh.read(head, 0, bytes, position);
    return head.subarray(0, bytesRead).slice();
  } finally {
    await fh.close();
  }
}

/**
 * Names a file's container from its first bytes (wav, mp3, aac, flac, m4a,
 * oga = Ogg Vorbis, opus = Ogg Opus, webm, mkv, wma, and rf64, mov, ogg),
 * or undefined when nothing matches; IN_PROCESS_DECODERS says which of them
 * have an in-process decoder (the rest are ffmpeg's). Signatures only: the decoder
 * then finds out whether the rest is sound.
 */
export function sniffContainer(head: Uint8Array): string | undefined {
  const ascii = (at: number, text: string) => {
    if (at + text.length > head.length) return false;
    for (let i = 0; i < text.length; i++) if (head[at + i] !== text.charCodeAt(i)) return false;
    return true;
  };
  if (head.length < 4) return undefined;
  if (ascii(0, 'RIFF') && ascii(8, 'WAVE')) return 'wav';
  if ((ascii(0, 'RF64') || ascii(0, 'BW64')) && ascii(8, 'WAVE')) return 'rf64';
  if (ascii(0, 'fLaC')) return 'flac';
  if (ascii(4, 'ftyp')) return 'm4a';
  if (['moov', 'mdat', 'wide', 'free', 'skip'].some((box) => ascii(4, box))) return 'mov';
  if (ascii(0, 'OggS')) {
    // The first page holds the codec's identification packet, at byte 28 of a single-segment page.
    if (ascii(28, 'OpusHead')) return 'opus';
    if (head[28] === 0x01 && ascii(29, 'vorbis')) return 'oga';
    if (head[28] === 0x7f && ascii(29, 'FLAC')) return 'flac';
    return 'ogg';
  }
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) {
    // EBML: the DocType string near the start tells WebM from other Matroska.
    const start = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, 64)).toString('latin1');
    return start.includes('webm') ? 'webm' : 'mkv';
  }
  // ASF header object GUID 75B22630-668E-11CF-A6D9-00AA0062CE6C (WMA, WMV).
  const asf = [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11];
  if (asf.every((b, i) => head[i] === b)) return 'wma';

  let at = 0;
  if (ascii(0, 'ID3') && head.length >= 10) {
    // ID3v2: synchsafe size in bytes 6–9, plus a 10-byte footer when flag bit 4 is set.
    const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f);
    at = 10 + size + (head[5]! & 0x10 ? 10 : 0);
    // A tag longer than the head we read is, in practice, an MP3's.
    if (at + 4 > head.length) return 'mp3';
    if (ascii(at, 'fLaC')) return 'flac';
  }
  const b0 = head[at];
  const b1 = head[at + 1];
  if (b0 === 0xff && b1 !== undefined && (b1 & 0xf0) === 0xf0 && (b1 & 0x06) === 0x00) return 'aac'; // ADTS: layer bits 00
  if (b0 === 0xff && b1 !== undefined && (b1 & 0xe0) === 0xe0 && (b1 & 0x06) !== 0x00) return 'mp3'; // MPEG audio sync, layer I–III
  return undefined;
}

/** The sample rate in a RIFF/WAVE header's fmt chunk, if the head holds it. */
export function wavSampleRate(head: Uint8Array): number | undefined {
  const view = Buffer.from(head.buffer, head.byteOffset, head.length);
  let at = 12;
  while (at + 8 <= view.length) {
    const id = view.toString('latin1', at, at + 4);
    const size = view.readUInt32LE(at + 4);
    if (id === 'fmt ') return at + 16 <= view.length ? view.readUInt32LE(at + 12) : undefined;
    at += 8 + size + (size % 2); // chunks are padded to an even length
  }
  return undefined;
}

/**
 * The duration a file's own headers state (a WAV data size, FLAC's sample
 * count, an MP3's Xing/LAME frame count, MP4 and Matroska headers), or null
 * when ffprobe only estimates it from the bitrate (then a shorter decode
 * proves nothing) or cannot tell.
 */
export async function declaredDuration(file: string, opts: { ffprobePath?: string; control?: StageControl } = {}): Promise<number | null> {
  const head = await readHead(file, SNIFF_BYTES);
  if (sniffContainer(head) === 'wav') return wavDeclaredDuration(head);
  const args = ['-v', 'warning', '-show_entries', 'format=duration', '-of', 'default=noprint_wrappers=1:nokey=1', file];
  let child: ChildProcess;
  try {
    child = spawn(opts.ffprobePath ?? 'ffprobe', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return null;
  }
  const untrack = opts.control?.track(child) ?? (() => undefined);
  let out = '';
  let warnings = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (warnings += s));
  try {
    const exit = await exitOf(child);
    if (exit.code !== 0 || /estimat/i.test(warnings)) return null;
    const seconds = Number.parseFloat(out.trim());
    return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
  } catch {
    return null; // no ffprobe: no check
  } finally {
    untrack();
  }
}

/**
 * What a WAV header's data chunk claims, in seconds; null when the size is a
 * streaming writer's "unknown" (0 or 0xFFFFFFFF) or the chunks are not in
 * the first bytes read.
 */
export function wavDeclaredDuration(head: Uint8Array): number | null {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let offset = 12;
  let bytesPerSecond: number | null = null;
  while (offset + 8 <= head.byteLength) {
    const id = String.fromCharCode(head[offset]!, head[offset + 1]!, head[offset + 2]!, head[offset + 3]!);
    const size = view.getUint32(offset + 4, true);
    if (id === 'fmt ' && offset + 16 <= head.byteLength) bytesPerSecond = view.getUint32(offset + 16, true);
    if (id === 'data') {
      if (bytesPerSecond === null || bytesPerSecond === 0 || size === 0 || size === 0xffff_ffff) return null;
      return size / bytesPerSecond;
    }
    offset += 8 + size + (size % 2);
  }
  return null;
}

/**
 * Duration in seconds as ffprobe reads it from the container, or null when
 * ffprobe is missing or cannot tell. Container durations are estimates for
 * some formats (ADTS AAC is measured from its bitrate).
 */
export async function probeDuration(file: string, opts: { ffprobePath?: string; control?: StageControl } = {}): Promise<number | null> {
  const args = ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=noprint_wrappers=1:nokey=1', file];
  let child: ChildProcess;
  try {
    child = spawn(opts.ffprobePath ?? 'ffprobe', args, { stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
  const untrack = opts.control?.track(child) ?? (() => undefined);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  try {
    const exit = await exitOf(child);
    if (exit.code !== 0) return null;
    const seconds = Number.parseFloat(out.trim());
    return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
  } catch {
    return null;
  } finally {
    untrack();
  }
}

export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
}
