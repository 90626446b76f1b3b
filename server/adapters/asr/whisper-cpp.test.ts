import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancelledError, StageError, uncontrolled, type PcmAudio, type StageControl } from '../../pipeline/types.ts';
import { buildPrompt, parseWhisperJson, UNKNOWN_CONFIDENCE, whisperLanguage, WhisperCppRecognizer } from './whisper-cpp.ts';

/** whisper-cli -ojf output, trimmed to what the parser reads plus the fields around it. */
const CANNED = {
  systeminfo: 'AVX = 1',
  model: { type: 'base' },
  params: { model: 'x', language: 'en', translate: false },
  result: { language: 'en' },
  transcription: [
    {
      timestamps: { from: '00:00:00,000', to: '00:00:02,000' },
      offsets: { from: 0, to: 2000 },
      text: ' Hello Okonkwo, welcome.',
      tokens: [
        {
          text: '[_BEG_]',
          timestamps: { from: '00:00:00,000', to: '00:00:00,000' },
          offsets: { from: 0, to: 0 },
          id: 50364,
          p: 0.9,
          t_dtw: -1,
        },
        { text: ' Hello', offsets: { from: 0, to: 400 }, id: 2425, p: 0.98, t_dtw: -1 },
        { text: ' Ok', offsets: { from: 500, to: 700 }, id: 3477, p: 0.6, t_dtw: -1 },
        { text: 'onk', offsets: { from: 700, to: 900 }, id: 266, p: 0.8, t_dtw: -1 },
        { text: 'wo', offsets: { from: 900, to: 1100 }, id: 86, p: 1.0, t_dtw: -1 },
        { text: ',', offsets: { from: 1100, to: 1150 }, id: 11, p: 0.2, t_dtw: -1 },
        { text: ' welcome', offsets: { from: 1200, to: 1800 }, id: 2928, p: 0.9, t_dtw: -1 },
        { text: '.', offsets: { from: 1800, to: 1850 }, id: 13, p: 0.95, t_dtw: -1 },
        { text: '<|endoftext|>', offsets: { from: 2000, to: 2000 }, id: 50257, p: 0.99, t_dtw: -1 },
      ],
    },
    // -oj without -ojf: no tokens; the segment's time is shared by word length
    { timestamps: {}, offsets: { from: 3000, to: 4000 }, text: ' Thanks all' },
  ],
};

describe('whisper.cpp JSON parsing', () => {
  it('joins tokens into words with the mean token probability, dropping special tokens', () => {
    const words = parseWhisperJson(JSON.stringify(CANNED));
    assert.deepEqual(
      words.map((w) => [w.text, w.start, w.end]),
      [
        ['Hello', 0, 0.4],
        ['Okonkwo,', 0.5, 1.15],
        ['welcome.', 1.2, 1.85],
        ['Thanks', 3, 3 + 6 / 9],
        ['all', 3 + 6 / 9, 4],
      ],
    );
    assert.equal(words[1]!.confidence, (0.6 + 0.8 + 1.0) / 3); // punctuation does not count
    assert.equal(words[3]!.confidence, UNKNOWN_CONFIDENCE);
  });

  it('falls back to the segment text when a character was split across tokens', () => {
    const doc = {
      transcription: [
        {
          offsets: { from: 0, to: 1000 },
          text: ' Zoë',
          tokens: [
            { text: ' Zo', offsets: { from: 0, to: 500 }, p: 0.9 },
            { text: '\uFFFD', offsets: { from: 500, to: 1000 }, p: 0.9 },
          ],
        },
      ],
    };
    assert.deepEqual(
      parseWhisperJson(JSON.stringify(doc)).map((w) => w.text),
      ['Zoë'],
    );
  });

  it('rejects output that is not whisper.cpp JSON as a retryable failure', () => {
    assert.throws(
      () => parseWhisperJson('{"oops":'),
      (e: unknown) => e instanceof StageError && e.retryable,
    );
    assert.throws(() => parseWhisperJson('{}'), /no transcription/);
  });

  it('maps languages to whisper codes and builds the prompt with the custom words last', () => {
    assert.equal(whisperLanguage('en-US'), 'en');
    assert.equal(whisperLanguage(''), 'auto');
    assert.equal(whisperLanguage('auto'), 'auto');
    assert.equal(
      buildPrompt('Weekly sync of the platform team.', ['Okonkwo', 'Kubernetes']),
      'Weekly sync of the platform team. Okonkwo, Kubernetes.',
    );
    assert.equal(buildPrompt('', []), '');
    const long = buildPrompt('word '.repeat(500), ['Priya'], 100);
    assert.ok(long.length <= 100);
    assert.match(long, /^word .* Priya\.$/);
  });
});

