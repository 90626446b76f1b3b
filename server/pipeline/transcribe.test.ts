/**
 * The one transcription path with stand-in stages: their order, the progress
 * ranges they report into, the optional enhancement stage, the typed config
 * each stage receives (read by the caller, ConfigService.transcriptionSettings(),
 * and handed over with the request), and audio without speech as a result
 * rather than an error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigService, type ConfigCaller } from '../features/config/service.ts';
import { openDatabase } from '../kernel/store/database.ts';
import { systemClock } from '../adapters/clock.ts';
import {
  transcribe,
  TRANSCRIPTION_END,
  TRANSCRIPTION_STAGES,
  type TranscriptionParts,
  type TranscriptionRequest,
  type TranscriptionSettings,
  type TranscriptionStage,
} from './transcribe.ts';
import type { ChildProcess } from 'node:child_process';
import { emptyStats } from './diarize/features.ts';
import { EventEmitter } from 'node:events';
import {
  CancelledError,
  StageError,
  uncontrolled,
  type PcmAudio,
  type RecognitionOptions,
  type SpeechRegion,
  type VadSettings,
  type DiarizationSettings,
} from './types.ts';

const AUDIO: PcmAudio = { sampleRate: 16_000, samples: new Float32Array(16_000), durationSeconds: 1 };

/** The settings a caller reads from a configuration nobody changed. */
function defaultSettings(): TranscriptionSettings {
  return new ConfigService({ db: openDatabase(':memory:'), clock: systemClock }).transcriptionSettings();
}

function parts(overrides: Partial<TranscriptionParts> = {}, log: string[] = []) {
  const config = new ConfigService({ db: openDatabase(':memory:'), clock: systemClock });
  const seen: { vad?: VadSettings; diarization?: DiarizationSettings; recognition?: RecognitionOptions } = {};
  const p: TranscriptionParts = {
    decoder: {
      decode: (_file, _ext, control) => {
        log.push('decode');
        control.progress(1);
        return Promise.resolve(AUDIO);
      },
    },
    detectSpeech: (_audio, settings): SpeechRegion[] => {
      log.push('vad');
      seen.vad = settings;
      return [{ start: 0.1, end: 0.9 }];
    },
    recognizerFor: () => ({
      name: 'stand-in',
      available: () => Promise.resolve(true),
      transcribe: (_audio, _regions, options, control) => {
        log.push('recognize');
        seen.recognition = options;
        control.progress(1);
        return Promise.resolve([
          { text: 'hello', start: 0.1, end: 0.4, confidence: 0.9 },
          { text: 'there', start: 0.5, end: 0.9, confidence: 0.9 },
        ]);
      },
    }),
    diarize: (_audio, _regions, settings) => {
      log.push('diarize');
      seen.diarization = settings;
      return Promise.resolve([{ speaker: 'S1', start: 0, end: 1 }]);
    },
    assignSpeakers: (words) => words.map(() => 'S1'),
    ...overrides,
  };
  return { parts: p, config, seen };
}

test('the stages run in order, each reporting inside its range, ending at TRANSCRIPTION_END', async () => {
  const log: string[] = [];
  const { parts: p, seen } = parts({}, log);
  const stages: TranscriptionStage[] = [];
  const progress: number[] = [];
  const control = { ...uncontrolled(), progress: (f: number) => progress.push(f) };
  const result = await transcribe(p, { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings() }, control, (s) =>
    stages.push(s),
  );
  assert.deepEqual(stages, ['decoding', 'detecting_speech', 'transcribing', 'diarizing'], 'no enhancement stage without an enhancer');
  assert.deepEqual(log, ['decode', 'vad', 'recognize', 'diarize']);
  assert.ok(
    progress.every((f, i) => i === 0 || f >= progress[i - 1]!),
    `progress never goes back: ${progress.join(', ')}`,
  );
  assert.equal(progress.at(-1), TRANSCRIPTION_END);
  assert.equal(result.speechFound, true);
  assert.deepEqual(
    result.segments.map((s) => s.text),
    ['hello there'],
  );
  assert.equal(seen.vad?.threshold, 0.5, 'the vad section, defaults filled in');
  assert.equal(seen.diarization?.speaker_count, null);
  assert.deepEqual(seen.recognition?.customWords, []);
  assert.equal(seen.recognition?.initialPrompt, '', 'the initial prompt is off by default');
});

