import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseScript } from '../scripts/meeting-script.ts';
import { renderScript } from '../synth/render-script.ts';
import type { RenderedMeeting } from '../synth/render-script.ts';
import { speechSpan } from '../synth/speech-activity.ts';
import { LINE_SAMPLE_RATE, VoiceCache, scriptVoices } from '../synth/voices.ts';

const script = parseScript({
  title: 'Dynamics check',
  language: 'en',
  speakers: [
    { key: 'A', name: 'Ana', voice: 'flite:kal16' },
    { key: 'B', name: 'Bo', voice: 'flite:slt' },
    { key: 'C', name: 'Cy', voice: 'flite:rms' },
  ],
  lines: [
    { speaker: 'A', text: 'We should ship the release on Friday. The tests are green and the notes are written.' },
    { speaker: 'B', text: 'I agree, but the installer still needs a review before we tag it.' },
    { speaker: 'C', text: 'I can review the installer this afternoon. It is a small change.' },
    { speaker: 'A', text: 'Good. Then we tag on Thursday evening and announce on Friday morning.' },
    { speaker: 'B', text: 'I will write the announcement and send it to the list.' },
    { speaker: 'C', text: 'And I will update the download page once the tag exists.' },
  ],
});

let dir = '';
let cacheDir = '';
let natural: RenderedMeeting;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'dynamics-render-test-'));
  cacheDir = path.join(dir, 'cache');
  // Seed 5 of this script has overlapping changes of speaker and a backchannel (checked below).
  natural = await renderScript(script, path.join(dir, 'natural.wav'), { cacheDir, dynamics: 'natural', seed: 5 });
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('renderScript with the natural dynamics (real voices)', () => {
  it('gives the same bytes for the same script, dynamics and seed, others for another seed', async () => {
    const again = await renderScript(script, path.join(dir, 'again.wav'), { cacheDir, dynamics: 'natural', seed: 5 });
    assert.deepEqual(await readFile(again.wav), await readFile(natural.wav));
    assert.deepEqual(again.truth, natural.truth);
    const other = await renderScript(script, path.join(dir, 'other.wav'), { cacheDir, dynamics: 'natural', seed: 6 });
    assert.notDeepEqual(other.truth.turns, natural.truth.turns);
    assert.deepEqual(natural.truth.dynamics, { profile: 'natural', seed: 5 });
  });

  it('overlaps turns, and keeps every word at its exact place in its own clip, by its own speaker', async () => {
    const { lines, words } = natural.truth;
    const overlaps = lines.some((l, i) => lines.some((m, j) => j !== i && m.speaker !== l.speaker && m.start < l.end && l.start < m.end));
    assert.ok(overlaps, 'seed 5 overlaps two turns');
    const cache = new VoiceCache(cacheDir);
    const voices = new Map(script.speakers.map((s, i) => [s.key, scriptVoices(script)[i]!]));
    const remaining = [...words];
    for (const line of lines) {
      const clip = await cache.line(voices.get(line.speaker)!, line.text);
      const span = speechSpan(clip.samples, LINE_SAMPLE_RATE)!;
      for (const w of clip.words) {
        // The clip's speech starts at the line's start; a word keeps its offset from there.
        const start = Math.round((line.start + w.start - span.start / LINE_SAMPLE_RATE) * 1000) / 1000;
        const found = remaining.findIndex(
          (t) => t.text === w.text && t.speaker === line.speaker && Math.abs(t.start - Math.max(line.start, start)) <= 0.0011,
        );
        assert.ok(found >= 0, `"${w.text}" of ${line.speaker} at ${start} s`);
        remaining.splice(found, 1);
      }
    }
    assert.deepEqual(remaining, [], 'no word without its line');
  });

  it('marks what it added: backchannels are words of the listener, hesitations inside lines', () => {
    const { lines, words } = natural.truth;
    const backchannels = lines.filter((l) => l.inserted === 'backchannel');
    assert.ok(backchannels.length > 0, 'seed 5 adds a backchannel');
    for (const b of backchannels) {
      const spoken = words.filter((w) => w.inserted === 'backchannel' && w.start >= b.start && w.end <= b.end);
      assert.ok(spoken.length > 0 && spoken.every((w) => w.speaker === b.speaker));
    }
    for (const w of words.filter((x) => x.inserted === 'hesitation')) assert.match(w.text, /^(um|uh)$/i);
    assert.ok(
      lines.every((l) => l.start >= 0),
      'no line starts before the file',
    );
    const own = lines.filter((l) => l.inserted === undefined);
    assert.equal(own.length, script.lines.length, 'every script line is said');
  });

  it('tidy (the default of renderScript) adds nothing and writes no dynamics field', async () => {
    const tidy = await renderScript(script, path.join(dir, 'tidy.wav'), { cacheDir });
    assert.equal(tidy.truth.dynamics, undefined);
    assert.deepEqual(
      tidy.truth.lines.map((l) => l.text),
      script.lines.map((l) => l.text),
    );
    assert.ok(tidy.truth.words.every((w) => w.inserted === undefined));
  });
});
