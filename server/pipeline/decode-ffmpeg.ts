/**
 * The ffmpeg engine: `ffmpeg -i <file> -vn -ac 1 -rematrix_maxval 1 -ar 16000
 * -f f32le -`, its stdout read as it arrives; ffmpeg downmixes and resamples
 * (its swr resampler: decision 086). Its failures are told as what they say
 * about the file, without the file's path.
 */
import { spawn } from 'node:child_process';
import { ByteToFloat, invalidFile, noSamples, PcmSink, throttledProgress, toPcm } from './decode-pcm.ts';
import { exitOf, PROBE_MIN_BYTES, probeDuration } from './decode-probe.ts';
import { CancelledError, PIPELINE_SAMPLE_RATE, StageError, type PcmAudio, type StageControl } from './types.ts';

/** Only so much of ffmpeg's stderr is kept for messages. */
const STDERR_KEEP = 4000;

/** ffmpeg resamples and downmixes itself; we read its float32 stdout as it comes. */
export async function decodeWithFfmpeg(
  file: string,
  size: number,
  label: string,
  tools: { ffmpegPath: string; ffprobePath: string },
  control: StageControl,
): Promise<PcmAudio> {
  const sink = new PcmSink();
  const progress = throttledProgress(control);
  let expected = 0;
  if (size >= PROBE_MIN_BYTES) {
    // Runs beside the decode: it only sizes the output and scales progress.
    void probeDuration(file, { ffprobePath: tools.ffprobePath, control }).then((d) => {
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
  const child = spawn(tools.ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
      throw new StageError(`ffmpeg was not found (${tools.ffmpegPath}): install ffmpeg to decode this file`, {
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