describe('WhisperCppRecognizer with a fake whisper.cpp', () => {
  let dir: string;
  let modelsDir: string;
  const audio: PcmAudio = { sampleRate: 16_000, samples: new Float32Array(16_000 * 60), durationSeconds: 60 };
  const options = {
    language: 'en-US',
    customWords: ['Okonkwo', 'Kubernetes'],
    initialPrompt: 'Platform team sync.',
    model: 'ggml-base.en',
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mas-whisper-test-'));
    modelsDir = join(dir, 'models');
    mkdirSync(modelsDir);
    writeFileSync(join(modelsDir, 'ggml-base.en.bin'), 'not really a model');
    writeFileSync(join(dir, 'canned.json'), JSON.stringify(CANNED));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A stand-in whisper-cli: records its arguments, prints progress, writes the canned JSON where -of says. */
  function fake(name: string, body = ''): string {
    const file = join(dir, name);
    writeFileSync(
      file,
      `#!/bin/sh
printf '%s\\n' "$@" > "${join(dir, `${name}.args`)}"
${body}
prefix=""
while [ $# -gt 0 ]; do if [ "$1" = "-of" ]; then prefix="$2"; fi; shift; done
echo "whisper_print_progress_callback: progress =  40%" >&2
echo "whisper_print_progress_callback: progress =  80%" >&2
cp "${join(dir, 'canned.json')}" "$prefix.json"
`,
    );
    chmodSync(file, 0o755);
    return file;
  }
  const argsOf = (name: string) =>
    readFileSync(join(dir, `${name}.args`), 'utf8')
      .split('\n')
      .slice(0, -1);

  it('passes model, audio, language, JSON output and prompt, and reads the words back', async () => {
    const progress: number[] = [];
    const r = new WhisperCppRecognizer({ binary: fake('whisper-cli'), modelsDir, threads: 2 });
    assert.equal(await r.available(), true);
    const words = await r.transcribe(audio, [{ start: 0, end: 60 }], options, { ...uncontrolled(), progress: (f) => progress.push(f) });
    const args = argsOf('whisper-cli');
    const value = (flag: string) => args[args.indexOf(flag) + 1];
    assert.equal(value('-m'), join(modelsDir, 'ggml-base.en.bin'));
    assert.match(value('-f')!, /speech\.wav$/);
    assert.equal(value('-l'), 'en');
    assert.equal(value('-t'), '2');
    assert.equal(value('--prompt'), 'Platform team sync. Okonkwo, Kubernetes.');
    assert.ok(args.includes('-oj') && args.includes('-ojf') && args.includes('-pp'));
    assert.deepEqual(
      words.map((w) => w.text),
      ['Hello', 'Okonkwo,', 'welcome.', 'Thanks', 'all'],
    );
    assert.deepEqual(progress, [0.4, 0.8, 1]);
  });

  it('maps times back to the recording when only speech regions were decoded', async () => {
    const r = new WhisperCppRecognizer({ binary: fake('whisper-regions'), modelsDir });
    // Two short regions far apart: the file holds 2 s, a 1 s gap, then 2 s.
    const words = await r.transcribe(
      audio,
      [
        { start: 10, end: 12 },
        { start: 40, end: 42 },
      ],
      options,
      uncontrolled(),
    );
    assert.deepEqual(
      words.map((w) => [w.text, w.start]),
      [
        ['Hello', 10],
        ['Okonkwo,', 10.5],
        ['welcome.', 11.2],
        ['Thanks', 40],
        ['all', 40.667],
      ],
    );
  });

  it('uses the first model when the import names none, and leaves the prompt out when empty', async () => {
    const r = new WhisperCppRecognizer({ binary: fake('whisper-default'), modelsDir });
    await r.transcribe(audio, [{ start: 0, end: 60 }], { language: 'de', customWords: [], initialPrompt: '' }, uncontrolled());
    const args = argsOf('whisper-default');
    assert.equal(args[args.indexOf('-m') + 1], join(modelsDir, 'ggml-base.en.bin'));
    assert.equal(args[args.indexOf('-l') + 1], 'de');
    assert.ok(!args.includes('--prompt'));
  });

  it('a missing or unset binary: not available, and a missing dependency', async () => {
    for (const binary of [undefined, join(dir, 'no-such-whisper')]) {
      const r = new WhisperCppRecognizer({ binary, modelsDir });
      assert.equal(await r.available(), false);
      await assert.rejects(r.transcribe(audio, [{ start: 0, end: 60 }], options, uncontrolled()), (err: unknown) => {
        assert.ok(err instanceof StageError);
        assert.equal(err.dependencyMissing, true);
        return true;
      });
    }
  });

  it('an unknown model (or one that climbs out of the folder) is a missing dependency; no model file: not available', async () => {
    const r = new WhisperCppRecognizer({ binary: fake('whisper-model'), modelsDir });
    for (const model of ['ggml-large', '../models/ggml-base.en']) {
      await assert.rejects(
        r.transcribe(audio, [{ start: 0, end: 60 }], { ...options, model }, uncontrolled()),
        (err: unknown) => err instanceof StageError && err.dependencyMissing,
      );
    }
    assert.equal(await new WhisperCppRecognizer({ binary: fake('whisper-nomodel'), modelsDir: join(dir, 'empty') }).available(), false);
  });

  it('a crash is retryable and names the error; no output file too', async () => {
    const crash = fake('whisper-crash', 'echo "error: failed to initialize whisper context" >&2; exit 3');
    await assert.rejects(
      new WhisperCppRecognizer({ binary: crash, modelsDir }).transcribe(audio, [{ start: 0, end: 60 }], options, uncontrolled()),
      (err: unknown) => {
        assert.ok(err instanceof StageError);
        assert.equal(err.retryable, true);
        assert.equal(err.dependencyMissing, false);
        assert.match(err.message, /exited with code 3: error: failed to initialize whisper context/);
        return true;
      },
    );
    const silent = fake('whisper-silent', 'exit 0');
    await assert.rejects(
      new WhisperCppRecognizer({ binary: silent, modelsDir }).transcribe(audio, [{ start: 0, end: 60 }], options, uncontrolled()),
      /no JSON output/,
    );
  });

  it('cancellation kills the tracked process', async () => {
    const slow = fake('whisper-slow', 'exec sleep 30');
    const abort = new AbortController();
    let pid = 0;
    const control: StageControl = {
      ...uncontrolled(),
      signal: abort.signal,
      track: (child) => {
        pid = child.pid!;
        setTimeout(() => abort.abort(), 50);
        return () => undefined;
      },
    };
    await assert.rejects(
      new WhisperCppRecognizer({ binary: slow, modelsDir }).transcribe(audio, [{ start: 0, end: 60 }], options, control),
      CancelledError,
    );
    assert.throws(() => process.kill(pid, 0));
  });
});
