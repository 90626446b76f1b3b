/**
 * The doctor on a machine it is told about: a PATH of stand-in executables
 * (the doctor only looks tools up, it never runs them) and model and voice
 * folders made in a temporary directory; then the script itself with a PATH
 * that lacks every tool.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CHECKS, formatReport, readyToRun, runChecks, type DoctorEnvironment } from './doctor.ts';

const root = mkdtempSync(join(tmpdir(), 'mas-doctor-test-'));
after(() => rmSync(root, { recursive: true, force: true }));

const RUN_TOOLS = [
  'ffmpeg',
  'ffprobe',
  'pocketsphinx_continuous',
  'flite',
  'festival',
  'espeak-ng',
  'pulseaudio',
  'pactl',
  'pacat',
  'parec',
];

/** A folder of stand-ins for `tools` and a complete (empty-file) recognizer model and HTS voice. */
function machine(name: string, tools: readonly string[]): DoctorEnvironment {
  const bin = join(root, name, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const tool of tools) {
    writeFileSync(join(bin, tool), '#!/bin/sh\n');
    chmodSync(join(bin, tool), 0o755);
  }
  const model = join(root, name, 'model', 'en-us');
  mkdirSync(join(model, 'en-us'), { recursive: true });
  writeFileSync(join(model, 'en-us', 'mdef'), '');
  writeFileSync(join(model, 'en-us.lm.bin'), '');
  writeFileSync(join(model, 'cmudict-en-us.dict'), '');
  const voice = join(root, name, 'cmu_us_slt_arctic_hts');
  mkdirSync(voice, { recursive: true });
  return {
    path: bin,
    pocketsphinxModelRoot: join(root, name, 'model'),
    festivalHtsVoiceDir: voice,
    mdEval: join(root, name, 'md-eval.pl'),
  };
}

test('every tool running needs is there: ready, and only the test tools are reported missing', async () => {
  const results = await runChecks(machine('complete', RUN_TOOLS));
  assert.equal(readyToRun(results), true);
  const missing = results.filter((r) => r.found === null).map((r) => r.check.name);
  assert.deepEqual(missing, ['sphinx_lm_convert', 'chromium', 'md-eval.pl (NIST scoring toolkit)']);
  const report = formatReport(results);
  assert.match(report, /Everything the gateway needs to run is here\./);
  assert.match(report, /missing \(tests only\) chromium \(apt package chromium\)/);
  assert.match(report, /missing \(optional\) sphinx_lm_convert \(apt package sphinxbase-utils\)\n {11}without it: nothing in the gateway/);
});

test('no festival and no HTS voice: not ready, and the report says the HTS voice is not offered', async () => {
  const where = machine(
    'no-festival',
    RUN_TOOLS.filter((t) => t !== 'festival'),
  );
  rmSync(where.festivalHtsVoiceDir, { recursive: true });
  const results = await runChecks(where);
  assert.equal(readyToRun(results), false);
  const report = formatReport(results);
  assert.match(report, /MISSING {2}festival \(apt package festival\)\n {11}without it: the HTS voice festival:cmu_us_slt_arctic_hts/);
  assert.match(report, /MISSING {2}festival HTS voice cmu_us_slt_arctic_hts \(apt package festvox-us-slt-hts\)/);
  assert.match(report, /Missing for running: festival festvox-us-slt-hts\./);
});

test('no espeak-ng: custom words fall back to letter rules; no recognizer model: the recognizer is off', async () => {
  const where = machine(
    'no-espeak',
    RUN_TOOLS.filter((t) => t !== 'espeak-ng'),
  );
  rmSync(where.pocketsphinxModelRoot, { recursive: true });
  const report = formatReport(await runChecks(where));
  assert.match(report, /MISSING {2}espeak-ng .*\n.*fall back to letter rules/);
  assert.match(report, /MISSING {2}pocketsphinx model .*\n.*GET \/v1\/models lists no pocketsphinx model/);
});

test('every check names its package and what it disables', () => {
  for (const check of CHECKS) {
    assert.ok(check.apt.length > 0 && check.disables.length > 20, check.name);
  }
});

test('npm run doctor with a PATH that lacks every tool: exit 1, each missing tool named', () => {
  const empty = join(root, 'empty-path');
  mkdirSync(empty);
  const run = spawnSync(process.execPath, [resolve(import.meta.dirname, 'doctor.ts')], {
    encoding: 'utf8',
    env: { PATH: empty },
    timeout: 20_000,
  });
  assert.equal(run.status, 1, run.stderr);
  for (const tool of ['ffmpeg', 'flite', 'festival', 'espeak-ng', 'pactl', 'parec', 'pacat', 'chromium']) {
    assert.match(run.stdout, new RegExp(`missing.* ${tool} \\(apt package`, 'i'), tool);
  }
  assert.match(run.stdout, /Missing for running: ffmpeg pocketsphinx /);
});
