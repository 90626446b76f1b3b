import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadScript } from '../scripts/load-script.ts';
import { DEFAULT_PAUSE_SECONDS, lineWords, parseScript } from '../scripts/meeting-script.ts';
import type { MeetingScript } from '../scripts/meeting-script.ts';
import { renderScript } from './render-script.ts';
import type { RenderedMeeting } from './render-script.ts';
import { speechSpan } from './speech-activity.ts';
import { parseWav } from '../../common/audio/wav.ts';

let dir = '';
let cacheDir = '';
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'render-test-'));
  cacheDir = path.join(dir, 'cache');
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('renderScript: two-person-call', () => {
  let script: MeetingScript;
  let result: RenderedMeeting;
  let pcm: ReturnType<typeof parseWav>;
  before(async () => {
    script = await loadScript('two-person-call');
    result = await renderScript(script, path.join(dir, 'call.wav'), { cacheDir });
    pcm = parseWav(await readFile(result.wav));
  });

  it('writes 16 kHz mono 16-bit audio as long as the truth says, about a minute', () => {
    assert.equal(pcm.sampleRate, 16_000);
    assert.equal(pcm.channels, 1);
    const seconds = pcm.samples.length / pcm.sampleRate;
    assert.ok(Math.abs(seconds - result.duration) < 0.01, `file ${seconds} s, truth ${result.duration} s`);
    assert.ok(result.duration > 45 && result.duration < 100, `duration ${result.duration} s`);
  });

  it('writes the truth as JSON beside the audio', async () => {
    assert.equal(result.truthPath, path.join(dir, 'call.truth.json'));
    assert.deepEqual(JSON.parse(await readFile(result.truthPath, 'utf8')), result.truth);
  });

  it("has one turn per line, by the line's speaker, in order, inside the file", () => {
    const { turns } = result.truth;
    assert.deepEqual(
      turns.map((t) => t.speaker),
      script.lines.map((l) => l.speaker),
    );
    turns.forEach((t, i) => {
      assert.ok(t.start < t.end, `turn ${i} is empty`);
      assert.ok(t.start >= 0 && t.end <= result.duration);
      if (i > 0) assert.ok(t.start > turns[i - 1]!.start, `turn ${i} starts before turn ${i - 1}`);
    });
  });

  it("keeps the script's pauses and overlaps", () => {
    const { turns } = result.truth;
    script.lines.forEach((line, i) => {
      const previous = turns[i - 1];
      if (previous === undefined) return;
      const gap = turns[i]!.start - previous.end;
      if (line.overlap !== undefined) assert.ok(Math.abs(gap + line.overlap) < 0.002, `line ${i}: gap ${gap}, overlap ${line.overlap}`);
      else assert.ok(Math.abs(gap - (line.pause_before ?? DEFAULT_PAUSE_SECONDS)) < 0.002, `line ${i}: gap ${gap}`);
    });
  });

  it('lists every word of the script once, with the right speaker, ordered, inside its turn', () => {
    const { words, turns } = result.truth;
    const expected = script.lines.flatMap((l) => lineWords(l.text).map((text) => `${l.speaker}:${text}`)).sort();
    assert.deepEqual(words.map((w) => `${w.speaker}:${w.text}`).sort(), expected);
    for (let i = 1; i < words.length; i++) assert.ok(words[i]!.start >= words[i - 1]!.start, `word ${i} out of order`);
    for (const w of words) {
      assert.ok(w.start < w.end, `${w.text} is empty`);
      const inTurn = turns.some((t) => t.speaker === w.speaker && w.start >= t.start - 0.001 && w.end <= t.end + 0.001);
      assert.ok(inTurn, `${w.text} at ${w.start} is outside its speaker's turns`);
    }
  });

  it('is silent where nobody speaks and loud where a turn is', () => {
    const at = (seconds: number): number => Math.round(seconds * pcm.sampleRate);
    const { turns } = result.truth;
    const first = turns[0]!;
    const second = turns[1]!;
    // The gap between the first two turns (minus the 20 ms fade kept around speech) is silent.
    assert.equal(speechSpan(pcm.samples.subarray(at(first.end + 0.05), at(second.start - 0.05)), pcm.sampleRate), undefined);
    assert.notEqual(speechSpan(pcm.samples.subarray(at(first.start), at(first.end)), pcm.sampleRate), undefined);
  });

  it('speaks with the natural voices the script names, and says so in the truth', () => {
    assert.equal(result.truth.voice_set, 'natural');
    assert.deepEqual(
      result.truth.speakers.map((s) => [s.key, s.engine, s.voice, s.source, s.varied]),
      [
        ['S1', 'festival', 'cmu_us_slt_arctic_hts', 'script', false],
        ['S2', 'flite', 'kal16', 'script', false],
      ],
    );
    assert.ok(result.truth.lines.every((l) => l.word_lengths === 'synthesizer'));
  });

  it('renders again identically from the cache', async () => {
    const again = await renderScript(script, path.join(dir, 'again.wav'), { cacheDir });
    assert.deepEqual(again.truth, result.truth);
    assert.ok((await readFile(again.wav)).equals(await readFile(result.wav)));
  });
});

