import { test } from 'node:test';
import assert from 'node:assert/strict';
import { optionFlags, parseArgs } from './run.ts';
import {
  DEFAULT_SCENES,
  DEFAULT_SCRIPTS,
  LONG_SCRIPT,
  charts,
  markdown,
  matrix,
  qualityConfig,
  summaryText,
  table,
  targetsFor,
  type Cell,
} from './quality.ts';
import { castSeedsFlag, withSpeakerVoices } from './quality-cast.ts';
import { machine, type BenchReport } from './lib.ts';
import { loadScript } from '../simulator/scripts/load-script.ts';

test('the quality options pass through run.ts: --scripts, --scenes, --voices, --long', () => {
  const args = parseArgs(['--only', 'quality', '--scripts', 'two-person-call', '--scenes=clean,office', '--long']);
  assert.deepEqual(args.only, ['quality']);
  assert.deepEqual(args.options, { scripts: 'two-person-call', scenes: 'clean,office', long: 'true' });
  assert.throws(() => parseArgs(['--bogus']), /quality: --scripts/);
  assert.deepEqual(optionFlags(args.options), ['--scripts', 'two-person-call', '--scenes', 'clean,office', '--long']);
});

test('--dynamics passes through to the quality config: tidy unless asked, an unknown profile refused', () => {
  assert.equal(qualityConfig({ tiny: true, options: {} }).dynamics, 'tidy');
  const args = parseArgs(['--only', 'quality', '--dynamics=natural']);
  assert.equal(qualityConfig({ tiny: true, options: args.options }).dynamics, 'natural');
  assert.throws(() => qualityConfig({ tiny: true, options: { dynamics: 'chaotic' } }), /--dynamics: no profile "chaotic"/);
});

test('--speaker-voices names each speaker a voice and a pitch shift, in order', async () => {
  const args = parseArgs(['--only', 'quality', '--speaker-voices=flite:kal16,flite:rms/+3']);
  assert.deepEqual(qualityConfig({ tiny: false, options: args.options }).speaker_voices, ['flite:kal16', 'flite:rms/+3']);
  const script = await loadScript('two-person-call');
  const named = withSpeakerVoices(script, ['flite:kal16', 'flite:rms/+3']);
  assert.deepEqual(
    named.speakers.map((s) => [s.key, s.voice, s.pitch_shift]),
    [
      [script.speakers[0]!.key, 'flite:kal16', 0],
      [script.speakers[1]!.key, 'flite:rms', 3],
    ],
  );
  assert.equal(withSpeakerVoices(script, null), script);
  assert.throws(() => withSpeakerVoices(script, ['flite:kal16']), /1 voices for 2 speakers/);
  assert.throws(() => withSpeakerVoices(script, ['flite:kal16', 'flite:rms/up']), /no number of semitones/);
});

test('the default matrix: 2, 3, 4 and 6 speakers × every scene; the long session only with --long; a subset by option', async () => {
  const config = qualityConfig({ tiny: false });
  assert.deepEqual(config.scripts, DEFAULT_SCRIPTS);
  assert.deepEqual(config.scenes, DEFAULT_SCENES);
  const speakers = await Promise.all(DEFAULT_SCRIPTS.map(async (s) => (await loadScript(s)).speakers.length));
  assert.deepEqual(speakers, [2, 3, 4, 6]);
  const jobs = matrix(config);
  assert.ok(!jobs.some((j) => j.script === LONG_SCRIPT));
  for (const script of DEFAULT_SCRIPTS)
    for (const scene of DEFAULT_SCENES)
      assert.ok(
        jobs.some((j) => j.script === script && j.scene === scene && j.voice_set === config.voice_sets[0]),
        `${script} ${scene}`,
      );
  const long = matrix(qualityConfig({ tiny: false, options: { long: 'true' } })).filter((j) => j.script === LONG_SCRIPT);
  assert.deepEqual(
    long.map((j) => j.scene),
    ['clean'],
    'the long session once, clean',
  );
  const subset = matrix(qualityConfig({ tiny: false, options: { scripts: 'two-person-call', scenes: 'clean,office', voices: 'espeak' } }));
  assert.deepEqual(
    subset.map((j) => `${j.script}/${j.voice_set}/${j.scene}`),
    ['two-person-call/espeak/clean', 'two-person-call/espeak/office'],
  );
  assert.throws(() => qualityConfig({ tiny: false, options: { scenes: 'attic' } }), /no scene preset "attic"/);
  // Front-end modes: every listed one on the 2- and 4-speaker scripts, the first elsewhere and on the reference voices.
  const modes = matrix(
    qualityConfig({
      tiny: false,
      options: { scripts: 'two-person-call,three-person-design-review', scenes: 'noise-only', enhancement: 'off,on,auto' },
    }),
  );
  assert.deepEqual(
    modes.map((j) => `${j.script}/${j.voice_set}/${j.enhancement}`),
    ['two-person-call/natural/off', 'two-person-call/natural/on', 'two-person-call/natural/auto', 'three-person-design-review/natural/off'],
  );
  assert.throws(() => qualityConfig({ tiny: false, options: { enhancement: 'max' } }), /no mode "max"/);
});

