import assert from 'node:assert/strict';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancelledError, StageError, uncontrolled, type PcmAudio, type RecognizedWord, type StageControl } from '../../pipeline/types.ts';
import { findExecutable } from '../fs-probe.ts';
import { kwsThresholdExponent, mergeDetections, minSpotConfidence } from './pocketsphinx-kws.ts';
import { isSpokenWord, overrideOptions, parseTimedLine, stripAlternate } from './pocketsphinx-process.ts';
import { listPocketSphinxModels, PocketSphinxRecognizer, selectPocketSphinxModel } from './pocketsphinx.ts';
import { dictionaryKey, espeakToCmu, lettersToCmu, tokenize } from './pronunciations.ts';
import { mapToSourceTime, planDecodeSpans, SPAN_GAP_SECONDS } from './spans.ts';

const options = { language: 'en', customWords: [] as string[], initialPrompt: '' };

describe('pocketsphinx output parsing', () => {
  it('reads word lines of -time yes and ignores hypothesis lines', () => {
    assert.deepEqual(parseTimedLine('yesterday(2) 0.030 0.630 0.028681'), {
      text: 'yesterday(2)',
      start: 0.03,
      end: 0.63,
      confidence: 0.028681,
    });
    // Rounding prints posteriors a hair above 1.
    assert.equal(parseTimedLine('<sil> 1.780 2.450 1.000100')?.confidence, 1);
    // Keyphrases may hold spaces and are printed with trailing blanks.
    assert.equal(parseTimedLine('anna maria  2.870 3.250 0.878346')?.text, 'anna maria');
    assert.equal(parseTimedLine('yesterday i finished at a lot'), null);
    assert.equal(parseTimedLine('priya  '), null);
  });

  it('keeps spoken words only and strips alternate-pronunciation markers', () => {
    for (const t of ['<s>', '</s>', '<sil>', '[NOISE]', '[BREATH]', '++GARBAGE++', 'um', 'uh(2)']) assert.equal(isSpokenWord(t), false, t);
    for (const t of ['yesterday(2)', 'report', "don't"]) assert.equal(isSpokenWord(t), true, t);
    assert.equal(stripAlternate('when(3)'), 'when');
  });
});

describe('the language-model pass options', () => {
  it('lets a measurement replace a default option instead of repeating it, and adds the ones it alone names', () => {
    // pocketsphinx_continuous refuses an option given twice.
    assert.deepEqual(overrideOptions(['-maxhmmpf', '3000', '-maxwpf', '10'], ['-maxwpf', '-1', '-lw', '8']), [
      '-maxhmmpf',
      '3000',
      '-maxwpf',
      '-1',
      '-lw',
      '8',
    ]);
    assert.deepEqual(overrideOptions(['-maxhmmpf', '3000'], []), ['-maxhmmpf', '3000']);
  });
});

describe('decode plan', () => {
  it('decodes the whole recording when the regions cover nearly all of it', () => {
    assert.deepEqual(planDecodeSpans([{ start: 0.1, end: 9.8 }], 10), {
      spans: [{ sourceStart: 0, sourceEnd: 10, fileStart: 0 }],
      fileDuration: 10,
    });
  });

  it('lays sparse regions end to end, merging close ones, and maps times back', () => {
    const plan = planDecodeSpans(
      [
        { start: 30, end: 32 },
        { start: 2, end: 4 },
        { start: 4.1, end: 5 },
      ],
      60,
    );
    assert.deepEqual(plan.spans, [
      { sourceStart: 2, sourceEnd: 5, fileStart: 0 },
      { sourceStart: 30, sourceEnd: 32, fileStart: 3 + SPAN_GAP_SECONDS },
    ]);
    const words = mapToSourceTime(
      [
        { text: 'a', start: 0.5, end: 1, confidence: 0.5 },
        { text: 'b', start: 3 + SPAN_GAP_SECONDS + 0.2, end: 3 + SPAN_GAP_SECONDS + 0.6, confidence: 0.9 },
        // a word spilling into the gap is clamped to its region
        { text: 'c', start: 4 + SPAN_GAP_SECONDS + 0.9, end: 4 + SPAN_GAP_SECONDS + 1.5, confidence: 0.9 },
      ],
      plan,
      60,
    );
    assert.deepEqual(
      words.map((w) => [w.text, w.start, w.end]),
      [
        ['a', 2.5, 3],
        ['b', 30.2, 30.6],
        ['c', 31.9, 32],
      ],
    );
  });
});

