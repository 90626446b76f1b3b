/**
 * The decoder on real media: a short espeak-ng clip encoded by ffmpeg into
 * each of the ten import formats (video containers with a small video
 * track), decoded by both engines (in process: WAV and MP3, the formats with
 * a built-in decoder) and compared with the WAV decode; then
 * broken and mislabelled files, a missing ffmpeg, cancellation, and the
 * resampler on tones.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resampler, resample } from '../../common/audio/resample.ts';
import { sniffContainer, wavDeclaredDuration } from './decode-probe.ts';
import { AudioDecoder } from './decode.ts';
import { fft } from './diarize.ts';
import { CancelledError, StageError, uncontrolled, type ImportExtension, type PcmAudio, type StageControl } from './types.ts';

let dir = '';
const auto = new AudioDecoder();
const inProcess = new AudioDecoder({ engine: 'in-process' });
let reference: PcmAudio;
/** Length of the source clip in seconds. */
let sourceSeconds = 0;

function ffmpeg(...args: string[]): void {
  execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The formats with an in-process decoder (server/pipeline/decode-in-process.ts IN_PROCESS_DECODERS); the rest are ffmpeg's. */
const IN_PROCESS_FORMATS = new Set(['wav', 'mp3']);

const FORMATS: { name: string; ext: ImportExtension; args: string[]; video?: boolean }[] = [
  { name: 'wav', ext: 'wav', args: ['-c:a', 'pcm_s16le'] },
  { name: 'mp3', ext: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '96k'] },
  { name: 'flac', ext: 'flac', args: ['-c:a', 'flac'] },
  { name: 'ogg', ext: 'ogg', args: ['-c:a', 'libvorbis'] },
  { name: 'm4a', ext: 'm4a', args: ['-c:a', 'aac'] },
  { name: 'aac', ext: 'aac', args: ['-c:a', 'aac', '-f', 'adts'] },
  { name: 'wma', ext: 'wma', args: ['-c:a', 'wmav2'] },
  { name: 'mp4', ext: 'mp4', args: ['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac'], video: true },
  { name: 'mkv', ext: 'mkv', args: ['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'libvorbis'], video: true },
  { name: 'webm', ext: 'webm', args: ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-c:a', 'libopus'], video: true },
];

function encode(name: string, ext: string, args: string[], video = false): string {
  const out = join(dir, `${name}.${ext}`);
  const source = join(dir, 'source.wav');
  const inputs = video
    ? ['-i', source, '-f', 'lavfi', '-i', 'color=c=blue:s=64x64:r=10', '-map', '1:v', '-map', '0:a', '-shortest']
    : ['-i', source];
  ffmpeg(...inputs, ...args, out);
  return out;
}

/** Peak normalised cross-correlation of b against a over lags up to ±maxLag samples (FFT-based). */
function bestCorrelation(a: Float32Array, b: Float32Array, maxLag: number): number {
  let size = 1;
  while (size < a.length + b.length) size <<= 1;
  const ar = new Float64Array(size);
  const ai = new Float64Array(size);
  const br = new Float64Array(size);
  const bi = new Float64Array(size);
  ar.set(a);
  br.set(b);
  fft(ar, ai);
  fft(br, bi);
  // conj(A)·B, then an inverse FFT by conjugating in and out.
  for (let i = 0; i < size; i++) {
    const re = ar[i]! * br[i]! + ai[i]! * bi[i]!;
    const im = ar[i]! * bi[i]! - ai[i]! * br[i]!;
    ar[i] = re;
    ai[i] = -im;
  }
  fft(ar, ai);
  let energyA = 0;
  let energyB = 0;
  for (const v of a) energyA += v * v;
  for (const v of b) energyB += v * v;
  let best = -Infinity;
  for (let lag = -maxLag; lag <= maxLag; lag++) best = Math.max(best, ar[(lag + size) % size]! / size);
  return best / Math.sqrt(energyA * energyB);
}

function assertStageError(err: unknown, message: RegExp, retryable = false): true {
  assert.ok(err instanceof StageError, `expected a StageError, got ${String(err)}`);
  assert.match(err.message, message);
  assert.equal(err.retryable, retryable, `retryable for "${err.message}"`);
  return true;
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'mas-decode-test-'));
  const speech = join(dir, 'speech.wav');
  execFileSync('espeak-ng', ['-v', 'en-us', '-p', '40', '-w', speech, 'Welcome to the weekly planning meeting. Let us begin.']);
  // 44.1 kHz stereo, the channels slightly different, so downmixing and resampling both run.
  ffmpeg('-i', speech, '-af', 'pan=stereo|c0=c0|c1=0.8*c0', '-ar', '44100', join(dir, 'source.wav'));
  sourceSeconds = Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', join(dir, 'source.wav')]).toString(),
  );
  for (const f of FORMATS) encode(f.name, f.ext, f.args, f.video);
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('each import format decodes to 16 kHz mono that matches the WAV', () => {
  before(async () => {
    reference = await auto.decode(encode('ref', 'wav', ['-c:a', 'pcm_s16le']), 'wav', uncontrolled());
  });

  for (const f of FORMATS) {
    for (const [engine, decoder] of [
      ['auto', auto],
      ...(IN_PROCESS_FORMATS.has(f.name) ? [['in-process', inProcess] as const] : []),
    ] as const) {
      test(`${f.name} (${engine})`, async () => {
        const file = join(dir, `${f.name}.${f.ext}`);
        const pcm = await decoder.decode(file, f.ext, uncontrolled());
        assert.equal(pcm.sampleRate, 16_000);
        assert.equal(pcm.durationSeconds, pcm.samples.length / 16_000);
        // Lossy codecs pad a frame or two (ADTS AAC keeps its encoder delay): 0.1 s of slack.
        assert.ok(Math.abs(pcm.durationSeconds - sourceSeconds) < 0.1, `duration ${pcm.durationSeconds} vs ${sourceSeconds}`);
        const r = bestCorrelation(reference.samples, pcm.samples, 0.1 * 16_000);
        assert.ok(r > 0.9, `correlation with the WAV decode ${r.toFixed(3)}`);
        let peak = 0;
        for (const v of pcm.samples) peak = Math.max(peak, Math.abs(v));
        assert.ok(peak > 0.05 && peak <= 1, `peak ${peak}`);
      });
    }
  }

  test('the in-process engine alone refuses the formats it has no decoder for, and says so', async () => {
    for (const f of FORMATS.filter((x) => !IN_PROCESS_FORMATS.has(x.name))) {
      await assert.rejects(inProcess.decode(join(dir, `${f.name}.${f.ext}`), f.ext, uncontrolled()), (e) =>
        assertStageError(e, /^the built-in decoder cannot read \w+ content$/),
      );
    }
  });

  test('stereo is downmixed to the mean of the channels', async () => {
    // The right channel is 0.8 × the left, so the mono mix is 0.9 × the speech: compare loudness (RMS).
    const speech = await auto.decode(join(dir, 'speech.wav'), 'wav', uncontrolled());
    const rms = (x: Float32Array) => Math.sqrt(x.reduce((sum, v) => sum + v * v, 0) / x.length);
    const ratio = rms(reference.samples) / rms(speech.samples);
    assert.ok(Math.abs(ratio - 0.9) < 0.01, `RMS ratio ${ratio}`);
  });

  test('a 16 kHz WAV (the recorder format) goes in process and keeps its samples', async () => {
    const file = encode('rec16k', 'wav', ['-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le']);
    assert.equal(await auto.firstEngine(file), 'in-process');
    assert.equal(await auto.firstEngine(join(dir, 'mp3.mp3')), 'ffmpeg');
    const pcm = await auto.decode(file, 'wav', uncontrolled());
    const bytes = readFileSync(file);
    const dataAt = bytes.indexOf('data') + 8;
    for (const i of [0, 1000, 20_000, pcm.samples.length - 1]) {
      // 1/32768 or 1/32767 per step, depending on the decoder: the same sample either way.
      assert.ok(Math.abs(pcm.samples[i]! - bytes.readInt16LE(dataAt + 2 * i) / 32768) < 1e-4, `sample ${i}`);
    }
  });

  test('the extension is only a label: an MP3 named .wav decodes as MP3', async () => {
    const file = join(dir, 'really-mp3.wav');
    writeFileSync(file, readFileSync(join(dir, 'mp3.mp3')));
    const pcm = await auto.decode(file, 'wav', uncontrolled());
    assert.ok(Math.abs(pcm.durationSeconds - sourceSeconds) < 0.1);
  });

  test('silence decodes (a later stage decides what to do with it)', async () => {
    for (const [decoder, ext, codec] of [
      [auto, 'flac', 'flac'],
      [inProcess, 'wav', 'pcm_s16le'],
    ] as const) {
      const file = join(dir, `silence.${ext}`);
      ffmpeg('-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=stereo', '-t', '2', '-c:a', codec, file);
      const pcm = await decoder.decode(file, ext, uncontrolled());
      assert.ok(Math.abs(pcm.durationSeconds - 2) < 0.01);
      assert.ok(pcm.samples.every((v) => v === 0));
    }
  });
});

describe('broken input is a StageError that a retry will not fix', () => {
  const random = (bytes: number, seed: number) => {
    const out = Buffer.alloc(bytes);
    let s = seed;
    for (let i = 0; i < bytes; i++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      out[i] = s >> 16;
    }
    return out;
  };
  const wavHeader = (rate: number, dataBytes: number) => {
    const h = Buffer.alloc(44);
    h.write('RIFF', 0, 'ascii');
    h.writeUInt32LE(0xfffffff0, 4); // both sizes claim ~4 GB
    h.write('WAVEfmt ', 8, 'ascii');
    h.writeUInt32LE(16, 16);
    h.writeUInt16LE(1, 20);
    h.writeUInt16LE(1, 22);
    h.writeUInt32LE(rate, 24);
    h.writeUInt32LE(rate * 2, 28);
    h.writeUInt16LE(2, 32);
    h.writeUInt16LE(16, 34);
    h.write('data', 36, 'ascii');
    h.writeUInt32LE(dataBytes, 40);
    return h;
  };

  for (const [engine, decoder] of [
    ['auto', auto],
    ['in-process', inProcess],
  ] as const) {
    test(`zero-length file (${engine})`, async () => {
      const file = join(dir, 'empty.mp3');
      writeFileSync(file, '');
      await assert.rejects(decoder.decode(file, 'mp3', uncontrolled()), (e) => assertStageError(e, /^the file is empty$/));
    });

    test(`random bytes named .wav and .mp3 (${engine})`, async () => {
      writeFileSync(join(dir, 'random.wav'), random(40_000, 1));
      writeFileSync(join(dir, 'random.mp3'), random(40_000, 2));
      await assert.rejects(decoder.decode(join(dir, 'random.wav'), 'wav', uncontrolled()), (e) =>
        assertStageError(e, /not a valid WAV file/),
      );
      await assert.rejects(decoder.decode(join(dir, 'random.mp3'), 'mp3', uncontrolled()), (e) =>
        assertStageError(e, /not a valid MP3 file/),
      );
    });

    test(`a WAV header claiming ~4 GB with no samples behind it (${engine})`, async () => {
      for (const rate of [16_000, 22_050]) {
        const file = join(dir, `huge-${rate}.wav`);
        writeFileSync(file, wavHeader(rate, 0xffffff00));
        await assert.rejects(decoder.decode(file, 'wav', uncontrolled()), (e) => assertStageError(e, /holds no audio samples/));
      }
    });

    test(`an MP3 cut inside its first frame (${engine})`, async () => {
      const file = join(dir, 'cut.mp3');
      writeFileSync(file, readFileSync(join(dir, 'mp3.mp3')).subarray(0, 200));
      await assert.rejects(decoder.decode(file, 'mp3', uncontrolled()), (e) =>
        assertStageError(e, /not a valid MP3 file|no audio samples/),
      );
    });
  }

  test('an MP4 with only a video track', async () => {
    const file = join(dir, 'video-only.mp4');
    ffmpeg('-f', 'lavfi', '-i', 'color=c=red:s=64x64:r=10', '-t', '1', '-c:v', 'libx264', '-preset', 'ultrafast', file);
    await assert.rejects(auto.decode(file, 'mp4', uncontrolled()), (e) => assertStageError(e, /^the file has no audio track$/));
  });

  test('a WebM and an MKV with only video say so too', async () => {
    for (const [ext, codec] of [
      ['webm', 'libvpx'],
      ['mkv', 'libx264'],
    ] as const) {
      const file = join(dir, `video-only.${ext}`);
      ffmpeg('-f', 'lavfi', '-i', 'color=c=red:s=64x64:r=10', '-t', '1', '-c:v', codec, file);
      await assert.rejects(auto.decode(file, ext, uncontrolled()), (e) => assertStageError(e, /^the file has no audio track$/));
    }
  });

  test('a missing file', async () => {
    await assert.rejects(auto.decode(join(dir, 'nope.wav'), 'wav', uncontrolled()), (e) => assertStageError(e, /missing/));
  });
});

describe('truncated files fail with the length they declare (decision 010)', () => {
  test('a WAV whose header claims ~4 GB but holds 0.5 s', async () => {
    for (const rate of [16_000, 22_050]) {
      const file = join(dir, `huge-short-${rate}.wav`);
      const header = Buffer.from(readFileSync(join(dir, `huge-${rate}.wav`)));
      const samples = Buffer.alloc(rate); // 0.5 s of 16-bit mono
      for (let i = 0; i < rate / 2; i++) samples.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 2 * i);
      writeFileSync(file, Buffer.concat([header, samples]));
      for (const decoder of [auto, inProcess]) {
        await assert.rejects(decoder.decode(file, 'wav', uncontrolled()), (err: unknown) => {
          assert.ok(err instanceof StageError);
          assert.match(err.message, /truncated: it declares \d+\.\d s of audio but only 0\.5 s/);
          assert.equal(err.retryable, false);
          return true;
        });
      }
    }
  });

  test('an MP3 cut in half (its Xing header states the whole length)', async () => {
    const whole = readFileSync(join(dir, 'mp3.mp3'));
    const file = join(dir, 'half.mp3');
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
    for (const decoder of [auto, inProcess]) {
      await assert.rejects(decoder.decode(file, 'mp3', uncontrolled()), /truncated/);
    }
  });

  test('a WAV whose data size is a streaming writer\'s "unknown" decodes what is there', () => {
    const header = Buffer.alloc(44);
    header.write('RIFF', 0, 'ascii');
    header.write('WAVEfmt ', 8, 'ascii');
    header.writeUInt32LE(16, 16);
    header.writeUInt32LE(32_000, 28); // bytes per second
    header.write('data', 36, 'ascii');
    header.writeUInt32LE(0xffff_ffff, 40);
    assert.equal(wavDeclaredDuration(header), null);
    header.writeUInt32LE(64_000, 40);
    assert.equal(wavDeclaredDuration(header), 2);
  });
});