test('--cast-seeds runs every cell once per casting seed; clean cells with one target the exact count and DER <= 2 %', () => {
  const args = parseArgs(['--only', 'quality', '--scripts=two-person-call', '--scenes=clean', '--voices=natural', '--cast-seeds=1,2,3']);
  const config = qualityConfig({ tiny: false, options: args.options });
  assert.deepEqual(config.cast_seeds, [1, 2, 3]);
  assert.deepEqual(
    matrix(config).map((j) => `${j.script}#${j.cast_seed}/${j.scene}`),
    ['two-person-call#1/clean', 'two-person-call#2/clean', 'two-person-call#3/clean'],
  );
  // Without the flag: the voice set's own cast, once.
  assert.deepEqual(qualityConfig({ tiny: true, options: {} }).cast_seeds, [null]);
  assert.deepEqual(castSeedsFlag(undefined), [null]);
  for (const bad of ['1,x', '-1', '1.5', '4294967296', ''])
    assert.throws(() => castSeedsFlag(bad), /--cast-seeds: ".*" is not an integer from 0 to 4294967295/, bad);
  const six = targetsFor({ script: 'six-person-incident-review', speakers: 6, voice_set: 'natural', scene: 'clean', cast_seed: 4 });
  assert.deepEqual(
    [six.der, six.speaker_count_error].map((r) => r && 'max' in r && r.max),
    [0.02, 0],
  );
  const office = targetsFor({ script: 'six-person-incident-review', speakers: 6, voice_set: 'natural', scene: 'office', cast_seed: 4 });
  assert.equal(office.der, undefined, 'the casting target holds on clean meetings');
});

test("targets follow the issues: clean, office, the room halves; none on the reference voices' row when natural ones exist", () => {
  const clean = targetsFor({ script: 'two-person-call', speakers: 2, voice_set: 'natural', scene: 'clean' });
  assert.deepEqual(
    [clean.wer_no_bias, clean.wer_bias].map((r) => r && 'max' in r && r.max),
    [0.15, 0.08],
  );
  assert.ok(
    clean.attribution !== undefined &&
      clean.der !== undefined &&
      clean.speaker_count_error !== undefined &&
      clean.key_points_found !== undefined,
  );
  const six = targetsFor({ script: 'six-person-incident-review', speakers: 6, voice_set: 'natural', scene: 'clean' });
  assert.equal(six.attribution, undefined, 'attribution and DER targets hold up to four speakers');
  const office = targetsFor({ script: 'four-person-standup', speakers: 4, voice_set: 'natural', scene: 'office' });
  assert.deepEqual(office.wer_bias && 'max' in office.wer_bias && office.wer_bias.max, 0.25);
  assert.deepEqual(office.der && 'max' in office.der && office.der.max, 0.05);
  const noise = targetsFor({ script: 'four-person-standup', speakers: 4, voice_set: 'natural', scene: 'noise-only' });
  assert.deepEqual(noise.wer_bias && 'max' in noise.wer_bias && noise.wer_bias.max, 0.35);
  assert.ok(targetsFor({ script: 'x', speakers: 2, voice_set: 'natural', scene: 'hard' }).rtf !== undefined, 'hard: reported, RTF only');
});

