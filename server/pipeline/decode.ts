/**
 * Decode: any of the ten import formats → 16 kHz mono Float32 (PcmAudio).
 *
 * Two engines sit behind one `AudioDecoder`:
 *   - in process: WAV and MP3 only, with the MIT-licensed @audio/decode-wav
 *     and @audio/decode-mp3 fed as a stream from disk, then our own downmix
 *     and windowed-sinc resampler. Every other format is ffmpeg's: the
 *     in-process decoders for AAC, AC-3 and DTS are GPL, those for WMA and
 *     E-AC-3 and the FLAC/Ogg parser (codec-parser) LGPL, and ffmpeg reads
 *     all of them faster anyway (docs/decisions/053-permissive-decoders.md);
 *   - ffmpeg: `ffmpeg -i <file> -vn -ac 1 -rematrix_maxval 1 -ar 16000
 *     -f f32le -`, stdout read as it arrives.
 * Which one runs is chosen per format from measurements
 * (docs/decisions/010-decode-vad-diarization.md, bench/pipeline-decode.ts);
 * either stands in for the other when it is missing or fails.
 *
 * The file's contents decide the format, not its extension: the extension is
 * only used to name the format in error messages ("the file is not a valid
 * WAV file"). A file shorter than its own headers say is truncated and
 * fails (see decode()); a file that yields no samples at all is an error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import {
  CancelledError,
  PIPELINE_SAMPLE_RATE,
  StageError,
  type Decoder,
  type ImportExtension,
  type PcmAudio,
  type StageControl,
} from './types.ts';

export type DecodeEngine = 'in-process' | 'ffmpeg';

export interface AudioDecoderOptions {
  /** The ffmpeg binary; default `ffmpeg` from PATH. */
  ffmpegPath?: string;
  /** The ffprobe binary (progress estimates, probeDuration); default `ffprobe` from PATH. */
  ffprobePath?: string;
  /**
   * `auto` (default) picks per format and falls back to the other engine;
   * a named engine is used alone (benchmarks and tests).
   */
  engine?: 'auto' | DecodeEngine;
}

/** How the ten extensions are named in messages. */
const FORMAT_LABEL: Record<ImportExtension, string> = {
  wav: 'WAV',
  mp3: 'MP3',
  flac: 'FLAC',
  ogg: 'Ogg',
  m4a: 'M4A',
  aac: 'AAC',
  wma: 'WMA',
  mp4: 'MP4',
  mkv: 'MKV',
  webm: 'WebM',
};

/**
 * The engine each detected container runs on first, from the figures in
 * decision 010 (bench/pipeline-decode.ts: 44.1 kHz stereo speech, this
 * 2-core machine, the whole stage including resampling). ffmpeg wins or
 * ties every container there (in process reaches 0.3–1.0× its speed): it
 * decodes natively and resamples with SIMD in another process, and holds
 * far less memory. The one exception is WAV that is already 16 kHz (the
 * recorder's own format, so every retranscription and diarization job): it
 * needs no resampling, and reading it in process is about 4× faster than
 * starting ffmpeg and piping the samples back. Kinds are `sniffContainer`'s names for the file's contents;
 * anything else goes to ffmpeg too.
 */
function preferredEngine(kind: string | undefined, head: Uint8Array): DecodeEngine {
  if (kind === 'wav' && wavSampleRate(head) === PIPELINE_SAMPLE_RATE) return 'in-process';
  return 'ffmpeg';
}

/** Bytes read per chunk from disk for the in-process decoders. */
const READ_CHUNK_BYTES = 256 * 1024;
/** Enough of the head of a file to recognise it, including a long ID3v2 tag. */
const SNIFF_BYTES = 64 * 1024;
/**
 * Files at least this big get a concurrent ffprobe for a duration estimate
 * (progress, and one allocation for the output). A smaller file decodes in a
 * second or two, where a second process only costs time.
 */
const PROBE_MIN_BYTES = 16 * 1024 * 1024;
/** Only so much of ffmpeg's stderr is kept for messages. */
const STDERR_KEEP = 4000;

// ── The decoder ──────────────────────────────────────────────────────────

export class AudioDecoder implements Decoder {
  readonly #ffmpeg: string;
  readonly #ffprobe: string;
  readonly #engine: 'auto' | DecodeEngine;

