import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ScriptSpeaker } from '../scripts/meeting-script.ts';
import { speechSpan } from './speech-activity.ts';
import {
  ESPEAK_VOICES,
  LINE_SAMPLE_RATE,
  NATURAL_RATE_WPM,
  NATURAL_VOICES,
  MAX_CAST_SEED,
  VoiceCache,
  assignVoices,
  isVoiceName,
  parseVoiceName,
  voiceLabel,
} from './voices.ts';
import type { VoiceChoice } from './voices.ts';

const speakers = (n: number, extra: Partial<ScriptSpeaker>[] = []): ScriptSpeaker[] =>
  Array.from({ length: n }, (_, i) => ({ key: `S${i + 1}`, name: `Speaker ${i + 1}`, ...extra[i] }));

describe('voice names', () => {
  it('reads engine:voice and bare espeak-ng names', () => {
    assert.deepEqual(parseVoiceName('flite:kal16'), { engine: 'flite', voice: 'kal16' });
    assert.deepEqual(parseVoiceName('festival:cmu_us_slt_arctic_hts'), { engine: 'festival', voice: 'cmu_us_slt_arctic_hts' });
    assert.deepEqual(parseVoiceName('espeak:en-us+f3'), { engine: 'espeak', voice: 'en-us+f3' });
    assert.deepEqual(parseVoiceName('en-gb-x-rp'), { engine: 'espeak', voice: 'en-gb-x-rp' });
  });

  it('refuses unknown engines, paths and non-English espeak voices', () => {
    for (const bad of ['say:alex', 'flite:../kal16', 'flite:/usr/lib/x.flitevox', 'festival:voice)', 'de', 'espeak:de', 'flite:']) {
      assert.equal(isVoiceName(bad), false, bad);
      assert.throws(() => parseVoiceName(bad), /is not a voice name/);
    }
  });
});

describe('assignVoices', () => {
  it('gives the natural voices in order, the first two a male and a female voice', () => {
    const voices = assignVoices(speakers(2));
    assert.deepEqual(voices.map(voiceLabel), ['flite:kal16', 'festival:cmu_us_slt_arctic_hts']);
    // Natural voices speak at a conversational 160 words per minute unless the script says otherwise.
    assert.ok(voices.every((v) => v.source === 'assigned' && !v.varied && v.pitch_shift === 0 && v.rate === NATURAL_RATE_WPM));
    assert.equal(NATURAL_RATE_WPM, 160);
  });

  it('keeps a named voice and gives the others voices nobody named', () => {
    const voices = assignVoices(speakers(3, [{}, { voice: 'flite:kal16' }, {}]));
    assert.deepEqual(voices.map(voiceLabel), ['festival:cmu_us_slt_arctic_hts', 'flite:kal16', 'flite:rms']);
    assert.equal(voices[1]!.source, 'script');
  });

  it('gives six speakers six different voices, varying pitch and pace once the natural voices run out', () => {
    const voices = assignVoices(speakers(6));
    const distinct = new Set(voices.map((v) => `${voiceLabel(v)}/${v.pitch_shift}/${v.rate}`));
    assert.equal(distinct.size, 6);
    assert.deepEqual(voices.slice(0, NATURAL_VOICES.length).map(voiceLabel), NATURAL_VOICES.map(voiceLabel));
    const sixth = voices[5]!;
    assert.equal(voiceLabel(sixth), 'flite:kal16');
    assert.equal(sixth.varied, true);
    assert.notEqual(sixth.pitch_shift, 0);
    // Neighbours in speaker order never share a voice.
    for (let i = 1; i < voices.length; i++) assert.notEqual(voiceLabel(voices[i]!), voiceLabel(voices[i - 1]!));
  });

  it('keeps sixteen speakers (the most a script may have) distinct', () => {
    const voices = assignVoices(speakers(16));
    assert.equal(new Set(voices.map((v) => `${voiceLabel(v)}/${v.pitch_shift}/${v.rate}`)).size, 16);
  });

  it("lets a speaker's own pitch_shift and rate win over the assignment", () => {
    const [v] = assignVoices(speakers(1, [{ pitch_shift: 2, rate: 150 }]));
    assert.deepEqual({ shift: v!.pitch_shift, rate: v!.rate }, { shift: 2, rate: 150 });
  });

  it('is deterministic', () => {
    assert.deepEqual(assignVoices(speakers(6)), assignVoices(speakers(6)));
  });

  it('renders everyone with espeak-ng in the espeak set, keeping named espeak voices', () => {
    const voices = assignVoices(speakers(3, [{ voice: 'flite:kal16' }, { voice: 'en-gb-x-rp', pitch: 38 }, {}]), 'espeak');
    assert.ok(voices.every((v) => v.engine === 'espeak'));
    assert.deepEqual(voices[1], {
      engine: 'espeak',
      voice: 'en-gb-x-rp',
      pitch_shift: 0,
      rate: 175,
      espeak_pitch: 38,
      source: 'script',
      varied: false,
    });
    assert.deepEqual(
      voices.map((v) => v.voice),
      [ESPEAK_VOICES[0]!.voice, 'en-gb-x-rp', ESPEAK_VOICES[1]!.voice],
    );
  });

  it('keeps a bare espeak-ng voice in the natural set: an old script sounds as before', () => {
    const [v] = assignVoices(speakers(1, [{ voice: 'en-us', pitch: 60 }]));
    assert.deepEqual({ engine: v!.engine, voice: v!.voice, pitch: v!.espeak_pitch }, { engine: 'espeak', voice: 'en-us', pitch: 60 });
  });
});

