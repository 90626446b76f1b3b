import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { estimateScriptDuration } from './estimate-duration.ts';
import { longPlanningSessionJson, LONG_SESSION_FILE } from './generate-long-planning-session.ts';
import { listScriptNames, loadScript } from './load-script.ts';
import { ScriptError, lineWords, parseScript } from './meeting-script.ts';

const good = {
  title: 'Check-in',
  language: 'en',
  speakers: [
    { key: 'S1', name: 'Ann', voice: 'en-us', pitch: 50 },
    { key: 'S2', name: 'Bo', voice: 'en+m3', pitch: 30, rate: 160 },
  ],
  lines: [
    { speaker: 'S1', text: 'Is the budget ready?' },
    { speaker: 'S2', text: 'Almost.', overlap: 0.2 },
    { speaker: 'S1', text: 'Good.', pause_before: 2 },
  ],
};

/** The problems parseScript reports for `json`, or [] when it accepts it. */
function problems(json: unknown): string[] {
  try {
    parseScript(json);
    return [];
  } catch (error) {
    assert.ok(error instanceof ScriptError, `expected ScriptError, got ${String(error)}`);
    return [...error.issues];
  }
}

describe('parseScript', () => {
  it('accepts a well-formed script and keeps its fields', () => {
    const script = parseScript(good);
    assert.equal(script.speakers[1]?.rate, 160);
    assert.equal(script.lines[1]?.overlap, 0.2);
  });

  it('accepts every way of naming a voice, and no voice at all', () => {
    const speakers = [
      { key: 'A', name: 'A', voice: 'flite:kal16', pitch_shift: -2.5, rate: 160 },
      { key: 'B', name: 'B', voice: 'festival:cmu_us_slt_arctic_hts' },
      { key: 'C', name: 'C', voice: 'espeak:en-us+f3', pitch: 62 },
      { key: 'D', name: 'D', voice: 'en-gb-x-rp', pitch: 38 },
      { key: 'E', name: 'E' },
    ];
    const script = parseScript({ ...good, speakers, lines: [{ speaker: 'A', text: 'Hello.' }] });
    assert.deepEqual(
      script.speakers.map((s) => s.voice),
      ['flite:kal16', 'festival:cmu_us_slt_arctic_hts', 'espeak:en-us+f3', 'en-gb-x-rp', undefined],
    );
  });

  it('accepts a JSON string', () => {
    assert.equal(parseScript(JSON.stringify(good)).title, 'Check-in');
  });

  it('reports invalid JSON as a ScriptError naming the source', () => {
    assert.throws(
      () => parseScript('{ nope', 'broken.json'),
      (e: unknown) => e instanceof ScriptError && /broken\.json: not valid JSON/.test(e.message),
    );
  });

  const bad: [string, unknown, RegExp][] = [
    ['a line by an unknown speaker', { ...good, lines: [{ speaker: 'S9', text: 'Hi.' }] }, /lines\[0\]\.speaker: unknown speaker "S9"/],
    [
      'a duplicate speaker key',
      { ...good, speakers: [good.speakers[0], { ...good.speakers[1], key: 'S1' }] },
      /speakers\[1\]\.key: speaker key "S1" is used twice/,
    ],
    ['pitch above 99', { ...good, speakers: [{ ...good.speakers[0], pitch: 120 }, good.speakers[1]] }, /speakers\[0\]\.pitch/],
    [
      'a non-English voice',
      { ...good, speakers: [{ ...good.speakers[0], voice: 'de' }, good.speakers[1]] },
      /speakers\[0\]\.voice: a voice such as "flite:kal16"/,
    ],
    ['an unknown engine', { ...good, speakers: [{ ...good.speakers[0], voice: 'say:alex' }, good.speakers[1]] }, /speakers\[0\]\.voice/],
    [
      'a flite voice name with a path in it',
      { ...good, speakers: [{ ...good.speakers[0], voice: 'flite:../x' }, good.speakers[1]] },
      /speakers\[0\]\.voice/,
    ],
    [
      'an espeak pitch on a flite voice',
      { ...good, speakers: [{ key: 'S1', name: 'Ann', voice: 'flite:kal16', pitch: 50 }, good.speakers[1]] },
      /speakers\[0\]\.pitch: pitch is espeak-ng's 0-99 scale/,
    ],
    [
      'a pitch_shift on an espeak voice',
      { ...good, speakers: [{ key: 'S1', name: 'Ann', voice: 'espeak:en-us', pitch_shift: 2 }, good.speakers[1]] },
      /speakers\[0\]\.pitch_shift: pitch_shift is for flite and festival voices/,
    ],
    [
      'a pitch_shift beyond an octave',
      { ...good, speakers: [{ key: 'S1', name: 'Ann', voice: 'flite:rms', pitch_shift: 13 }, good.speakers[1]] },
      /speakers\[0\]\.pitch_shift/,
    ],
    ['another language', { ...good, language: 'fr' }, /language/],
    [
      'an overlap on the first line',
      { ...good, lines: [{ speaker: 'S1', text: 'Hi.', overlap: 1 }] },
      /lines\[0\]\.overlap: the first line has no previous line/,
    ],
    [
      'pause_before with overlap',
      { ...good, lines: [good.lines[0], { speaker: 'S2', text: 'Yes.', overlap: 0.2, pause_before: 1 }] },
      /lines\[1\]: give pause_before or overlap, not both/,
    ],
    [
      'a speaker overlapping themselves',
      { ...good, lines: [good.lines[0], { speaker: 'S1', text: 'And?', overlap: 0.2 }] },
      /cannot overlap their own previous line/,
    ],
    [
      'a line without words',
      { ...good, lines: [{ speaker: 'S1', text: ' ... ' }] },
      /lines\[0\]\.text: text must contain at least one word/,
    ],
    ['no lines', { ...good, lines: [] }, /lines/],
    ['an unknown field (a typo)', { ...good, lines: [{ speaker: 'S1', text: 'Hi.', pause: 2 }] }, /lines\[0\]/],
    ['a negative pause', { ...good, lines: [{ speaker: 'S1', text: 'Hi.', pause_before: -1 }] }, /lines\[0\]\.pause_before/],
  ];
  for (const [name, json, expected] of bad) {
    it(`refuses ${name}`, () => {
      const found = problems(json);
      assert.ok(
        found.some((p) => expected.test(p)),
        `expected a problem matching ${expected}, got ${JSON.stringify(found)}`,
      );
    });
  }

  it('lists every problem at once', () => {
    const found = problems({ ...good, title: '', speakers: [{ ...good.speakers[0], pitch: -1 }] });
    assert.ok(found.length >= 3, JSON.stringify(found)); // title, pitch, S2 unknown
  });
});