describe('vocabulary bias helpers', () => {
  it('maps espeak-ng phonemes to CMU phones', () => {
    assert.equal(espeakToCmu("dZ_'V_dZ"), 'JH AH JH');
    assert.equal(espeakToCmu("0_k_'O2_N_k_w_oU"), 'AA K AO NG K W OW');
    assert.equal(espeakToCmu("k_j_'u:_b_3_n_,i:_t_s"), 'K Y UW B ER N IY T S');
    assert.equal(espeakToCmu("a#_f_'I_l_I2_;_,eI_t#_I_N"), 'AH F IH L IH EY T IH NG');
  });

  it('has letter rules for when espeak-ng is missing', () => {
    assert.equal(lettersToCmu('Priya'), 'P R IH Y AE');
    assert.equal(lettersToCmu('Chad'), 'CH AE D');
    assert.equal(lettersToCmu('Jane'), 'JH AE N');
    assert.equal(lettersToCmu('Vicky'), 'V IH K IY');
  });

  it('tokenizes entries and gives non-ASCII words a stable dictionary key', () => {
    assert.deepEqual(tokenize('Jean-Luc O’Brien, (Zoë)'), ['Jean-Luc', "O'Brien", 'Zoë']);
    assert.equal(dictionaryKey('Priya'), 'priya');
    assert.match(dictionaryKey('Zoë'), /^mas-word-[0-9a-z]+$/);
    assert.equal(dictionaryKey('Zoë'), dictionaryKey('zoë'));
  });

  it('asks longer phrases for a lower spotting threshold, within bounds', () => {
    assert.equal(kwsThresholdExponent(1), 10);
    assert.equal(kwsThresholdExponent(5), 25);
    assert.equal(kwsThresholdExponent(30), 50);
  });

  it('replaces the words a detection covers and keeps times in order', () => {
    const phrase = { display: ['Anna', 'Maria'], keys: ['anna', 'maria'], pronunciations: ['AE N AH', 'M AA R IY AH'], phones: 8 };
    const words = [
      { text: 'with', start: 0, end: 0.3, confidence: 0.9 },
      { text: 'and', start: 0.35, end: 0.6, confidence: 0.2 },
      { text: 'a', start: 0.6, end: 0.7, confidence: 0.1 },
      { text: 'area', start: 0.7, end: 1.2, confidence: 0.3 },
      { text: 'today', start: 1.25, end: 1.7, confidence: 0.9 },
    ];
    const merged = mergeDetections(words, [
      { phrase, start: 0.32, end: 1.3, confidence: 0.9 },
      // weaker overlapping detection: loses
      { phrase, start: 0.4, end: 1.2, confidence: 0.85 },
      // too short for eight phones: a fragment
      { phrase, start: 1.5, end: 1.6, confidence: 0.95 },
      // scored below the floor
      { phrase, start: 2, end: 3, confidence: 0.5 },
    ]);
    assert.deepEqual(
      merged.map((w) => w.text),
      ['with', 'anna', 'maria', 'today'],
    );
    for (let i = 1; i < merged.length; i++) assert.ok(merged[i]!.start >= merged[i - 1]!.end - 1e-9);
    assert.equal(merged[1]!.start, 0.32);
    assert.equal(merged[2]!.end, 1.25); // trimmed where the next word starts
  });

  it('does not let a spotting overrule a word pass 1 was sure of, nor insert into silence', () => {
    const phrase = { display: ['Priya'], keys: ['priya'], pronunciations: ['P R IY AH'], phones: 4 };
    const words = [
      { text: 'security', start: 0, end: 0.6, confidence: 1 },
      { text: 'degree', start: 1, end: 1.4, confidence: 0.05 },
    ];
    const merged = mergeDetections(words, [
      { phrase, start: 0, end: 0.6, confidence: 0.9 },
      { phrase, start: 2, end: 2.4, confidence: 0.9 },
      { phrase, start: 1, end: 1.4, confidence: 0.9 },
    ]);
    assert.deepEqual(
      merged.map((w) => w.text),
      ['security', 'priya'],
    );
  });

  it('asks more of a spotting the longer the word list', () => {
    assert.equal(minSpotConfidence(5), 0.83);
    assert.equal(minSpotConfidence(16), 0.83);
    assert.ok(Math.abs(minSpotConfidence(64) - 0.85) < 1e-9);
    const phrase = { display: ['Anika'], keys: ['anika'], pronunciations: ['AE N IH K AH'], phones: 5 };
    const words = [{ text: 'and', start: 0, end: 0.4, confidence: 0.3 }];
    const detection = { phrase, start: 0, end: 0.4, confidence: 0.84 };
    assert.deepEqual(
      mergeDetections(words, [detection], 6).map((w) => w.text),
      ['anika'],
    );
    assert.deepEqual(
      mergeDetections(words, [detection], 500).map((w) => w.text),
      ['and'],
    );
  });
});

