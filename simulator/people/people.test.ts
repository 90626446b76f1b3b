import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadScript } from '../scripts/load-script.ts';
import { parseScript } from '../scripts/meeting-script.ts';
import { renderScript } from '../synth/render-script.ts';
import { personOf, variationMovesVocalTract, voiceLabel } from '../synth/voices.ts';
import { truthRttm, speakerTurns, truthTokens } from '../truth-formats/truth-formats.ts';
import { PEOPLE, describeVoice, personById } from './catalogue.ts';
import { PeopleCastError, castPeople, parsePeopleCast } from './cast-people.ts';

describe('the people catalogue', () => {
  it('has unique lower-case ids and names', () => {
    assert.equal(new Set(PEOPLE.map((p) => p.id)).size, PEOPLE.length);
    assert.equal(new Set(PEOPLE.map((p) => p.name)).size, PEOPLE.length);
    for (const p of PEOPLE) assert.match(p.id, /^[a-z]+$/);
  });

  it('never makes two people of one recorded voice by pitch alone (decisions 068, 135)', () => {
    for (const [i, a] of PEOPLE.entries())
      for (const b of PEOPLE.slice(i + 1)) {
        if (personOf(a) !== personOf(b)) continue;
        // Two people from one recording: every shifted one must move the whole vocal tract, at least 3 st apart.
        for (const p of [a, b])
          if (p.pitch_shift !== 0) assert.ok(variationMovesVocalTract(p), `${p.id}: ${describeVoice(p)} moves pitch alone`);
        assert.ok(Math.abs(a.pitch_shift - b.pitch_shift) >= 3, `${a.id} and ${b.id} are ${describeVoice(a)} and ${describeVoice(b)}`);
        assert.ok(a.pitch_shift !== 0 || b.pitch_shift !== 0, `${a.id} and ${b.id} are one voice`);
      }
  });

  it('casts the four-person standup as its own people: same voices, same names', async () => {
    const standup = await loadScript('four-person-standup');
    const { script } = castPeople(standup, parsePeopleCast('dana,emeka,fiona,hiro'));
    assert.deepEqual(
      script.speakers.map((s) => [s.name, s.voice]),
      standup.speakers.map((s) => [s.name, s.voice]),
    );
    assert.deepEqual(script.lines, standup.lines);
  });

  it('describes voices for listings', () => {
    assert.equal(describeVoice(personById('raj')!), 'flite:rms −3 st, 148 wpm');
    assert.equal(describeVoice(personById('fiona')!), 'flite:awb, 160 wpm');
  });
});

describe('parsePeopleCast', () => {
  it('reads ids in speaker order, an empty entry keeping that speaker', () => {
    assert.deepEqual(
      parsePeopleCast('Raj, ,dana').map((p) => p?.id),
      ['raj', undefined, 'dana'],
    );
  });
  it('refuses unknown ids, one person twice and an empty cast', () => {
    assert.throws(() => parsePeopleCast('raj,zoe'), /unknown person "zoe"; the people are dana, emeka/);
    assert.throws(() => parsePeopleCast('raj,raj'), /cast twice/);
    assert.throws(() => parsePeopleCast(','), PeopleCastError);
  });
});

describe('castPeople', () => {
  const script = parseScript({
    title: 't',
    language: 'en',
    speakers: [
      { key: 'S1', name: 'Fiona Grant', voice: 'flite:awb' },
      { key: 'S2', name: 'Raj Patel', pitch_shift: 2 },
      { key: 'S3', name: 'Project Manager' },
    ],
    lines: [
      { speaker: 'S1', text: 'Raj, what about you? Fionas and Rajesh stay.' },
      { speaker: 'S2', text: 'Thanks Fiona. Project news next.' },
    ],
    bias: { custom_words: ['Fiona', 'Raj', 'export'], initial_prompt: 'A short call.' },
  });

  it("gives each cast speaker the person's voice and name, and swaps first names in the talk without chains", () => {
    const { script: cast, personOf: who } = castPeople(script, parsePeopleCast('raj,dana'));
    assert.deepEqual(cast.speakers[0], { key: 'S1', name: 'Raj Patel', voice: 'flite:rms', pitch_shift: -3, rate: 148 });
    // The script's own pitch_shift is dropped: the person's voice is the person.
    assert.deepEqual(cast.speakers[1], {
      key: 'S2',
      name: 'Dana Whitfield',
      voice: voiceLabel(personById('dana')!),
      pitch_shift: 0,
      rate: 160,
    });
    assert.deepEqual(cast.speakers[2], script.speakers[2]);
    // Fiona → Raj and Raj → Dana at once: "Raj" said to S2 becomes "Dana", not "Raj" → "Dana" twice over.
    assert.deepEqual(
      cast.lines.map((l) => l.text),
      ['Dana, what about you? Fionas and Rajesh stay.', 'Thanks Raj. Project news next.'],
    );
    assert.deepEqual(cast.bias?.custom_words, ['Raj', 'Dana', 'export']);
    assert.deepEqual(
      [...who].map(([k, p]) => [k, p.id]),
      [
        ['S1', 'raj'],
        ['S2', 'dana'],
      ],
    );
  });

  it('leaves the talk alone when asked (speaker names that are roles)', () => {
    const { script: cast } = castPeople(script, parsePeopleCast(',,hiro'), false);
    assert.deepEqual(cast.lines, script.lines);
    assert.equal(cast.speakers[2]!.name, 'Hiro Tanaka');
  });

  it('refuses more people than speakers', () => {
    assert.throws(() => castPeople(script, parsePeopleCast('raj,dana,hiro,fiona')), /4 people, the script has 3 speakers/);
  });
});

describe('a render with people', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'people-render-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names the people in the truth and its RTTM; the same render without people has no person field', async () => {
    const script = await loadScript('tiny');
    const cacheDir = path.join(dir, 'cache');
    const cast = await renderScript(script, path.join(dir, 'cast.wav'), { cacheDir, people: parsePeopleCast('sofia,raj') });
    assert.deepEqual(
      cast.truth.speakers.map((s) => [s.key, s.person, s.name, voiceLabel(s), s.pitch_shift]),
      [
        ['S1', 'sofia', 'Sofia Ruiz', 'flite:slt', 3],
        ['S2', 'raj', 'Raj Patel', 'flite:rms', -3],
      ],
    );
    assert.deepEqual(JSON.parse(await readFile(cast.truthPath, 'utf8')).speakers, cast.truth.speakers);
    const rttm = truthRttm(speakerTurns(truthTokens(cast.truth)), 'cast');
    assert.match(rttm, / sofia <NA> <NA>/);
    assert.match(rttm, / raj <NA> <NA>/);
    const plain = await renderScript(script, path.join(dir, 'plain.wav'), { cacheDir });
    assert.ok(plain.truth.speakers.every((s) => !('person' in s)));
  });
});
