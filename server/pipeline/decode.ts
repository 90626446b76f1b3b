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
 *
 * The jobs sit in files of their own: decode-probe.ts (what the file is, how
 * long it says it is), decode-in-process.ts and decode-ffmpeg.ts (the two
 * engines), decode-pcm.ts (collecting the samples); the resampler is the
 * project's one (common/audio/resample.ts).
 */
import { decodeWithFfmpeg } from './decode-ffmpeg.ts';
import { decodeInProcess, inProcessDecoderFor } from './decode-in-process.ts';
import { invalidFile } from './decode-pcm.ts';
import { declaredDuration, fileSize, readHead, sniffContainer, SNIFF_BYTES, wavSampleRate } from './decode-probe.ts';
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
        return await decodeInProcess(file, kind, size, label, this.#ffprobe, control);
      } catch (err) {
        if (!canFallBack || !isDecodeFailure(err)) throw err;
        // ffmpeg reads more codecs and damaged files more leniently; its verdict is the final one.
        try {
          return await decodeWithFfmpeg(file, size, label, { ffmpegPath: this.#ffmpeg, ffprobePath: this.#ffprobe }, control);
        } catch (ffErr) {
          if (ffErr instanceof StageError && ffErr.dependencyMissing) throw err;
          throw ffErr;
        }
      }
    }

    try {
      return await decodeWithFfmpeg(file, size, label, { ffmpegPath: this.#ffmpeg, ffprobePath: this.#ffprobe }, control);
    } catch (err) {
      if (!(canFallBack && err instanceof StageError && err.dependencyMissing)) throw err;
      // No ffmpeg: the built-in decoders still read every format sniffContainer names.
      if (!inProcessOk) {
        throw new StageError(
          `ffmpeg is not installed, and it is needed for this file: its contents are not a format the built-in decoder reads (install ffmpeg, or check that it is a real ${label} file)`,
          { retryable: true, dependencyMissing: true, cause: err },
        );
      }
      return await decodeInProcess(file, kind, size, label, this.#ffprobe, control);
    }
  }
}

// ── Errors ───────────────────────────────────────────────────────────────

/** Errors a decoder raises about the input, as opposed to cancellation or our own bugs. */
function isDecodeFailure(err: unknown): boolean {
  return !(err instanceof CancelledError) && !(err instanceof StageError && err.dependencyMissing);
}

/** Audio shorter than this share of the declared length (and by more than the seconds below) is truncated. */
const TRUNCATION_RATIO = 0.9;
const TRUNCATION_MIN_SECONDS = 0.5;