describe('lineWords', () => {
  it('splits on spaces and strips outer punctuation only', () => {
    assert.deepEqual(lineWords('Okay, so — the "roadmap" isn\'t done; follow-up on Friday.'), [
      'Okay',
      'so',
      'the',
      'roadmap',
      "isn't",
      'done',
      'follow-up',
      'on',
      'Friday',
    ]);
  });
});

describe('loadScript', () => {
  it('names the known scripts when a name is unknown', async () => {
    await assert.rejects(loadScript('no-such-meeting'), /no such file \(known scripts: .*two-person-call/);
  });

  it('loads a script by path and reports its problems with the file name', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'script-test-'));
    const file = path.join(dir, 'bad.json');
    try {
      await writeFile(file, JSON.stringify({ ...good, language: 'de' }));
      await assert.rejects(loadScript(file), /bad\.json: language/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('every script in fixtures/meetings/ is valid', async () => {
    const names = await listScriptNames();
    for (const required of [
      'tiny',
      'two-person-call',
      'four-person-standup',
      'long-planning-session',
      'long-silences',
      'near-identical-voices',
    ]) {
      assert.ok(names.includes(required), `missing fixtures/meetings/${required}.json`);
    }
    for (const name of names) await loadScript(name);
  });
});

describe('the shipped scripts have the shape their names promise', () => {
  it('two-person-call: two speakers with different voices, about a minute', async () => {
    const script = await loadScript('two-person-call');
    assert.equal(script.speakers.length, 2);
    assert.notEqual(script.speakers[0]?.voice, script.speakers[1]?.voice);
    const { total } = estimateScriptDuration(script);
    assert.ok(total > 45 && total < 90, `estimated ${total} s`);
  });

  it('four-person-standup: four distinct voices, about two minutes', async () => {
    const script = await loadScript('four-person-standup');
    assert.equal(new Set(script.speakers.map((s) => `${s.voice}/${s.pitch_shift ?? 0}`)).size, 4);
    const { total } = estimateScriptDuration(script);
    assert.ok(total > 90 && total < 180, `estimated ${total} s`);
  });

  it('long-planning-session: at least 30 minutes of speech', async () => {
    const { speech } = estimateScriptDuration(await loadScript('long-planning-session'));
    assert.ok(speech >= 30 * 60, `estimated ${speech} s of speech`);
  });

  it('long-planning-session.json is exactly what its generator produces', async () => {
    assert.equal(
      await readFile(LONG_SESSION_FILE, 'utf8'),
      longPlanningSessionJson(),
      'run: node simulator/scripts/generate-long-planning-session.ts',
    );
  });

  it('long-silences: every pause after the first exchange lasts 20 to 60 seconds', async () => {
    const script = await loadScript('long-silences');
    const long = script.lines.filter((l) => (l.pause_before ?? 0) >= 20);
    assert.ok(long.length >= 5);
    assert.ok(long.every((l) => (l.pause_before ?? 0) <= 60));
  });

  it('near-identical-voices: one voice, pitches at most a semitone apart', async () => {
    const [a, b] = (await loadScript('near-identical-voices')).speakers;
    assert.ok(a !== undefined && b !== undefined);
    assert.equal(a.voice, b.voice);
    assert.equal(a.rate, b.rate);
    const gap = Math.abs((a.pitch_shift ?? 0) - (b.pitch_shift ?? 0));
    assert.ok(gap > 0 && gap <= 1, `pitch gap ${gap} semitones`);
  });
});