describe('renderScript: determinism and voice sets', () => {
  const six = parseScript({
    title: 'Six voices',
    language: 'en',
    speakers: Array.from({ length: 6 }, (_, i) => ({ key: `S${i + 1}`, name: `Speaker ${i + 1}` })),
    lines: Array.from({ length: 6 }, (_, i) => ({
      speaker: `S${i + 1}`,
      text: i % 2 === 0 ? 'The budget is approved.' : 'Good, then we ship on Friday.',
    })),
  });

  it('renders six speakers with distinguishable voices, the varied one marked in the truth', async () => {
    const result = await renderScript(six, path.join(dir, 'six.wav'), { cacheDir });
    const speakers = result.truth.speakers;
    assert.equal(new Set(speakers.map((s) => `${s.engine}:${s.voice}/${s.pitch_shift}/${s.rate}`)).size, 6);
    assert.deepEqual(
      speakers.map((s) => s.varied),
      [false, false, false, false, false, true],
    );
    assert.equal(result.truth.words.length, 3 * 4 + 3 * 6); // three lines of four words, three of six
  });

  it('gives the same bytes when every line is synthesized again (a fresh cache)', async () => {
    const a = await renderScript(six, path.join(dir, 'six-a.wav'), { cacheDir: path.join(dir, 'fresh-a') });
    const b = await renderScript(six, path.join(dir, 'six-b.wav'), { cacheDir: path.join(dir, 'fresh-b') });
    assert.ok((await readFile(a.wav)).equals(await readFile(b.wav)), 'the two renders differ');
    assert.deepEqual(a.truth, b.truth);
  });

  it('renders every speaker with espeak-ng when asked, whatever the script names', async () => {
    const script = await loadScript('tiny');
    const result = await renderScript(script, path.join(dir, 'tiny-espeak.wav'), { cacheDir, voiceSet: 'espeak' });
    assert.equal(result.truth.voice_set, 'espeak');
    assert.ok(result.truth.speakers.every((s) => s.engine === 'espeak' && s.source === 'assigned'));
    assert.ok(result.truth.lines.every((l) => l.word_lengths !== 'synthesizer'));
  });
});

describe('renderScript with the espeak set on a machine without Flite or Festival', () => {
  it('renders with espeak-ng and ffmpeg alone (what the conformance suite relies on)', async () => {
    // A PATH holding only espeak-ng and ffmpeg, as an implementer's machine might.
    const bin = path.join(dir, 'bin-espeak-only');
    await mkdir(bin, { recursive: true });
    for (const tool of ['espeak-ng', 'ffmpeg']) {
      const found = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
      await symlink(found, path.join(bin, tool));
    }
    const program = [
      `import { loadScript } from ${JSON.stringify(path.join(import.meta.dirname, '..', 'scripts', 'load-script.ts'))};`,
      `import { renderScript } from ${JSON.stringify(path.join(import.meta.dirname, 'render-script.ts'))};`,
      `const r = await renderScript(await loadScript('tiny'), ${JSON.stringify(path.join(dir, 'no-natural.wav'))}, { cacheDir: ${JSON.stringify(path.join(dir, 'cache-espeak-only'))}, voiceSet: 'espeak' });`,
      'console.log(r.truth.speakers.map((s) => s.engine).join(","));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', program], {
      encoding: 'utf8',
      env: { ...process.env, PATH: bin },
    });
    assert.equal(out.trim(), 'espeak,espeak');
  });
});

describe('renderScript refuses what it cannot render faithfully', () => {
  const base = {
    title: 't',
    language: 'en',
    speakers: [
      { key: 'A', name: 'A', voice: 'en-us', pitch: 50 },
      { key: 'B', name: 'B', voice: 'en-us', pitch: 60 },
    ],
  };

  it('two speakers who would sound identical', async () => {
    const script = parseScript({
      ...base,
      speakers: [
        { key: 'A', name: 'A', voice: 'en-us', pitch: 50 },
        { key: 'B', name: 'B', voice: 'en-us', pitch: 50, rate: 175 }, // 175 is the default rate: same sound
      ],
      lines: [{ speaker: 'A', text: 'Hello.' }],
    });
    await assert.rejects(renderScript(script, path.join(dir, 'same.wav'), { cacheDir }), /speakers A and B sound identical/);
  });

  it('an overlap longer than the line it overlaps', async () => {
    const script = parseScript({
      ...base,
      lines: [
        { speaker: 'A', text: 'Yes.' },
        { speaker: 'B', text: 'No.', overlap: 5 },
      ],
    });
    await assert.rejects(
      renderScript(script, path.join(dir, 'overlap.wav'), { cacheDir }),
      /line 2: overlap 5 s is not shorter than the previous line/,
    );
  });
});