describe('ffmpeg missing', () => {
  const noFfmpeg = new AudioDecoder({
    ffmpegPath: join(tmpdir(), 'no-such-dir', 'ffmpeg'),
    ffprobePath: join(tmpdir(), 'no-such-dir', 'ffprobe'),
  });

  test('formats the built-in decoder reads still decode', async () => {
    const pcm = await noFfmpeg.decode(join(dir, 'mp3.mp3'), 'mp3', uncontrolled());
    assert.ok(Math.abs(pcm.durationSeconds - sourceSeconds) < 0.1);
  });

  test('content only ffmpeg could tell is dependencyMissing and retryable', async () => {
    await assert.rejects(noFfmpeg.decode(join(dir, 'random.wav'), 'wav', uncontrolled()), (e) => {
      assertStageError(e, /ffmpeg is not installed/, true);
      assert.equal((e as StageError).dependencyMissing, true);
      return true;
    });
  });

  test('the ffmpeg engine alone is dependencyMissing', async () => {
    const only = new AudioDecoder({ engine: 'ffmpeg', ffmpegPath: join(tmpdir(), 'no-such-dir', 'ffmpeg') });
    await assert.rejects(only.decode(join(dir, 'mp3.mp3'), 'mp3', uncontrolled()), (e) => {
      assertStageError(e, /ffmpeg was not found/, true);
      assert.equal((e as StageError).dependencyMissing, true);
      return true;
    });
  });
});