/** A cast as a comparable string: every speaker's voice, pitch and pace in speaker order. */
const castKey = (voices: readonly VoiceChoice[]): string =>
  voices.map((v) => `${voiceLabel(v)}/${v.pitch_shift}/${v.rate}/${v.espeak_pitch ?? ''}`).join(' ');

/** Seeds 0, 1, 2, … until every one of `expected` distinct casts has been drawn (or `limit` seeds). */
function castsReached(draw: (seed: number) => string, expected: number, limit: number): { casts: Set<string>; seeds: number } {
  const casts = new Set<string>();
  let seed = 0;
  while (casts.size < expected && seed < limit) casts.add(draw(seed++));
  return { casts, seeds: seed };
}

describe('assignVoices with a casting seed', () => {
  it('without a seed gives the cast every render had before casting seeds', () => {
    // Written out, not derived: a change to the unseeded order would change every existing render.
    const six = assignVoices(speakers(6));
    assert.deepEqual(
      six.map((v) => `${voiceLabel(v)}/${v.pitch_shift}/${v.rate}/${v.varied}`),
      [
        'flite:kal16/0/160/false',
        'festival:cmu_us_slt_arctic_hts/0/160/false',
        'flite:rms/0/160/false',
        'flite:awb/0/160/false',
        'flite:slt/0/160/false',
        'flite:kal16/-3/148/true',
      ],
    );
    assert.deepEqual(assignVoices(speakers(6), 'natural', undefined), six);
    assert.deepEqual(
      assignVoices(speakers(8), 'espeak').map((v) => `${v.voice}/${v.espeak_pitch}/${v.rate}`),
      [
        'en-us/45/175',
        'en-us+f3/62/175',
        'en+m3/32/175',
        'en+f2/70/175',
        'en-gb-x-rp/40/175',
        'en-us+f4/55/175',
        'en-us/33/163',
        'en-us+f3/50/163',
      ],
    );
  });

  it('is deterministic per seed, and different seeds give different casts', () => {
    for (const seed of [0, 1, 7, MAX_CAST_SEED])
      assert.deepEqual(assignVoices(speakers(6), 'natural', seed), assignVoices(speakers(6), 'natural', seed));
    const casts = new Set([1, 2, 3, 4, 5].map((seed) => castKey(assignVoices(speakers(6), 'natural', seed))));
    assert.ok(casts.size >= 4, `five seeds gave ${casts.size} casts`);
  });

  it('casts different people first, then repeats whose variation moves the vocal tract; named voices kept', () => {
    // The five natural voices are four people: flite slt and Festival's slt HTS voice are one woman (decision 068).
    const person = (v: VoiceChoice): string => (v.voice.includes('slt') ? 'slt' : voiceLabel(v));
    for (let seed = 0; seed < 200; seed++) {
      const six = assignVoices(speakers(6), 'natural', seed);
      assert.equal(new Set(six.map((v) => `${voiceLabel(v)}/${v.pitch_shift}/${v.rate}`)).size, 6);
      const plain = six.filter((v) => !v.varied);
      assert.equal(plain.length, 4);
      assert.equal(new Set(plain.map(person)).size, 4, 'four different people, unvaried');
      // The two repeats are Flite clustergen voices, shifted by playback rate (formants with pitch).
      assert.ok(six.filter((v) => v.varied).every((v) => v.engine === 'flite' && ['rms', 'awb', 'slt'].includes(v.voice)));
      const sixteen = assignVoices(speakers(16), 'espeak', seed);
      assert.equal(new Set(sixteen.map((v) => `${v.voice}/${v.espeak_pitch}/${v.rate}`)).size, 16);
      const natural16 = assignVoices(speakers(16), 'natural', seed);
      assert.equal(new Set(natural16.map((v) => `${voiceLabel(v)}/${v.pitch_shift}/${v.rate}`)).size, 16);
      const named = assignVoices(speakers(3, [{}, { voice: 'festival:cmu_us_slt_arctic_hts' }, {}]), 'natural', seed);
      assert.deepEqual(named[1], assignVoices(speakers(3, [{}, { voice: 'festival:cmu_us_slt_arctic_hts' }, {}]))[1]);
      // Nobody else speaks as the named woman, not even with flite's slt.
      assert.ok(named.every((v, i) => i === 1 || (person(v) !== 'slt' && !v.varied)));
    }
  });

  it('reaches every cast of two, three and five speakers from the four people of the natural voices', () => {
    // Ordered choices of different people, the seed also picking slt's voice (flite or Festival):
    // two speakers 12 orders of people, 6 of them with slt: 6 × 2 + 6 = 18; three 24 orders, 18 with slt: 42.
    // Five: the four people in any order with slt's voice picked, and one repeat of rms, awb or flite slt
    // with one of three variations, in any of the five places: 2 × 3 × 3 × 5! = 2160.
    for (const [n, expected, limit] of [
      [2, 18, 5_000],
      [3, 42, 5_000],
      [5, 2160, 60_000],
    ] as const) {
      const { casts } = castsReached((seed) => castKey(assignVoices(speakers(n), 'natural', seed)), expected + 1, limit);
      assert.equal(casts.size, expected, `${n} speakers`);
    }
  });

  it('refuses a casting seed that is not an integer from 0 to 2^32 − 1', () => {
    for (const bad of [-1, 1.5, MAX_CAST_SEED + 1, Number.NaN])
      assert.throws(() => assignVoices(speakers(2), 'natural', bad), /casting seed is an integer/);
  });
});