test('an enhancer runs between decoding and voice activity; voice activity reads its output, the diarizer the decoded audio', async () => {
  const log: string[] = [];
  const enhanced: PcmAudio = { ...AUDIO, samples: new Float32Array(16_000).fill(0.01) };
  let vadAudio: PcmAudio | null = null;
  let diarizerAudio: PcmAudio | null = null;
  const { parts: p } = parts(
    {
      diarize: (audio) => {
        log.push('diarize');
        diarizerAudio = audio;
        return Promise.resolve([{ speaker: 'S1', start: 0, end: 1 }]);
      },
      enhance: (audio, _settings, control) => {
        log.push('enhance');
        assert.equal(audio, AUDIO);
        control.progress(0.5);
        return Promise.resolve(enhanced);
      },
      detectSpeech: (audio) => {
        log.push('vad');
        vadAudio = audio;
        return [{ start: 0, end: 1 }];
      },
    },
    log,
  );
  const progress: number[] = [];
  const stages: TranscriptionStage[] = [];
  await transcribe(
    p,
    { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings() },
    { ...uncontrolled(), progress: (f) => progress.push(f) },
    (s) => stages.push(s),
  );
  assert.deepEqual(log.slice(0, 3), ['decode', 'enhance', 'vad']);
  assert.equal(vadAudio, enhanced);
  assert.equal(diarizerAudio, AUDIO, 'the diarizer reads the decoded signal (decision 069)');
  assert.deepEqual(stages.slice(0, 3), ['decoding', 'enhancing', 'detecting_speech']);
  const { from, to } = TRANSCRIPTION_STAGES.enhancing;
  assert.ok(progress.includes(from + (to - from) * 0.5), 'the enhancer reports inside its own range');
});

test('typed config: the sections in force reach the stages; a job speaker count wins over the section', async () => {
  const { parts: p, config, seen } = parts();
  const caller: ConfigCaller = { scopes: ['read', 'write'] };
  config.replace('vad', { threshold: 0.7 }, caller, false);
  config.replace('custom-words', { words: ['Priya', 'roadmap'] }, caller, false);
  config.replace('initial-prompt', { enabled: true, prompt: 'A call about billing.' }, caller, false);
  config.replace('diarization', { max_speakers: 4 }, caller, false);
  await transcribe(
    p,
    { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: config.transcriptionSettings(), speakerCount: 2 },
    uncontrolled(),
    () => undefined,
  );
  assert.equal(seen.vad?.threshold, 0.7);
  assert.equal(seen.vad?.min_speech_ms, 250);
  assert.deepEqual(seen.recognition?.customWords, ['Priya', 'roadmap']);
  assert.equal(seen.recognition?.initialPrompt, 'A call about billing.');
  assert.equal(seen.diarization?.speaker_count, 2);
  assert.equal(seen.diarization?.max_speakers, 4);
});

test('no speech is a result, not an error: no regions skips recognition; no words skips diarization', async () => {
  const log: string[] = [];
  const { parts: silent } = parts({ detectSpeech: () => [] }, log);
  const quiet = await transcribe(
    silent,
    { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings() },
    uncontrolled(),
    () => undefined,
  );
  assert.equal(quiet.speechFound, false);
  assert.deepEqual(quiet.segments, []);
  assert.deepEqual(log, ['decode']);

  const log2: string[] = [];
  const { parts: wordless } = parts(
    {
      recognizerFor: () => ({ name: 'x', available: () => Promise.resolve(true), transcribe: () => Promise.resolve([]) }),
    },
    log2,
  );
  const none = await transcribe(
    wordless,
    { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings() },
    uncontrolled(),
    () => undefined,
  );
  assert.equal(none.speechFound, false);
  assert.ok(!log2.includes('diarize'));
});

test('given words (a diarization job), recognition is skipped and only speakers are worked out', async () => {
  const log: string[] = [];
  const { parts: p } = parts({}, log);
  const words = [{ text: 'kept', start: 0.2, end: 0.5, confidence: 1 }];
  const result = await transcribe(
    p,
    { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings(), words },
    uncontrolled(),
    () => undefined,
  );
  assert.deepEqual(log, ['decode', 'vad', 'diarize']);
  assert.deepEqual(result.words, words);
});

// ── The diarizer beside recognition (decision 094) ────────────────────────

/** A stand-in for a recognizer's child process: track() only needs something to register. */
const FAKE_CHILD = new EventEmitter() as unknown as ChildProcess;