  constructor(opts: AudioDecoderOptions = {}) {
    this.#ffmpeg = opts.ffmpegPath ?? 'ffmpeg';
    this.#ffprobe = opts.ffprobePath ?? 'ffprobe';
    this.#engine = opts.engine ?? 'auto';
  }

  /** The engine `decode` tries first for this file (benchmarks and logs). */
  async firstEngine(file: string): Promise<DecodeEngine> {
    const head = await readHead(file, SNIFF_BYTES);
    const kind = sniffContainer(head);
    if (this.#engine !== 'auto') return this.#engine;
    return kind !== undefined && inProcessDecoderFor(kind) !== undefined ? preferredEngine(kind, head) : 'ffmpeg';
  }

  /**
   * Decodes a file; then, where the container states how long it is, checks
   * that the audio read is all of it. A truncated file fails (docs/decisions/010):
   * a meeting made of its first part would look complete and is not.
   */
  async decode(file: string, ext: ImportExtension, control: StageControl): Promise<PcmAudio> {
    const audio = await this.#decodeAny(file, ext, control);
    const declared = await declaredDuration(file, { ffprobePath: this.#ffprobe, control });
    if (
      declared !== null &&
      audio.durationSeconds < declared * TRUNCATION_RATIO &&
      declared - audio.durationSeconds > TRUNCATION_MIN_SECONDS
    ) {
      throw new StageError(
        `the file is truncated: it declares ${declared.toFixed(1)} s of audio but only ${audio.durationSeconds.toFixed(1)} s could be read`,
        { retryable: false },
      );
    }
    return audio;
  }

  async #decodeAny(file: string, ext: ImportExtension, control: StageControl): Promise<PcmAudio> {
    const label = FORMAT_LABEL[ext];
    await control.checkpoint(); // a job cancelled (or paused) before it got here stops now
    const size = await fileSize(file);
    if (size === 0) throw new StageError('the file is empty', { retryable: false });
    const head = await readHead(file, SNIFF_BYTES);
    const kind = sniffContainer(head);
    const inProcessOk = kind !== undefined && inProcessDecoderFor(kind) !== undefined;
    control.progress(0);

    const first: DecodeEngine = this.#engine !== 'auto' ? this.#engine : inProcessOk ? preferredEngine(kind, head) : 'ffmpeg';
    const canFallBack = this.#engine === 'auto';

    if (first === 'in-process') {
      if (!inProcessOk) {
        throw kind === undefined
          ? invalidFile(label, 'its contents are not an audio or video format the built-in decoder knows')
          : new StageError(`the built-in decoder cannot read ${kind} content`, { retryable: false });
      }
      try {
        return await this.#inProcess(file, kind, size, label, control);
      } catch (err) {
        if (!canFallBack || !isDecodeFailure(err)) throw err;
        // ffmpeg reads more codecs and damaged files more leniently; its verdict is the final one.
        try {
          return await this.#viaFfmpeg(file, size, label, control);
        } catch (ffErr) {
          if (ffErr instanceof StageError && ffErr.dependencyMissing) throw err;
          throw ffErr;
        }
      }
    }

    try {
      return await this.#viaFfmpeg(file, size, label, control);
    } catch (err) {
      if (!(canFallBack && err instanceof StageError && err.dependencyMissing)) throw err;
      // No ffmpeg: the built-in decoders still read every format sniffContainer names.
      if (!inProcessOk) {
        throw new StageError(
          `ffmpeg is not installed, and it is needed for this file: its contents are not a format the built-in decoder reads (install ffmpeg, or check that it is a real ${label} file)`,
          { retryable: true, dependencyMissing: true, cause: err },
        );
      }
      return await this.#inProcess(file, kind, size, label, control);
    }
  }

  /** The in-process decoder for `kind`, streamed from disk, then downmix + resample. */
  async #inProcess(file: string, kind: string, size: number, label: string, control: StageControl): Promise<PcmAudio> {
    const sink = new PcmSink();
    // A duration estimate lets the sink allocate its final array once (64 kB per second of audio).
    if (size >= PROBE_MIN_BYTES) {
      void probeDuration(file, { ffprobePath: this.#ffprobe, control }).then((d) => {
        if (d !== null) sink.reserve(Math.ceil(d * PIPELINE_SAMPLE_RATE));
      });
    }
    let bytesRead = 0;
    let resampler: Resampler | null = null;
    const progress = throttledProgress(control);

    async function* source(): AsyncGenerator<Uint8Array> {
      for await (const chunk of createReadStream(file, { highWaterMark: READ_CHUNK_BYTES }) as AsyncIterable<Buffer>) {
        await control.checkpoint();
        bytesRead += chunk.length;
        yield chunk;
      }
    }

    try {
      for await (const piece of decodeChunked(source(), kind)) {
        const rate = piece.sampleRate;
        const mono = downmix(piece.channelData);
        if (mono.length === 0 || !(rate > 0)) continue;
        if (resampler === null || resampler.inRate !== rate) {
          // A chained stream may change rate: finish the old one cleanly before starting over.
          if (resampler !== null) sink.push(resampler.flush());
          resampler = new Resampler(rate, PIPELINE_SAMPLE_RATE);
        }
        sink.push(resampler.push(mono));
        progress(bytesRead / size);
      }
    } catch (err) {
      if (err instanceof CancelledError || control.signal.aborted) throw new CancelledError();
      // A damaged tail: keep what decoded (decision 010), unless that is nothing at all.
      if (sink.length === 0 && (resampler === null || resampler.pending === 0)) {
        throw describeInProcessError(err, label);
      }
    }
    if (resampler !== null) sink.push(resampler.flush());
    if (sink.length === 0) throw noSamples();
    control.progress(1);
    return toPcm(sink.finish());
  }

  /** ffmpeg resamples and downmixes itself; we read its float32 stdout as it comes. */
  async #viaFfmpeg(file: string, size: number, label: string, control: StageControl): Promise<PcmAudio> {
    const sink = new PcmSink();
    const progress = throttledProgress(control);
    let expected = 0;
    if (size >= PROBE_MIN_BYTES) {
      // Runs beside the decode: it only sizes the output and scales progress.
      void probeDuration(file, { ffprobePath: this.#ffprobe, control }).then((d) => {
        if (d === null) return;
        expected = Math.ceil(d * PIPELINE_SAMPLE_RATE);
        sink.reserve(expected);
      });
    }

    // -rematrix_maxval 1: with float output ffmpeg's downmix is not normalised (stereo → mono comes
    // out 3 dB up and can pass full scale, 5.1 far more); this scales it to the mean, as in process.
    const args = [
      '-nostdin',
      '-v',
      'error',
      '-i',
      file,
      '-vn',
      '-ac',
      '1',
      '-rematrix_maxval',
      '1',
      '-ar',
      String(PIPELINE_SAMPLE_RATE),
      '-f',
      'f32le',
      '-',
    ];
    const child = spawn(this.#ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const untrack = control.track(child);
    const kill = () => child.kill('SIGKILL'); // also ends a SIGSTOPped (paused) process
    control.signal.addEventListener('abort', kill, { once: true });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      if (stderr.length < STDERR_KEEP) stderr += s;
    });
    const exited = exitOf(child);
    exited.catch(() => undefined); // awaited below; this keeps an early spawn error from counting as unhandled
    try {
      const bytes = new ByteToFloat(sink);
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        bytes.push(chunk);
        if (expected > 0) progress(sink.length / expected);
        await control.checkpoint();
      }
      const exit = await exited;
      if (control.signal.aborted) throw new CancelledError();
      if (exit.code !== 0) throw describeFfmpegFailure(stderr, exit, file, label);
    } catch (err) {
      if (control.signal.aborted || err instanceof CancelledError) throw new CancelledError();
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EACCES') {
        throw new StageError(`ffmpeg was not found (${this.#ffmpeg}): install ffmpeg to decode this file`, {
          retryable: true,
          dependencyMissing: true,
          cause: err,
        });
      }
      if (err instanceof StageError) throw err;
      throw new StageError(`ffmpeg could not run: ${(err as Error).message}`, { retryable: true, cause: err });
    } finally {
      control.signal.removeEventListener('abort', kill);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      untrack();
    }
    if (sink.length === 0) throw noSamples();
    control.progress(1);
    return toPcm(sink.finish());
  }
}

