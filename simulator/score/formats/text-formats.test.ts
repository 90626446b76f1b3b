import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refuses } from './assert-refused.ts';
import { parsePlainText, parsePocketsphinxTimes } from './text-formats.ts';

describe('parsePlainText', () => {
  it('takes every token as a word, without times or speakers', () => {
    assert.deepEqual(parsePlainText(' hello\n there ').words, [
      { text: 'hello', start: null, end: null, speaker: null },
      { text: 'there', start: null, end: null, speaker: null },
    ]);
  });

  it('refuses binary content', () => {
    refuses(() => parsePlainText('RIFF\n\u0000\u0001WAVE'), 'line 2', /NUL byte/);
  });
});

describe('parsePocketsphinxTimes', () => {
  // As pocketsphinx_continuous -infile x.wav -time yes prints it.
  const output = [
    'and mr john',
    '<s> 0.000 0.140 0.999400',
    'and(2) 0.150 0.360 0.260057',
    'mr 0.370 0.620 0.988762',
    '<sil> 0.630 0.700 0.5',
    '[NOISE] 0.700 0.800 0.5',
    'john 0.810 1.000 0.929128',
    '</s> 1.050 1.080 1.000000',
    '',
  ].join('\n');

  it('reads the word lines, without fillers and variant marks', () => {
    assert.deepEqual(
      parsePocketsphinxTimes(output).words.map((w) => [w.text, w.start, w.end]),
      [
        ['and', 0.15, 0.36],
        ['mr', 0.37, 0.62],
        ['john', 0.81, 1],
      ],
    );
  });

  it('refuses a word line with missing or extra fields and an end before the start', () => {
    refuses(() => parsePocketsphinxTimes('hello 0.1 0.2'), 'line 1', /"word start end confidence"/);
    refuses(() => parsePocketsphinxTimes('hello 0.1 0.2 0.9\nthere 0.3 0.4 0.9 extra'), 'line 2', /"word start end confidence"/);
    refuses(() => parsePocketsphinxTimes('hello 0.5 0.2 0.9'), 'line 1', /end time \(0.2\) at or after the start \(0.5\)/);
  });
});