describe('control', () => {
  function recording(): StageControl & { fractions: number[]; tracked: number } {
    const c = { ...uncontrolled(), fractions: [] as number[], tracked: 0 };
    c.progress = (f: number) => c.fractions.push(f);
    c.track = () => {
      c.tracked++;
      return () => undefined;
    };
    return c;
  }

  test('progress runs from 0 to 1 and ffmpeg is tracked', async () => {
    for (const [decoder, file, ext] of [
      [auto, join(dir, 'mp3.mp3'), 'mp3'],
      [inProcess, join(dir, 'mp3.mp3'), 'mp3'],
    ] as const) {
      const c = recording();
      await decoder.decode(file, ext, c);
      assert.equal(c.fractions[0], 0);
      assert.equal(c.fractions.at(-1), 1);
      assert.ok(c.fractions.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= c.fractions[i - 1]!)));
      if (decoder === auto) assert.ok(c.tracked >= 1);
    }
  });

  test('a cancelled job stops with CancelledError, in either engine', async () => {
    for (const [decoder, name, ext] of [
      [auto, 'flac.flac', 'flac'],
      [inProcess, 'mp3.mp3', 'mp3'],
    ] as const) {
      const abort = new AbortController();
      let calls = 0;
      const c: StageControl = {
        ...uncontrolled(),
        signal: abort.signal,
        // Cancelled at the second checkpoint: inside the decode loop.
        checkpoint: () => {
          calls++;
          if (calls < 2) return Promise.resolve();
          abort.abort();
          return Promise.reject(new CancelledError());
        },
      };
      await assert.rejects(decoder.decode(join(dir, name), ext, c), CancelledError);
    }
  });
});