// ── Errors ───────────────────────────────────────────────────────────────

function invalidFile(label: string, detail?: string): StageError {
  return new StageError(`the file is not a valid ${label} file${detail ? ` (${detail})` : ''}`, { retryable: false });
}

function noSamples(): StageError {
  return new StageError('the file holds no audio samples (it may be truncated or hold only headers)', { retryable: false });
}

/** Errors a decoder raises about the input, as opposed to cancellation or our own bugs. */
function isDecodeFailure(err: unknown): boolean {
  return !(err instanceof CancelledError) && !(err instanceof StageError && err.dependencyMissing);
}

function describeInProcessError(err: unknown, label: string): StageError {
  if (err instanceof StageError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/no audio track|no audio stream/i.test(message)) {
    return new StageError('the file has no audio track', { retryable: false, cause: err });
  }
  return new StageError(`the file is not a valid ${label} file (${message.slice(0, 200)})`, { retryable: false, cause: err });
}

function describeFfmpegFailure(
  stderr: string,
  exit: { code: number | null; signal: NodeJS.Signals | null },
  file: string,
  label: string,
): StageError {
  if (exit.signal !== null) {
    // Not ours (ours shows up as an abort): the machine killed it, e.g. out of memory. Worth a retry.
    return new StageError(`ffmpeg was killed by ${exit.signal} while decoding`, { retryable: true });
  }
  // ffmpeg names the input in its messages; the message should not carry the path.
  const text = stderr.split(file).join('<file>');
  if (/does not contain any stream|matches no streams|no audio/i.test(text)) {
    return new StageError('the file has no audio track', { retryable: false });
  }
  // The first line is the most specific (later ones repeat it as "Invalid argument" and the like).
  const detail = text
    .split('\n')
    .map((l) =>
      l
        .replace(/^\[[^\]]*\]\s*/, '')
        .replace(/^<file>:\s*/, '')
        .trim(),
    )
    .find((l) => l !== '')
    ?.slice(0, 200);
  if (
    /Invalid data found|Invalid argument|moov atom not found|EBML header|could not find codec parameters|Failed to read|unknown format|End of file/i.test(
      text,
    )
  ) {
    return invalidFile(label, detail);
  }
  return new StageError(`the file could not be decoded${detail ? ` (${detail})` : ''}`, { retryable: false });
}