test('a summary result of any shape reads as its text', () => {
  assert.equal(summaryText({ text: 'A', sections: [{ title: 'B', items: ['C', 'D'] }], n: 3 }), 'A\nB\nC\nD\n');
  assert.equal(summaryText(null), '');
});

test('the report shows every cell, marks each target, and says why a cell did not run', () => {
  const figures = {
    wer_no_bias: 0.2,
    wer_bias: 0.07,
    wer_stock: 0.15,
    attribution: 0.99,
    der: 0.12,
    speaker_count_error: 1,
    speakers_found: 3,
    key_point_recall: 0.5,
    key_points_found: 0.6,
    rtf: 0.3,
    front_end_rtf: 0.02,
  };
  const ok: Cell = {
    script: 'two-person-call',
    speakers: 2,
    voice_set: 'natural',
    scene: 'clean',
    enhancement: 'auto',
    audio_seconds: 60,
    error: null,
    key_points: [{ kind: 'blocker', text: 'b', appears: false }],
    ...figures,
    targets: { wer_no_bias: { target: '<= 0.15', value: 0.2, met: false }, wer_bias: { target: '<= 0.08', value: 0.07, met: true } },
  };
  const failed: Cell = {
    ...ok,
    scene: 'hard',
    error: 'the import ended failed',
    wer_no_bias: null,
    wer_bias: null,
    targets: { rtf: { target: '<= 0.5', value: null, met: false } },
  };
  const report: BenchReport = {
    generated_at: 'now',
    machine: machine(),
    config: {},
    benchmarks: { cells: [ok, failed] },
    ratios: {},
    targets: {},
  };
  const md = markdown(report);
  assert.match(md, /\| two-person-call \| 2 \| natural \| clean \| auto \| \*\*20\.0 % ✗\*\* \| 7\.0 % ✓ \| 15\.0 % \|/);
  // A report from before the stock column shows a dash there.
  const { wer_stock: _, ...older } = ok;
  assert.match(markdown({ ...report, benchmarks: { cells: [older as Cell] } }), /\| 7\.0 % ✓ \| – \|/);
  assert.match(md, /\| hard \| auto \| – \| – \|.*the import ended failed \|/);
  assert.match(md, /missed: 2, e\.g\. two-person-call\/clean\/auto: blocker "b"/);
  assert.match(table(report), /NOT MET/);
  assert.equal(charts(report).length, 2);
});

test("a stopped chunk's log lines become cells with their targets marked", async () => {
  const { cellsFromLog, mergeQualityReports } = await import('./quality-merge.ts');
  const cells = cellsFromLog(
    'quality: 2 cells\nquality two-person-call / natural / noise-only / front end auto: WER ' +
      '0.399 → 0.313 with bias, attribution 1.000, DER 0.000, speakers 2/2, key points 4/10, RTF ' +
      '3.081 (front end 0.274)\nquality two-person-call / natural / clean / front end auto: WER 0.141 → 0.121 with bias, ' +
      'attribution 0.995, DER 0.000, speakers 2/2, key points 7/10, RTF 0.240 (front end 0.000), stock whole-file WER 0.130\n',
  );
  assert.equal(cells.length, 2);
  assert.equal(cells[0]!.wer_stock, null, 'a log line from before the stock column');
  assert.equal(cells[1]!.wer_stock, 0.13);
  cells.pop();
  assert.equal(cells[0]!.wer_bias, 0.313);
  assert.equal(cells[0]!.key_points_found, 0.4);
  assert.equal(cells[0]!.targets.wer_bias?.met, true);
  const merged = mergeQualityReports([
    { generated_at: 'x', machine: machine(), config: {}, benchmarks: { cells }, ratios: {}, targets: {} },
  ]);
  assert.deepEqual(Object.keys(merged.targets), [
    'two-person-call/natural/noise-only/auto: rtf',
    'two-person-call/natural/noise-only/auto: wer_bias',
  ]);
});