describe('resampler', () => {
  const tone = (hz: number, rate: number, seconds: number) => {
    const x = new Float32Array(Math.round(rate * seconds));
    for (let i = 0; i < x.length; i++) x[i] = 0.5 * Math.sin((2 * Math.PI * hz * i) / rate);
    return x;
  };
  /** RMS error against the ideal tone at 16 kHz, middle 80 %, in dB relative to the tone. */
  const errorDb = (y: Float32Array, hz: number) => {
    let err = 0;
    const from = Math.floor(y.length * 0.1);
    const to = Math.floor(y.length * 0.9);
    for (let i = from; i < to; i++) err += (y[i]! - 0.5 * Math.sin((2 * Math.PI * hz * i) / 16_000)) ** 2;
    return 10 * Math.log10(err / (to - from) / 0.125);
  };
  const rmsMiddle = (y: Float32Array) => {
    let sum = 0;
    const from = Math.floor(y.length * 0.1);
    const to = Math.floor(y.length * 0.9);
    for (let i = from; i < to; i++) sum += y[i]! ** 2;
    return Math.sqrt(sum / (to - from));
  };

  test('passes speech-band tones in phase and at level', () => {
    for (const rate of [8000, 22_050, 44_100, 48_000, 96_000, 44_056]) {
      for (const hz of [300, 1000, 3000]) {
        const y = resample(tone(hz, rate, 1), rate, 16_000);
        assert.equal(y.length, 16_000);
        assert.ok(errorDb(y, hz) < -60, `${rate} Hz, ${hz} Hz tone: error ${errorDb(y, hz).toFixed(1)} dB`);
      }
    }
  });

  test('removes what would alias: tones above 8 kHz', () => {
    for (const rate of [44_100, 48_000]) {
      for (const hz of [9000, 12_000, 15_000]) {
        const y = resample(tone(hz, rate, 1), rate, 16_000);
        const db = 20 * Math.log10(rmsMiddle(y) / (0.5 / Math.SQRT2));
        assert.ok(db < -60, `${rate} Hz, ${hz} Hz tone: ${db.toFixed(1)} dB`);
      }
    }
  });

  test('streaming in odd chunks gives exactly the one-shot result', () => {
    const x = tone(700, 44_100, 2);
    const whole = resample(x, 44_100, 16_000);
    const r = new Resampler(44_100, 16_000);
    const parts: Float32Array[] = [];
    for (let i = 0; i < x.length; i += 1237) parts.push(r.push(x.subarray(i, i + 1237)));
    parts.push(r.flush());
    const joined = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    assert.deepEqual(joined, whole);
  });

  test('keeps a constant constant', () => {
    const y = resample(new Float32Array(44_100).fill(0.25), 44_100, 16_000);
    for (let i = 100; i < y.length - 100; i++) assert.ok(Math.abs(y[i]! - 0.25) < 1e-5);
  });
});

test('sniffContainer names the ten formats by their first bytes', () => {
  const head = (file: string) => new Uint8Array(readFileSync(join(dir, file)).subarray(0, 65_536));
  const expected: Record<string, string> = {
    'wav.wav': 'wav',
    'mp3.mp3': 'mp3',
    'flac.flac': 'flac',
    'ogg.ogg': 'oga',
    'm4a.m4a': 'm4a',
    'aac.aac': 'aac',
    'wma.wma': 'wma',
    'mp4.mp4': 'm4a',
    'mkv.mkv': 'mkv',
    'webm.webm': 'webm',
  };
  for (const [file, kind] of Object.entries(expected)) assert.equal(sniffContainer(head(file)), kind, file);
  assert.equal(sniffContainer(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])), undefined);
});