// ── Helpers: file checks ─────────────────────────────────────────────────

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StageError('the file is missing', { retryable: false, cause: err });
    throw new StageError(`the file cannot be read: ${(err as Error).message}`, { retryable: true, cause: err });
  }
}

async function readHead(file: string, bytes: number, position = 0): Promise<Uint8Array> {
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
function wavSampleRate(head: Uint8Array): number | undefined {
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

/** Planar samples as the decoder packages return them; mpg123's output arrays are longer than samplesDecoded. */
interface DecodedChunk {
  channelData: Float32Array[];
  sampleRate: number;
  samplesDecoded?: number;
}

/** A streaming decoder: chunks in, samples out; flush at the end; free once. */
interface ChunkDecoder {
  decode(chunk: Uint8Array): DecodedChunk | Promise<DecodedChunk>;
  flush?(): DecodedChunk | Promise<DecodedChunk>;
  free(): void;
}

type ChunkDecoderFactory = () => Promise<ChunkDecoder>;

/**
 * The in-process decoders, by sniffContainer's name. Loaded on first use, so
 * a gateway that never decodes in process never compiles the MP3 WASM.
 */
const IN_PROCESS_DECODERS: Readonly<Record<string, ChunkDecoderFactory>> = {
  wav: async () => (await import('@audio/decode-wav')).decoder(),
  mp3: async () => (await import('@audio/decode-mp3')).decoder(),
};

function inProcessDecoderFor(kind: string): ChunkDecoderFactory | undefined {
  return Object.hasOwn(IN_PROCESS_DECODERS, kind) ? IN_PROCESS_DECODERS[kind] : undefined;
}

/** Decodes a stream of file chunks with the in-process decoder for `kind`; yields only non-empty pieces. */
async function* decodeChunked(
  source: AsyncIterable<Uint8Array>,
  kind: string,
): AsyncGenerator<{ channelData: Float32Array[]; sampleRate: number }> {
  const open = inProcessDecoderFor(kind);
  if (open === undefined) throw new Error(`no built-in decoder for ${kind}`);
  const codec = await open();
  try {
    for await (const chunk of source) {
      const piece = trimmed(await codec.decode(chunk));
      if (piece !== null) yield piece;
    }
    if (codec.flush !== undefined) {
      const piece = trimmed(await codec.flush());
      if (piece !== null) yield piece;
    }
  } finally {
    codec.free();
  }
}

/** The decoded samples of a chunk, cut to samplesDecoded; null when it holds none. */
function trimmed(r: DecodedChunk): { channelData: Float32Array[]; sampleRate: number } | null {
  const first = r.channelData[0];
  if (first === undefined) return null;
  const n = r.samplesDecoded !== undefined && r.samplesDecoded < first.length ? r.samplesDecoded : first.length;
  if (n === 0) return null;
  return { channelData: n === first.length ? r.channelData : r.channelData.map((c) => c.subarray(0, n)), sampleRate: r.sampleRate };
}

/** Audio shorter than this share of the declared length (and by more than the seconds below) is truncated. */
const TRUNCATION_RATIO = 0.9;
const TRUNCATION_MIN_SECONDS = 0.5;

/**
 * The duration a file's own headers state (a WAV data size, FLAC's sample
 * count, an MP3's Xing/LAME frame count, MP4 and Matroska headers), or null
 * when ffprobe only estimates it from the bitrate (then a shorter decode
 * proves nothing) or cannot tell.
 */
async function declaredDuration(file: string, opts: { ffprobePath?: string; control?: StageControl } = {}): Promise<number | null> {
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
async function probeDuration(file: string, opts: { ffprobePath?: string; control?: StageControl } = {}): Promise<number | null> {
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

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
}

function throttledProgress(control: StageControl): (fraction: number) => void {
  let last = -1;
  return (fraction) => {
    const f = Math.min(1, Math.max(0, fraction));
    if (f - last >= 0.005) {
      last = f;
      control.progress(f);
    }
  };
}

function toPcm(samples: Float32Array): PcmAudio {
  return { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: samples.length / PIPELINE_SAMPLE_RATE };
}

// ── Helpers: samples ─────────────────────────────────────────────────────

/** The mean of the channels: speech is usually centred, and the mean never clips. */
function downmix(channels: readonly Float32Array[]): Float32Array {
  const first = channels[0];
  if (first === undefined) return new Float32Array(0);
  if (channels.length === 1) return first;
  let length = first.length;
  for (const ch of channels) length = Math.min(length, ch.length);
  const out = new Float32Array(length);
  for (const ch of channels) for (let i = 0; i < length; i++) out[i]! += ch[i]!;
  const scale = 1 / channels.length;
  for (let i = 0; i < length; i++) out[i]! *= scale;
  return out;
}

/**
 * Collects the decoded samples. It starts in blocks and, once a duration
 * estimate arrives, moves into one array of about the final size, so a long
 * file is not held twice while it is put together at the end.
 * Samples are clamped to [-1, 1] on the way in; pushed arrays become the sink's.
 */
class PcmSink {
  #blocks: Float32Array[] = [];
  #main: Float32Array | null = null;
  #mainLength = 0;
  #length = 0;
  #finished = false;

  get length(): number {
    return this.#length;
  }

  /** Reserves room for about `samples` (a little more: container durations are estimates). */
  reserve(samples: number): void {
    if (this.#finished || this.#main !== null || !(samples > 0)) return;
    const capacity = Math.ceil(samples * 1.02) + PIPELINE_SAMPLE_RATE;
    if (capacity < this.#length) return;
    const main = new Float32Array(capacity);
    let at = 0;
    for (const b of this.#blocks) {
      main.set(b, at);
      at += b.length;
    }
    this.#blocks = [];
    this.#main = main;
    this.#mainLength = at;
  }

  push(samples: Float32Array): void {
    const n = samples.length;
    if (n === 0) return;
    for (let i = 0; i < n; i++) {
      const v = samples[i]!;
      if (v > 1) samples[i] = 1;
      else if (v < -1) samples[i] = -1;
    }
    this.#length += n;
    const main = this.#main;
    if (main !== null && this.#blocks.length === 0 && this.#mainLength + n <= main.length) {
      main.set(samples, this.#mainLength);
      this.#mainLength += n;
      return;
    }
    // Past the reservation (or none yet). The sink owns what it is given: no copy.
    this.#blocks.push(samples);
  }

  finish(): Float32Array {
    this.#finished = true;
    if (this.#main !== null && this.#blocks.length === 0) {
      const main = this.#main;
      // A close estimate keeps the reserved array (a view into it); a poor one is trimmed by a copy.
      return main.length - this.#mainLength > main.length / 8 ? main.slice(0, this.#mainLength) : main.subarray(0, this.#mainLength);
    }
    const out = new Float32Array(this.#length);
    let at = 0;
    if (this.#main !== null) {
      out.set(this.#main.subarray(0, this.#mainLength), 0);
      at = this.#mainLength;
      this.#main = null;
    }
    for (const b of this.#blocks) {
      out.set(b, at);
      at += b.length;
    }
    this.#blocks = [];
    return out;
  }
}

/** Turns ffmpeg's little-endian float32 byte stream, cut anywhere, into samples. */
class ByteToFloat {
  readonly #sink: PcmSink;
  #carry = Buffer.alloc(0);

  constructor(sink: PcmSink) {
    this.#sink = sink;
  }

  push(chunk: Buffer): void {
    const bytes = this.#carry.length > 0 ? Buffer.concat([this.#carry, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % 4);
    const floats = new Float32Array(whole / 4);
    // Copy through a byte view: the chunk's offset need not be 4-aligned. x86/ARM are little-endian, as f32le is.
    new Uint8Array(floats.buffer).set(bytes.subarray(0, whole));
    this.#carry = Buffer.from(bytes.subarray(whole));
    this.#sink.push(floats);
  }
}

// ── Resampling ───────────────────────────────────────────────────────────

/** Zero crossings of the sinc on each side: the filter's length, and so its steepness. */
const SINC_ZERO_CROSSINGS = 8;
/** Cutoff as a fraction of the lower Nyquist frequency: 7.2 kHz at 16 kHz out, above the speech band. */
const SINC_ROLLOFF = 0.9;
/** Kaiser window shape: with 8 zero crossings, about 70 dB down at 9 kHz and a flat band to 6 kHz. */
const KAISER_BETA = 6;
/** Above this many phases (rates with no small common factor), phases are rounded to the nearest of this many. */
const MAX_PHASES = 2048;

/**
 * A streaming polyphase windowed-sinc resampler (Kaiser window) for any pair
 * of rates. Output sample n sits at input position n·inRate/outRate; its
 * value is the input convolved with a low-pass sinc centred there, cut off
 * below the lower of the two Nyquist frequencies, so downsampling does not
 * alias. The filter is symmetric, so there is no delay.
 *
 * For outRate/inRate = L/M in lowest terms there are L distinct filter
 * phases, precomputed once (160 for 44.1 kHz, 1 for 48 kHz).
 */
export class Resampler {
  readonly inRate: number;
  readonly outRate: number;
  readonly #L: number;
  readonly #M: number;
  readonly #phases: number;
  readonly #taps: number;
  /** Input offset of a filter's first tap relative to floor(position). */
  readonly #first: number;
  readonly #table: Float32Array;
  /** Input not yet fully consumed, with leading zeros standing for the time before the first sample. */
  #hist: Float32Array;
  /** Input index of #hist[0]. */
  #histStart: number;
  #inCount = 0;
  /** Next output: its index, and its position floor(n·M/L) and remainder (n·M mod L). */
  #n = 0;
  #base = 0;
  #rem = 0;

  constructor(inRate: number, outRate: number) {
    if (!(inRate > 0 && outRate > 0) || !Number.isInteger(inRate) || !Number.isInteger(outRate)) {
      throw new RangeError(`unsupported sample rates ${inRate} → ${outRate}`);
    }
    this.inRate = inRate;
    this.outRate = outRate;
    const g = gcd(inRate, outRate);
    this.#L = outRate / g;
    this.#M = inRate / g;
    this.#phases = Math.min(this.#L, MAX_PHASES);
    // Cutoff in cycles per input sample.
    const cutoff = 0.5 * Math.min(1, outRate / inRate) * SINC_ROLLOFF;
    // Upsampling (8 kHz telephone audio) keeps its whole band up to 3.6 kHz, so it gets a longer,
    // steeper filter; it is cheap there, as taps are counted at the low input rate.
    const zeroCrossings = outRate > inRate ? 2 * SINC_ZERO_CROSSINGS : SINC_ZERO_CROSSINGS;
    const halfLength = zeroCrossings / (2 * cutoff); // in input samples
    const half = Math.ceil(halfLength);
    this.#taps = 2 * half;
    this.#first = -(half - 1);
    this.#table = new Float32Array(this.#phases * this.#taps);
    const i0beta = besselI0(KAISER_BETA);
    for (let p = 0; p < this.#phases; p++) {
      const frac = p / this.#phases;
      let sum = 0;
      for (let j = 0; j < this.#taps; j++) {
        const t = this.#first + j - frac; // distance from the output position, in input samples
        const x = t / halfLength;
        const w = Math.abs(x) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - x * x)) / i0beta;
        const v = 2 * cutoff * sinc(2 * cutoff * t) * w;
        this.#table[p * this.#taps + j] = v;
        sum += v;
      }
      // Unity gain at DC for every phase, so a constant stays constant.
      for (let j = 0; j < this.#taps; j++) this.#table[p * this.#taps + j]! /= sum;
    }
    this.#hist = new Float32Array(half);
    this.#histStart = -half;
  }

  /** Input samples held back, waiting for the future samples their filter needs. */
  get pending(): number {
    return this.#inCount - this.#base;
  }

  /** Feeds input; returns every output sample that input completes. */
  push(input: Float32Array): Float32Array {
    if (this.inRate === this.outRate) {
      this.#inCount += input.length;
      return input.slice();
    }
    const joined = new Float32Array(this.#hist.length + input.length);
    joined.set(this.#hist);
    joined.set(input, this.#hist.length);
    this.#hist = joined;
    this.#inCount += input.length;
    // Output n needs input up to floor(n·M/L) + first + taps − 1.
    return this.#run(this.#inCount - (this.#first + this.#taps - 1), Infinity);
  }

  /** Ends the input: the filter sees zeros past the end. Output length is round(inputs · out/in). */
  flush(): Float32Array {
    if (this.inRate === this.outRate) return new Float32Array(0);
    const total = Math.round((this.#inCount * this.#L) / this.#M);
    const tail = new Float32Array(this.#hist.length + this.#taps);
    tail.set(this.#hist);
    this.#hist = tail;
    return this.#run(Infinity, total);
  }

  /** Computes outputs while their position is below `baseLimit` and their index below `outLimit`. */
  #run(baseLimit: number, outLimit: number): Float32Array {
    const L = this.#L;
    const M = this.#M;
    const step = Math.floor(M / L);
    const stepRem = M % L;
    const taps = this.#taps;
    const table = this.#table;
    const phases = this.#phases;
    const hist = this.#hist;
    const histEnd = this.#histStart + hist.length;
    // How many outputs fit: by position (input available) and by count.
    let count = 0;
    {
      let b = this.#base;
      let r = this.#rem;
      let n = this.#n;
      const last = Math.min(baseLimit, histEnd - (this.#first + taps - 1));
      while (b < last && n < outLimit) {
        count++;
        n++;
        b += step;
        r += stepRem;
        if (r >= L) {
          r -= L;
          b++;
        }
      }
    }
    const out = new Float32Array(count);
    let base = this.#base;
    let rem = this.#rem;
    const offset = this.#first - this.#histStart;
    for (let o = 0; o < count; o++) {
      let p: number;
      let at = base + offset;
      if (phases === L) {
        p = rem;
      } else {
        p = Math.round((rem * phases) / L);
        if (p === phases) {
          p = 0;
          at++;
        }
      }
      const t0 = p * taps;
      let acc = 0;
      for (let j = 0; j < taps; j++) acc += hist[at + j]! * table[t0 + j]!;
      out[o] = acc;
      base += step;
      rem += stepRem;
      if (rem >= L) {
        rem -= L;
        base++;
      }
    }
    this.#n += count;
    this.#base = base;
    this.#rem = rem;
    // Drop input no later output will touch.
    const keepFrom = base + this.#first - 1;
    const drop = Math.max(0, Math.min(hist.length, keepFrom - this.#histStart));
    if (drop > 0) {
      this.#hist = hist.slice(drop);
      this.#histStart += drop;
    }
    return out;
  }
}

/** Resamples a whole signal at once. */
export function resample(samples: Float32Array, inRate: number, outRate: number): Float32Array {
  if (inRate === outRate) return samples.slice();
  const r = new Resampler(inRate, outRate);
  const head = r.push(samples);
  const tail = r.flush();
  const out = new Float32Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

/** Modified Bessel function of the first kind, order 0 (for the Kaiser window). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 50; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
