/**
 * The transcript-wait benchmark's pure parts: the meeting of a given length
 * (the long planning session's lines, repeated) and the options.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateScriptDuration } from '../simulator/scripts/estimate-duration.ts';
import { loadScript } from '../simulator/scripts/load-script.ts';
import { LONG_SCRIPT } from './quality.ts';
import { meetingOfLength, rtfConfig } from './rtf.ts';

test("a meeting of N minutes: the script's lines in order, from the top again, up to about N minutes", async () => {
  const script = await loadScript(LONG_SCRIPT);
  const five = meetingOfLength(script, 5);
  assert.deepEqual(
    five.lines.map((l) => l.text),
    script.lines.slice(0, five.lines.length).map((l) => l.text),
  );
  const estimate = estimateScriptDuration(five).total;
  assert.ok(estimate >= 5 * 60 && estimate < 5 * 60 + 30, `${estimate} s`);

  const sixty = meetingOfLength(script, 60);
  assert.ok(sixty.lines.length > script.lines.length, 'longer than the script: it starts again');
  assert.equal(sixty.lines[script.lines.length]!.text, script.lines[0]!.text);
  assert.ok(estimateScriptDuration(sixty).total >= 60 * 60);
});

test('options: lengths, scenes and process counts, checked', () => {
  const c = rtfConfig({ tiny: false, options: { lengths: '5,30', scenes: 'clean', processes: '1,2' } });
  assert.deepEqual(c, { lengths: [5, 30], scenes: ['clean'], processes: [1, 2] });
  assert.deepEqual(rtfConfig({ tiny: false, options: {} }).lengths, [5, 30, 60]);
  assert.throws(() => rtfConfig({ tiny: false, options: { scenes: 'moon' } }), /no scene preset "moon"/);
  assert.throws(() => rtfConfig({ tiny: false, options: { processes: '0' } }), /--processes/);
  assert.throws(() => rtfConfig({ tiny: false, options: { lengths: 'x' } }), /--lengths/);
});