describe('VoiceCache.key', () => {
  it('changes with every parameter and the engine', async () => {
    const cache = new VoiceCache('/nonexistent');
    const base: VoiceChoice = { engine: 'espeak', voice: 'en-us', pitch_shift: 0, rate: 175, espeak_pitch: 50 };
    const keys = await Promise.all([
      cache.key(base, 'Hello there.'),
      cache.key({ ...base, rate: 176 }, 'Hello there.'),
      cache.key({ ...base, espeak_pitch: 51 }, 'Hello there.'),
      cache.key({ ...base, voice: 'en-us+f3' }, 'Hello there.'),
      cache.key(base, 'Hello there!'),
    ]);
    assert.equal(new Set(keys).size, keys.length);
  });
});

function installed(tool: string, args: string[]): boolean {
  try {
    execFileSync(tool, args, { stdio: 'ignore' });
    return true;
  } catch (error) {
    // flite --version exits with 1 but is there.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

const ENGINE_CASES: { choice: VoiceChoice; tool: string }[] = [
  { choice: { engine: 'flite', voice: 'kal16', pitch_shift: 0, rate: 175 }, tool: 'flite' },
  { choice: { engine: 'flite', voice: 'rms', pitch_shift: -3, rate: 160 }, tool: 'flite' },
  { choice: { engine: 'festival', voice: 'cmu_us_slt_arctic_hts', pitch_shift: 2, rate: 185 }, tool: 'festival' },
  { choice: { engine: 'espeak', voice: 'en-us', pitch_shift: 0, rate: 175, espeak_pitch: 50 }, tool: 'espeak-ng' },
];

describe('synthesizing a line', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'voices-test-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const text = 'Then we fix that first, before the review on Thursday.';
  const words = ['Then', 'we', 'fix', 'that', 'first', 'before', 'the', 'review', 'on', 'Thursday'];

  for (const { choice, tool } of ENGINE_CASES) {
    const skip = installed(tool, ['--version']) && installed('ffmpeg', ['-version']) ? false : `${tool} or ffmpeg missing`;
    it(`${voiceLabel(choice)}: 16 kHz speech with every word timed inside it, the same bytes on a fresh render`, { skip }, async () => {
      const first = await new VoiceCache(path.join(dir, `a-${choice.voice}`)).line(choice, text);
      const span = speechSpan(first.samples, LINE_SAMPLE_RATE);
      assert.ok(span !== undefined);
      assert.deepEqual(
        first.words.map((w) => w.text),
        words,
      );
      assert.equal(first.timing, choice.engine === 'espeak' ? first.timing : 'synthesizer');
      for (const [i, w] of first.words.entries()) {
        assert.ok(w.start < w.end, `${w.text}: ${w.start}..${w.end}`);
        assert.ok(
          w.start >= span.start / LINE_SAMPLE_RATE - 0.001 && w.end <= span.end / LINE_SAMPLE_RATE + 0.001,
          `${w.text} outside the speech`,
        );
        if (i > 0) assert.ok(w.start >= first.words[i - 1]!.end - 1e-9, `${w.text} starts before the previous word ends`);
      }
      // A second cache directory makes the synthesizer run again: deterministic engines give identical lines.
      const second = await new VoiceCache(path.join(dir, `b-${choice.voice}`)).line(choice, text);
      assert.ok(Buffer.from(second.samples.buffer).equals(Buffer.from(first.samples.buffer)), 'the samples differ between two renders');
      assert.deepEqual(second.words, first.words);
      // And the cache gives back exactly what was synthesized.
      const cache = new VoiceCache(path.join(dir, `a-${choice.voice}`));
      const cached = await cache.line(choice, text);
      assert.equal(cache.hits, 1);
      assert.deepEqual(cached.words, first.words);
      assert.ok(Buffer.from(cached.samples.buffer).equals(Buffer.from(first.samples.buffer)));
    });
  }

  it(
    'a pitch shift moves the voice and keeps its words',
    { skip: installed('flite', ['--version']) ? false : 'flite missing' },
    async () => {
      const plain = await new VoiceCache(dir).line({ engine: 'flite', voice: 'rms', pitch_shift: 0, rate: 175 }, text);
      const shifted = await new VoiceCache(dir).line({ engine: 'flite', voice: 'rms', pitch_shift: 4, rate: 175 }, text);
      assert.ok(!Buffer.from(plain.samples.buffer).equals(Buffer.from(shifted.samples.buffer)));
      assert.equal(shifted.words.length, plain.words.length);
      // The pace is kept: the line lasts about as long (within 10 %).
      const ratio = shifted.words.at(-1)!.end / plain.words.at(-1)!.end;
      assert.ok(ratio > 0.9 && ratio < 1.1, `length ratio ${ratio}`);
    },
  );

  it(
    'refuses a voice the engine does not have, naming the installed ones',
    { skip: installed('flite', ['--version']) ? false : 'flite missing' },
    async () => {
      await assert.rejects(
        new VoiceCache(dir).line({ engine: 'flite', voice: 'nosuchvoice', pitch_shift: 0, rate: 175 }, text),
        /flite has no voice "nosuchvoice" \(installed: .*kal16/,
      );
    },
  );
});