describe('model selection', () => {
  const models = [
    { name: 'pocketsphinx-en-us', hmm: 'h', lm: 'l', dict: 'd' },
    { name: 'pocketsphinx-de', hmm: 'h', lm: 'l', dict: 'd' },
  ];
  it('takes the named model, else the language, else nothing', () => {
    assert.equal(selectPocketSphinxModel(models, 'pocketsphinx-de', 'en')?.name, 'pocketsphinx-de');
    assert.equal(selectPocketSphinxModel(models, 'ggml-base', 'en'), null);
    assert.equal(selectPocketSphinxModel(models, undefined, 'en')?.name, 'pocketsphinx-en-us');
    assert.equal(selectPocketSphinxModel(models, undefined, 'en-US')?.name, 'pocketsphinx-en-us');
    assert.equal(selectPocketSphinxModel(models, undefined, 'auto')?.name, 'pocketsphinx-en-us');
    assert.equal(selectPocketSphinxModel(models, undefined, 'de')?.name, 'pocketsphinx-de');
    assert.equal(selectPocketSphinxModel(models, undefined, 'fr'), null);
  });
});

describe('PocketSphinxRecognizer failures (fake tools)', () => {
  let dir: string;
  let modelRoot: string;
  const oneSecond: PcmAudio = { sampleRate: 16_000, samples: new Float32Array(16_000), durationSeconds: 1 };
  const region = [{ start: 0, end: 1 }];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mas-ps-test-'));
    modelRoot = fakeModelRoot(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function script(name: string, body: string): string {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('lists only complete models', () => {
    assert.deepEqual(
      listPocketSphinxModels(modelRoot).map((m) => m.name),
      ['pocketsphinx-en-us'],
    );
  });

  it('a missing binary: not available, and transcribe fails as a missing dependency', async () => {
    const r = new PocketSphinxRecognizer({ binary: join(dir, 'no-such-binary'), modelRoot });
    assert.equal(await r.available(), false);
    await assert.rejects(r.transcribe(oneSecond, region, options, uncontrolled()), (err: unknown) => {
      assert.ok(err instanceof StageError);
      assert.equal(err.dependencyMissing, true);
      return true;
    });
  });

  it('a missing model: not available, and a missing dependency', async () => {
    const r = new PocketSphinxRecognizer({ binary: script('ok.sh', 'exit 0'), modelRoot: join(dir, 'nowhere') });
    assert.equal(await r.available(), false);
    await assert.rejects(
      r.transcribe(oneSecond, region, options, uncontrolled()),
      (err: unknown) => err instanceof StageError && err.dependencyMissing,
    );
    const named = new PocketSphinxRecognizer({ binary: script('ok2.sh', 'exit 0'), modelRoot });
    await assert.rejects(named.transcribe(oneSecond, region, { ...options, model: 'pocketsphinx-xx' }, uncontrolled()), /pocketsphinx-xx/);
  });

  it('a crash is retryable and carries the error line of its log', async () => {
    // The tool writes its log where -logfn says.
    const crash = script(
      'crash.sh',
      'while [ $# -gt 0 ]; do if [ "$1" = -logfn ]; then echo "ERROR: \\"acmod.c\\", line 83: ' +
        'Folding model failed" > "$2"; fi; shift; done; exit 3',
    );
    const r = new PocketSphinxRecognizer({ binary: crash, modelRoot });
    assert.equal(await r.available(), true);
    await assert.rejects(r.transcribe(oneSecond, region, options, uncontrolled()), (err: unknown) => {
      assert.ok(err instanceof StageError);
      assert.equal(err.retryable, true);
      assert.equal(err.dependencyMissing, false);
      assert.match(err.message, /exited with code 3: .*Folding model failed/);
      return true;
    });
  });

  it('cancellation kills the tracked process and rejects with CancelledError', async () => {
    const slow = script('slow.sh', 'exec sleep 30');
    const abort = new AbortController();
    const tracked: number[] = [];
    const control: StageControl = {
      signal: abort.signal,
      checkpoint: () => (abort.signal.aborted ? Promise.reject(new CancelledError()) : Promise.resolve()),
      track: (child) => {
        tracked.push(child.pid!);
        setTimeout(() => abort.abort(), 50);
        return () => undefined;
      },
      progress: () => undefined,
    };
    const started = Date.now();
    await assert.rejects(
      new PocketSphinxRecognizer({ binary: slow, modelRoot }).transcribe(oneSecond, region, options, control),
      CancelledError,
    );
    assert.equal(tracked.length, 1);
    assert.ok(Date.now() - started < 5000);
    assert.throws(() => process.kill(tracked[0]!, 0)); // the process is gone
  });
});

// ── One process per group (decision 094), with fake tools ────────────────

describe('PocketSphinxRecognizer side by side (fake tools)', () => {
  let dir: string;
  let modelRoot: string;
  // Ten seconds with speech at 1–3 s and 6–8 s: two groups of 2 s each.
  const tenSeconds: PcmAudio = { sampleRate: 16_000, samples: new Float32Array(160_000), durationSeconds: 10 };
  const twoRegions = [
    { start: 1, end: 3 },
    { start: 6, end: 8 },
  ];
  /** The size of a WAV file of that many seconds of the pipeline's audio. */
  const wavBytes = (seconds: number) => 44 + 2 * 16_000 * seconds;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mas-ps-groups-'));
    modelRoot = fakeModelRoot(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A fake pocketsphinx_continuous: `body` runs with $infile set to its -infile. */
  function tool(name: string, body: string): string {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ "$1" = -infile ]; then infile="$2"; fi; shift; done\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  /** A control that aborts once `processes` processes are tracked, and remembers them. */
  function abortOnceTracked(processes: number): { control: StageControl; tracked: ChildProcess[] } {
    const abort = new AbortController();
    const tracked: ChildProcess[] = [];
    const control: StageControl = {
      signal: abort.signal,
      checkpoint: () => (abort.signal.aborted ? Promise.reject(new CancelledError()) : Promise.resolve()),
      track: (child) => {
        tracked.push(child);
        if (tracked.length === processes) abort.abort();
        return () => undefined;
      },
      progress: () => undefined,
    };
    return { control, tracked };
  }

  it('decodes each group in a process of its own, at the same time, and joins their words in order', async () => {
    const marks = mkdtempSync(join(dir, 'marks-'));
    // Each process says whether it saw the other one running (it waits for it, up to 10 s) and how big its file is.
    const both = tool(
      'both.sh',
      `touch "${marks}/started-$$"; n=0\n` +
        `while [ "$(ls "${marks}" | wc -l)" -lt 2 ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done\n` +
        `if [ "$(ls "${marks}" | wc -l)" -ge 2 ]; then w=together; else w=alone; fi\n` +
        `echo "$w$(stat -c %s "$infile") 0.010 0.020 0.900"`,
    );
    const tracked: number[] = [];
    const words = await new PocketSphinxRecognizer({
      binary: both,
      modelRoot,
      processes: 2,
      minGroupSeconds: 1,
      warmUpSeconds: 0,
    }).transcribe(tenSeconds, twoRegions, options, {
      ...uncontrolled(),
      track: (child) => {
        tracked.push(child.pid!);
        return () => undefined;
      },
    });
    assert.equal(tracked.length, 2, 'two processes');
    assert.deepEqual(
      words.map((w) => [w.text, w.start]),
      [
        [`together${wavBytes(4.5)}`, 0.01],
        [`together${wavBytes(5.5)}`, 4.51],
      ],
      'each process had its own stretch of the recording, cut in the middle of the pause (4.5 s), and ran while the other did',
    );
  });

  it('the second process hears the first region again as its warm-up, and its words there are dropped', async () => {
    const twice = tool(
      'warm-up.sh',
      'size=$(stat -c %s "$infile")\necho "first$size 0.010 0.020 0.900"\n' +
        'if [ "$size" -gt 100000 ]; then echo "second$size 4.500 4.600 0.900"; fi',
    );
    const words = await new PocketSphinxRecognizer({
      binary: twice,
      modelRoot,
      processes: 2,
      minGroupSeconds: 1,
      warmUpSeconds: 2,
    }).transcribe(tenSeconds, twoRegions, options, uncontrolled());
    // Group 1's file: 0-4.5 s (its "second" word at 4.5 s lies past its cut: dropped); group 2's: 2.5-10 s, its
    // first 2 s the warm-up (its "first" word, at 2.51 s, is group 1's: dropped).
    assert.deepEqual(
      words.map((w) => [w.text, w.start]),
      [
        [`first${wavBytes(4.5)}`, 0.01],
        [`second${wavBytes(7.5)}`, 7],
      ],
    );
  });

  it('with one process, one file: the recording, its pauses in it (decision 120)', async () => {
    const size = tool('size.sh', 'echo "file$(stat -c %s "$infile") 0.010 0.020 0.900"');
    const words = await new PocketSphinxRecognizer({ binary: size, modelRoot, processes: 1, minGroupSeconds: 1 }).transcribe(
      tenSeconds,
      twoRegions,
      options,
      uncontrolled(),
    );
    assert.deepEqual(
      words.map((w) => w.text),
      [`file${wavBytes(10)}`],
    );
  });

  it('a cancel ends every process at once', async () => {
    const slow = tool('slow-both.sh', 'exec sleep 30');
    const { control, tracked } = abortOnceTracked(2);
    await assert.rejects(
      new PocketSphinxRecognizer({ binary: slow, modelRoot, processes: 2, minGroupSeconds: 1 }).transcribe(
        tenSeconds,
        twoRegions,
        options,
        control,
      ),
      CancelledError,
    );
    assert.equal(tracked.length, 2);
    // Killed, both of them (not left to end by themselves), by the time the call returns.
    assert.deepEqual(
      tracked.map((c) => c.signalCode),
      ['SIGKILL', 'SIGKILL'],
    );
  });

  it('a failing process ends its sibling, and its own error is the one reported', async () => {
    // The second group's process fails; the first would decode for a minute.
    const oneFails = tool('one-fails.sh', 'case "$infile" in *group-1*) echo "ERROR: broken model" >&2; exit 3;; esac\nexec sleep 60');
    const children: ChildProcess[] = [];
    await assert.rejects(
      new PocketSphinxRecognizer({ binary: oneFails, modelRoot, processes: 2, minGroupSeconds: 1 }).transcribe(
        tenSeconds,
        twoRegions,
        options,
        {
          ...uncontrolled(),
          track: (child) => {
            children.push(child);
            return () => undefined;
          },
        },
      ),
      (err: unknown) => err instanceof StageError && /exited with code 3: ERROR: broken model/.test(err.message),
    );
    // Both have ended by the time the call returns: the sibling was killed, not left to finish.
    assert.equal(children.length, 2);
    const failed = children.find((c) => c.exitCode === 3);
    assert.ok(failed !== undefined, 'one process failed with its own code');
    assert.equal(children.find((c) => c !== failed)?.signalCode, 'SIGKILL');
  });
});

// ── Real pocketsphinx on synthetic speech ─────────────────────────────────

const haveTools =
  (await findExecutable('pocketsphinx_continuous', process.env.PATH ?? '')) !== null &&
  (await findExecutable('espeak-ng', process.env.PATH ?? '')) !== null &&
  (await findExecutable('ffmpeg', process.env.PATH ?? '')) !== null &&
  listPocketSphinxModels('/usr/share/pocketsphinx/model').length > 0;

/** espeak-ng's Klatt voice is the one pocketsphinx's acoustic model copes with best (decision 011). */
function synthesize(text: string): PcmAudio {
  const dir = mkdtempSync(join(tmpdir(), 'mas-ps-clip-'));
  try {
    const wav = join(dir, 'clip.wav');
    execFileSync('espeak-ng', ['-v', 'en-us+klatt', '-s', '150', '-w', wav, text]);
    const raw = execFileSync('ffmpeg', ['-loglevel', 'error', '-i', wav, '-ar', '16000', '-ac', '1', '-f', 'f32le', '-']);
    const samples = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4).slice();
    return { sampleRate: 16_000, samples, durationSeconds: samples.length / 16_000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('PocketSphinxRecognizer on synthetic speech', { skip: haveTools ? false : 'pocketsphinx, espeak-ng or ffmpeg missing' }, () => {
  const NAMES = ['Siobhan', 'Okonkwo', 'Priya', 'Grafana', 'Anika'];
  const TEXT =
    'Thanks Siobhan. I talked to Okonkwo about the release. Priya will update the Grafana ' +
    'dashboard this afternoon. Anika is waiting for the security review.';
  let audio: PcmAudio;
  let plain: RecognizedWord[];
  let biased: RecognizedWord[];
  const progress: number[] = [];
  // Two runs only (the tool is slow on two cores): without and with the custom words.
  before(async () => {
    audio = synthesize(TEXT);
    const region = [{ start: 0, end: audio.durationSeconds }];
    const control = { ...uncontrolled(), progress: (f: number) => progress.push(f) };
    plain = await new PocketSphinxRecognizer().transcribe(audio, region, options, uncontrolled());
    // Two names come through the initial prompt, where words the dictionary lacks are spotted too.
    const customWords = ['Siobhan', 'Okonkwo', 'Priya', 'Kubernetes'];
    biased = await new PocketSphinxRecognizer().transcribe(
      audio,
      region,
      { ...options, customWords, initialPrompt: 'Weekly sync with Anika about Grafana.' },
      control,
    );
  });

  const namesHeard = (words: readonly { text: string }[]) => NAMES.filter((n) => words.some((w) => w.text === n)).length;

  it('returns timed words inside the clip, in order, with confidences in 0..1, and reports progress', () => {
    for (const words of [plain, biased]) {
      assert.ok(words.length >= 10, `only ${words.length} words`);
      let last = 0;
      for (const w of words) {
        assert.ok(w.start >= last - 1e-9 && w.end >= w.start && w.end <= audio.durationSeconds + 1e-9, JSON.stringify(w));
        assert.ok(w.confidence >= 0 && w.confidence <= 1);
        assert.doesNotMatch(w.text, /[<[(]/);
        last = w.start;
      }
    }
    // Ordinary words get through even robotic speech.
    const text = plain.map((w) => w.text).join(' ');
    assert.match(text, /dashboard/);
    assert.match(text, /security review/);
    assert.ok(progress.length > 1 && progress.at(-1) === 1);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! >= progress[i - 1]!);
  });

  it('a cancel while two processes decode leaves no pocketsphinx process behind', async () => {
    // The clip twice, three seconds apart: two regions, one process each.
    const gap = 3 * 16_000;
    const samples = new Float32Array(2 * audio.samples.length + gap);
    samples.set(audio.samples, 0);
    samples.set(audio.samples, audio.samples.length + gap);
    const twice: PcmAudio = { sampleRate: 16_000, samples, durationSeconds: samples.length / 16_000 };
    const d = audio.durationSeconds;
    const abort = new AbortController();
    const tracked: ChildProcess[] = [];
    const control: StageControl = {
      ...uncontrolled(),
      signal: abort.signal,
      track: (child) => {
        tracked.push(child);
        if (tracked.length === 2) abort.abort();
        return () => undefined;
      },
    };
    await assert.rejects(
      new PocketSphinxRecognizer({ processes: 2, minGroupSeconds: 1 }).transcribe(
        twice,
        [
          { start: 0, end: d },
          { start: d + 3, end: 2 * d + 3 },
        ],
        options,
        control,
      ),
      CancelledError,
    );
    assert.equal(tracked.length, 2, 'two processes were started');
    assert.deepEqual(
      tracked.map((c) => c.signalCode),
      ['SIGKILL', 'SIGKILL'],
      'both killed, not left to finish',
    );
    // pgrep exits with 1 when no child of this process is called pocketsphinx…
    assert.throws(() => execFileSync('pgrep', ['-P', String(process.pid), 'pocketsphinx']), 'no pocketsphinx child is left');
  });

  it('hears custom names it cannot hear without them', () => {
    // None of the names is in the language model; the spotting pass finds them (3 of 5 when measured).
    assert.equal(namesHeard(plain), 0);
    assert.ok(namesHeard(biased) >= 2, biased.map((w) => w.text).join(' '));
    assert.ok(
      biased.some((w) => w.text === 'Anika' || w.text === 'Grafana'),
      'no name of the prompt was heard',
    );
    assert.ok(!biased.some((w) => w.text === 'Kubernetes'), 'a listed name that was never said was heard');
  });
});

/** An empty en-us model tree under `dir` (the recognizer checks the files exist; the fake tools never read them). */
function fakeModelRoot(dir: string): string {
  const root = join(dir, 'model');
  mkdirSync(join(root, 'en-us', 'en-us'), { recursive: true });
  writeFileSync(join(root, 'en-us', 'en-us', 'mdef'), '');
  writeFileSync(join(root, 'en-us', 'en-us.lm.bin'), '');
  writeFileSync(join(root, 'en-us', 'cmudict-en-us.dict'), 'hello HH AH L OW\n');
  return root;
}
