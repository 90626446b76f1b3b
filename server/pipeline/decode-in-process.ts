/**
 * The in-process engine: WAV and MP3 only, with the MIT-licensed
 * @audio/decode-wav and @audio/decode-mp3 fed as a stream from disk, then
 * the channels' mean and the project's resampler (common/audio/resample.ts).
 * Every other format is ffmpeg's (docs/decisions/053-permissive-decoders.md).
 */
import { createReadStream } from 'node:fs';
import { Resampler } from '../../common/audio/resample.ts';
import { downmix, noSamples, PcmSink, throttledProgress, toPcm } from './decode-pcm.ts';
import { PROBE_MIN_BYTES, probeDuration } from './decode-probe.ts';
import { CancelledError, PIPELINE_SAMPLE_RATE, StageError, type PcmAudio, type StageControl } from './types.ts';

/** Bytes read per chunk from disk for the in-process decoders. */
const READ_CHUNK_BYTES = 256 * 1024;

/** Decodes `file` (sniffed as `kind`) in process, streamed from disk, then downmix + resample. */
export async function decodeInProcess(
  file: string,
  kind: string,
  size: number,
  label: string,
  ffprobePath: string,
  control: StageControl,
): Promise<PcmAudio> {
  const sink = new PcmSink();
  // A duration estimate lets the sink allocate its final array once (64 kB per second of audio).
  if (size >= PROBE_MIN_BYTES) {
    void probeDuration(file, { ffprobePath, control }).then((d) => {
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

function describeInProcessError(err: unknown, label: string): StageError {
  if (err instanceof StageError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/no audio track|no audio stream/i.test(message)) {
    return new StageError('the file has no audio track', { retryable: false, cause: err });
  }
  return new StageError(`the file is not a valid ${label} file (${message.slice(0, 200)})`, { retryable: false, cause: err });
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

export function inProcessDecoderFor(kind: string): ChunkDecoderFactory | undefined {
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
