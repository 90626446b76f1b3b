import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { festivalProgram, parseFestivalWordTimes, schemeString } from './festival.ts';

describe('schemeString', () => {
  it('keeps quotes and backslashes inside the literal', () => {
    assert.equal(schemeString('say "hi" \\ (bye)'), '"say \\"hi\\" \\\\ (bye)"');
  });

  it('puts the text on one line', () => {
    assert.equal(schemeString('a\nb\t c'), '"a b c"');
  });
});

describe('festivalProgram', () => {
  const request = { voice: 'cmu_us_slt_arctic_hts', text: 'It is "done".', wordCount: 3, speed: 1.1, pitchShift: -2 };

  it('selects the voice, sets speed and pitch through the HTS engine, and saves the wave', () => {
    const program = festivalProgram(request, '/tmp/x y.wav');
    assert.match(program, /^\(voice_cmu_us_slt_arctic_hts\)$/m);
    assert.match(program, /\(list "-r" 1\.1000\) \(list "-fm" -2\.000\)/);
    assert.match(program, /\(Utterance Text "It is \\"done\\"\."\)/);
    assert.match(program, /\(utt\.save\.wave line_utt "\/tmp\/x y\.wav" 'riff\)/);
  });

  it('refuses a voice name that is not a plain identifier', () => {
    assert.throws(() => festivalProgram({ ...request, voice: 'x) (system "rm' }, '/tmp/x.wav'), /not a Festival voice name/);
  });
});

describe('parseFestivalWordTimes', () => {
  // Rows as the program prints them: token 3 ("12th") is said as two words; token 4 ("-") as none.
  const output = [
    'WORDTIME 1 0.175 0.41499999',
    'WORDTIME 2 0.41499999 0.745',
    'WORDTIME 3 0.84500003 1.0',
    'WORDTIME 3 1.0 1.5',
    'some other line festival printed',
    'WORDTIME 5 1.6 2.0',
  ].join('\n');

  it('gives one span per spoken token, a token said as several words spanning them all', () => {
    assert.deepEqual(parseFestivalWordTimes(output, 4), [
      { start: 0.175, end: 0.41499999 },
      { start: 0.41499999, end: 0.745 },
      { start: 0.84500003, end: 1.5 },
      { start: 1.6, end: 2.0 },
    ]);
  });

  it('gives undefined when the spoken tokens do not match the words in number', () => {
    assert.equal(parseFestivalWordTimes(output, 5), undefined);
  });
});