/** Resolves with CancelledError's rejection once the signal fires: a stage that runs until it is stopped. */
function untilStopped(signal: AbortSignal, log: string[], name: string): Promise<never> {
  return new Promise((_resolve, reject) => {
    const stop = () => {
      log.push(`${name} stopped`);
      reject(new CancelledError());
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}

test('the diarizer starts once the recognizer has started its process, runs beside it, and the stages keep their order', async () => {
  const log: string[] = [];
  const { parts: p } = parts(
    {
      recognizerFor: () => ({
        name: 'stand-in',
        available: () => Promise.resolve(true),
        transcribe: async (_audio, _regions, _options, control) => {
          log.push('recognize');
          assert.ok(!log.includes('diarize'), 'not before the recognizer has a process running');
          control.track(FAKE_CHILD);
          assert.ok(log.includes('diarize'), 'the diarizer started beside the recognizer');
          await Promise.resolve();
          control.progress(1);
          return [{ text: 'hello', start: 0.1, end: 0.4, confidence: 0.9 }];
        },
      }),
      diarize: (_audio, _regions, _settings, control) => {
        log.push('diarize');
        control.progress(0.5); // reported while recognition runs: held back until its stage
        return Promise.resolve([{ speaker: 'S1', start: 0, end: 1 }]);
      },
    },
    log,
  );
  const stages: TranscriptionStage[] = [];
  const progress: number[] = [];
  const result = await transcribe(
    p,
    { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings() },
    { ...uncontrolled(), progress: (f) => progress.push(f) },
    (s) => stages.push(s),
  );
  assert.deepEqual(log, ['decode', 'vad', 'recognize', 'diarize']);
  assert.deepEqual(stages, ['decoding', 'detecting_speech', 'transcribing', 'diarizing']);
  assert.ok(
    progress.every((f, i) => i === 0 || f >= progress[i - 1]!),
    `progress never goes back: ${progress.join(', ')}`,
  );
  assert.equal(progress.at(-1), TRANSCRIPTION_END);
  assert.deepEqual(result.speakers, ['S1']);
});

test('a diarizer failure stops the recognizer, and is the error reported once both have ended', async () => {
  const log: string[] = [];
  const { parts: p } = parts(
    {
      recognizerFor: () => ({
        name: 'stand-in',
        available: () => Promise.resolve(true),
        transcribe: (_audio, _regions, _options, control) => {
          control.track(FAKE_CHILD);
          return untilStopped(control.signal, log, 'recognizer');
        },
      }),
      diarize: () => Promise.reject(new StageError('the diarizer broke', { retryable: true })),
    },
    log,
  );
  await assert.rejects(
    transcribe(p, { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings() }, uncontrolled(), () => undefined),
    /the diarizer broke/,
  );
  assert.ok(log.includes('recognizer stopped'));
});

test('a recognizer failure stops the diarizer before the error is reported; a cancel stops both', async () => {
  const log: string[] = [];
  const failing = parts(
    {
      recognizerFor: () => ({
        name: 'stand-in',
        available: () => Promise.resolve(true),
        transcribe: async (_audio, _regions, _options, control) => {
          control.track(FAKE_CHILD);
          await Promise.resolve();
          throw new StageError('the recognizer broke', { retryable: true });
        },
      }),
      diarize: (_audio, _regions, _settings, control) => untilStopped(control.signal, log, 'diarizer'),
    },
    log,
  ).parts;
  await assert.rejects(
    transcribe(
      failing,
      { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings() },
      uncontrolled(),
      () => undefined,
    ),
    /the recognizer broke/,
  );
  assert.deepEqual(log.slice(-1), ['diarizer stopped']);

  const cancelLog: string[] = [];
  const abort = new AbortController();
  const cancelled = parts(
    {
      recognizerFor: () => ({
        name: 'stand-in',
        available: () => Promise.resolve(true),
        transcribe: (_audio, _regions, _options, control) => {
          control.track(FAKE_CHILD);
          const stopped = untilStopped(control.signal, cancelLog, 'recognizer');
          abort.abort();
          return stopped;
        },
      }),
      diarize: (_audio, _regions, _settings, control) => untilStopped(control.signal, cancelLog, 'diarizer'),
    },
    cancelLog,
  ).parts;
  await assert.rejects(
    transcribe(
      cancelled,
      { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings() },
      { ...uncontrolled(), signal: abort.signal },
      () => undefined,
    ),
    CancelledError,
  );
  assert.ok(cancelLog.includes('recognizer stopped') && cancelLog.includes('diarizer stopped'), cancelLog.join(', '));
});

test("the diarizer's voice statistics go through to the stages only when they read the audio it measured", async () => {
  const voices = { S1: emptyStats() };
  const diarize = () => Promise.resolve({ turns: [{ speaker: 'S1', start: 0, end: 1 }], voices });
  const request: TranscriptionRequest = { audio: { path: 'x.wav', ext: 'wav' }, language: 'en', settings: defaultSettings() };
  const same = await transcribe(
    parts({ diarize, enhance: (audio) => Promise.resolve(audio) }).parts,
    request,
    uncontrolled(),
    () => undefined,
  );
  assert.equal(same.voices, voices, 'an enhancer that changed nothing: the stages read what the diarizer measured');
  const changed = await transcribe(
    parts({ diarize, enhance: (audio) => Promise.resolve({ ...audio, samples: audio.samples.map(() => 0.01) }) }).parts,
    request,
    uncontrolled(),
    () => undefined,
  );
  assert.equal(changed.voices, undefined, 'enhanced audio: the diarizer measured other samples than the stages read');
  const rediarized = await transcribe(
    parts({ diarize }).parts,
    { ...request, words: [{ text: 'hi', start: 0.1, end: 0.5, confidence: 1 }] },
    uncontrolled(),
    () => undefined,
  );
  assert.equal(rediarized.voices, voices, 'a diarization job hands them through too');
});
