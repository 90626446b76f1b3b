/**
 * `npm run doctor`: which of the system tools the gateway leans on are on
 * this machine, and what each missing one disables. Exit 0 when everything
 * running needs is there (the Makefile's RUN_PACKAGES), 1 otherwise; tools
 * only the tests need are reported but do not change the exit code.
 *
 * Every check is a file lookup (PATH, model and voice folders), never a run
 * of the tool, so the doctor is quick and its tests can hand it a PATH that
 * lacks tools; the one exception is the sound server the meeting detector
 * follows, which is a running service, not a file: `pactl info`, at most 3 s
 * (decision 145). What "disables" says is what the code does without the tool:
 * server/pipeline/decode.ts, server/adapters/asr/pocketsphinx.ts,
 * simulator/synth/voices.ts, simulator/devices/pulse-server.ts,
 * server/features/recording/capture.ts.
 */
import { existsSync } from 'node:fs';
import { findExecutable } from '../adapters/fs-probe.ts';
import { soundServerAnswers } from '../adapters/sound-server.ts';
import { DEFAULT_POCKETSPHINX_MODEL_ROOT, listPocketSphinxModels, POCKETSPHINX_BINARY } from '../adapters/asr/pocketsphinx.ts';

/** run: `make run` installs it and the doctor fails without it; optional: nothing breaks; test: the test suite only. */
export type Need = 'run' | 'optional' | 'test';

export interface Check {
  /** What is looked for, as a reader would name it. */
  name: string;
  /** Debian package that provides it. */
  apt: string;
  need: Need;
  /** What the gateway cannot do without it. */
  disables: string;
  /** A path where it was found, or null. */
  find: (where: DoctorEnvironment) => Promise<string | null>;
}

export interface DoctorEnvironment {
  /** PATH searched for executables. */
  path: string;
  /** Folder of the recognizer's models (one folder per language). */
  pocketsphinxModelRoot: string;
  /** Folder of Festival's HTS voice. */
  festivalHtsVoiceDir: string;
  /** NIST's diarization scorer, where simulator/score/der.test.ts looks for it. */
  mdEval: string;
}

export interface CheckResult {
  check: Check;
  found: string | null;
}

const DEFAULT_ENVIRONMENT: DoctorEnvironment = {
  path: process.env.PATH ?? '',
  pocketsphinxModelRoot: DEFAULT_POCKETSPHINX_MODEL_ROOT,
  festivalHtsVoiceDir: '/usr/share/festival/voices/us/cmu_us_slt_arctic_hts',
  mdEval: '/usr/lib/sctk/bin/md-eval.pl',
};

const onPath = (binary: string) => (where: DoctorEnvironment) => findExecutable(binary, where.path);

export const CHECKS: readonly Check[] = [
  {
    name: 'ffmpeg',
    apt: 'ffmpeg',
    need: 'run',
    disables:
      'imports other than WAV and MP3 (those two fall back to the built-in decoders); capture ' +
      'from ALSA devices; rendering synthetic meetings (resampling, encoding)',
    find: onPath('ffmpeg'),
  },
  {
    name: 'ffprobe',
    apt: 'ffmpeg',
    need: 'run',
    disables: 'the truncation check on imports (a cut-off file is then taken for complete) and duration probes',
    find: onPath('ffprobe'),
  },
  {
    name: `${POCKETSPHINX_BINARY} (the recognizer)`,
    apt: 'pocketsphinx',
    need: 'run',
    disables:
      'the pocketsphinx recognizer, the default: transcription jobs fail unless whisper.cpp or an ' +
      'OpenAI-compatible endpoint is configured',
    find: onPath(POCKETSPHINX_BINARY),
  },
  {
    name: 'pocketsphinx model (acoustic model, language model, dictionary)',
    apt: 'pocketsphinx-en-us',
    need: 'run',
    disables: 'the pocketsphinx recognizer: GET /v1/models lists no pocketsphinx model and its jobs fail',
    find: (where) => {
      const models = listPocketSphinxModels(where.pocketsphinxModelRoot);
      return Promise.resolve(models.length > 0 ? `${where.pocketsphinxModelRoot} (${models.map((m) => m.name).join(', ')})` : null);
    },
  },
  {
    name: 'flite',
    apt: 'flite',
    need: 'run',
    disables:
      'synthetic meetings in the default "natural" voice set (Flite speaks four of its five ' +
      'voices); the "espeak" voice set still renders',
    find: onPath('flite'),
  },
  {
    name: 'festival',
    apt: 'festival',
    need: 'run',
    disables: 'the HTS voice festival:cmu_us_slt_arctic_hts, the second voice of the "natural" set: renders that assign it fail',
    find: onPath('festival'),
  },
  {
    name: 'festival HTS voice cmu_us_slt_arctic_hts',
    apt: 'festvox-us-slt-hts',
    need: 'run',
    disables: 'the HTS voice festival:cmu_us_slt_arctic_hts: renders that assign it fail ("festival has no voice")',
    find: (where) => Promise.resolve(existsSync(where.festivalHtsVoiceDir) ? where.festivalHtsVoiceDir : null),
  },
  {
    name: 'espeak-ng',
    apt: 'espeak-ng',
    need: 'run',
    disables:
      'the "espeak" voice set and espeak voices named in scripts; pronunciations of custom words ' +
      'the dictionary lacks fall back to letter rules (vocabulary bias still works, less well)',
    find: onPath('espeak-ng'),
  },
  {
    name: 'sphinx_lm_convert',
    apt: 'sphinxbase-utils',
    need: 'optional',
    disables:
      'nothing in the gateway: vocabulary bias reads and writes the binary language model itself ' +
      '(decision 032); the tool is installed for working on language models by hand',
    find: onPath('sphinx_lm_convert'),
  },
  {
    name: 'pulseaudio',
    apt: 'pulseaudio',
    need: 'run',
    disables: 'virtual devices over PulseAudio: in the auto mode they stay in process, MAS_VIRTUAL_DEVICES=pulse fails',
    find: onPath('pulseaudio'),
  },
  {
    name: 'pactl',
    apt: 'pulseaudio-utils',
    need: 'run',
    disables: 'virtual devices over PulseAudio (sinks and sources are made with pactl)',
    find: onPath('pactl'),
  },
  {
    name: 'pacat',
    apt: 'pulseaudio-utils',
    need: 'run',
    disables: 'virtual devices over PulseAudio (a device plays its meeting with pacat)',
    find: onPath('pacat'),
  },
  {
    name: 'parec',
    apt: 'pulseaudio-utils',
    need: 'run',
    disables: 'recording from PulseAudio devices (capture backend missing)',
    find: onPath('parec'),
  },
  {
    name: 'a sound server answering pactl (meeting detection)',
    apt: 'pulseaudio',
    need: 'optional',
    disables:
      'meeting detection: the meeting-detection section is still stored and returned, but no meeting is ' +
      'detected or recorded by itself (the gateway says so once in its log when the section is enabled)',
    find: (where) => soundServerAnswers({ ...process.env, PATH: where.path }),
  },
  {
    name: 'chromium',
    apt: 'chromium',
    need: 'test',
    disables: 'the browser tests of the settings page (they skip off CI); the gateway does not need it',
    find: (where) => findExecutable('chromium', where.path),
  },
  {
    name: 'md-eval.pl (NIST scoring toolkit)',
    apt: 'sctk',
    need: 'test',
    disables: "the test that compares the project's diarization scorer with NIST's (it skips); the gateway does not need it",
    find: (where) => Promise.resolve(existsSync(where.mdEval) ? where.mdEval : null),
  },
];

export async function runChecks(where: DoctorEnvironment = DEFAULT_ENVIRONMENT, checks: readonly Check[] = CHECKS): Promise<CheckResult[]> {
  return Promise.all(checks.map(async (check) => ({ check, found: await check.find(where) })));
}

/** True when nothing running needs is missing. */
export function readyToRun(results: readonly CheckResult[]): boolean {
  return results.every((r) => r.found !== null || r.check.need !== 'run');
}

export function formatReport(results: readonly CheckResult[]): string {
  const lines = ['Meeting Automation Service: system tools', ''];
  for (const { check, found } of results) {
    if (found !== null) {
      lines.push(`  ok       ${check.name}: ${found}`);
      continue;
    }
    const label = check.need === 'run' ? 'MISSING ' : check.need === 'test' ? 'missing (tests only)' : 'missing (optional)';
    lines.push(`  ${label} ${check.name} (apt package ${check.apt})`, `           without it: ${check.disables}`);
  }
  const missing = [...new Set(results.filter((r) => r.found === null && r.check.need === 'run').map((r) => r.check.apt))];
  lines.push('');
  lines.push(
    missing.length === 0
      ? 'Everything the gateway needs to run is here.'
      : `Missing for running: ${missing.join(' ')}. \`make run\` installs them (apt-get install ${missing.join(' ')}).`,
  );
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const results = await runChecks();
  process.stdout.write(formatReport(results));
  process.exitCode = readyToRun(results) ? 0 : 1;
}

if (import.meta.main) await main();
