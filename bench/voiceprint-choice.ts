/**
 * Which voiceprint comparison speaker identification uses, and what its
 * 0..1 similarity means (decision 146): same-person and different-person
 * scores of three ways of comparing the diarizer's frame statistics
 * (server/pipeline/voiceprint.ts), with the equal error rate of each.
 *
 *   glr        the diarizer's split score: the likelihood ratio of two full
 *              Gaussians against one on the cepstra, plus half the log-F0 ratio
 *              (what the application uses)
 *   cov        the same on the covariances alone (each voice's mean taken out),
 *              plus half the log-F0 ratio
 *   cov-cep    cov without the log-F0 ratio
 *
 * Real recorded speech: the speakers Debian's pocketsphinx-testdata holds (a
 * LibriVox reader, five files; the card-name reader, five files) and the
 * ALSA speaker-test voice (alsa-utils, eight files): each person enrolled
 * from all their files but one, tested on the one left out (same person) and
 * on every file of the others (different people); the test file clean, and
 * in the office and reverb-only scenes the simulator lays over it.
 *
 * Synthetic voices: meetings rendered with casting seeds (decision 135) in
 * the clean, office and reverb-only scenes; each speaker's turns that
 * overlap nobody, of at least MIN_TURN seconds, make their statistics; a
 * voice (engine, voice, pitch, pace) enrolled from its clean meeting is
 * tested against every speaker of every other meeting.
 *
 *   node bench/voiceprint-choice.ts [--scripts four-person-standup,three-person-design-review]
 *       [--cast-seeds 1,2,3] [--scenes clean,office,reverb-only] [--enhancement off|on|auto]
 *       [--out reports/voiceprint-choice.json]
 *
 * --enhancement runs the speech-enhancement front end (default off) on every
 * recording first, as a transcription with that vad setting does: the
 * identification stage reads the front end's output.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { enhanceSpeech, type EnhancementMode } from '../server/pipeline/enhance/front-end.ts';
import { addStats, emptyStats, type FrameStats } from '../server/pipeline/diarize/features.ts';
import { splitEvidence } from '../server/pipeline/diarize/likelihood.ts';
import { SCORE_AT_BAR, centred, similarityOfScore, voiceScore, voiceStats } from '../server/pipeline/voiceprint.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled, type PcmAudio } from '../server/pipeline/types.ts';
import { applyScene, resolveScene } from '../simulator/scenes/scene.ts';
import { loadScript } from '../simulator/scripts/load-script.ts';
import { renderScript } from '../simulator/synth/render-script.ts';
import { readFlags, round, runCli } from './lib.ts';

const USAGE =
  'node bench/voiceprint-choice.ts [--scripts a,b] [--cast-seeds 1,2,3] [--scenes clean,office,reverb-only] [--enhancement off|on|auto] [--out reports/voiceprint-choice.json]';
const TESTDATA = '/usr/share/pocketsphinx/test/data';
const ALSA = '/usr/share/sounds/alsa';
/** Turns shorter than this are left out of a speaker's statistics (as enrolment does). */
const MIN_TURN = 1;

type Scorer = (a: FrameStats, b: FrameStats) => number;
const SCORERS: Record<string, Scorer> = {
  glr: voiceScore,
  cov: (a, b) => {
    const pitch = splitEvidence(a, b).pitch;
    return splitEvidence(centred(a), centred(b)).cepstra + 0.5 * (pitch ?? 0);
  },
  'cov-cep': (a, b) => splitEvidence(centred(a), centred(b)).cepstra,
};

interface Trial {
  same: boolean;
  scene: string;
  scores: Record<string, number>;
}

function trial(same: boolean, scene: string, a: FrameStats, b: FrameStats): Trial {
  return { same, scene, scores: Object.fromEntries(Object.entries(SCORERS).map(([k, f]) => [k, f(a, b)])) };
}

function sum(stats: readonly FrameStats[]): FrameStats {
  const out = emptyStats();
  for (const s of stats) addStats(out, s);
  return out;
}

function pcm(samples: Float32Array): PcmAudio {
  return { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: samples.length / PIPELINE_SAMPLE_RATE };
}

/** Whole-file statistics (the files are single utterances with a little room tone around them). */
async function fileStats(audio: PcmAudio): Promise<FrameStats> {
  return voiceStats(audio, [{ start: 0, end: audio.durationSeconds }], uncontrolled());
}

/** The front end, as a transcription with the vad section's defaults runs it (identification reads its output). */
let frontEnd: EnhancementMode = 'off';

async function enhanced(audio: PcmAudio): Promise<PcmAudio> {
  if (frontEnd === 'off') return audio;
  const vad = CONFIG_SECTIONS.vad.defaults;
  return (await enhanceSpeech(audio, { enhancement: frontEnd, denoise: vad.denoise, dereverberation: vad.dereverberation }, uncontrolled()))
    .audio;
}

async function sceneAudio(audio: PcmAudio, scene: string): Promise<PcmAudio> {
  if (scene === 'clean') return enhanced(audio);
  return enhanced(pcm(await applyScene([{ speaker: 'reader', samples: audio.samples }], PIPELINE_SAMPLE_RATE, resolveScene(scene, 1))));
}

/** The real speakers: each a list of files. */
function realSpeakers(): Record<string, string[]> {
  const files = (dir: string, names: string[]) => names.map((n) => join(dir, n)).filter((f) => existsSync(f));
  return {
    librivox: files(
      `${TESTDATA}/librivox`,
      ['0870', '0880', '0890', '0920', '0930'].map((n) => `sense_and_sensibility_01_austen_64kb-${n}.wav`),
    ),
    cards: files(
      `${TESTDATA}/cards`,
      ['001', '002', '003', '004', '005'].map((n) => `${n}.wav`),
    ),
    alsa: files(
      ALSA,
      ['Front_Center', 'Front_Left', 'Front_Right', 'Rear_Center', 'Rear_Left', 'Rear_Right', 'Side_Left', 'Side_Right'].map(
        (n) => `${n}.wav`,
      ),
    ),
  };
}

async function realTrials(scenes: readonly string[]): Promise<Trial[]> {
  const decoder = new AudioDecoder();
  const speakers = Object.entries(realSpeakers()).filter(([, f]) => f.length >= 2);
  const audio = new Map<string, PcmAudio[]>();
  for (const [who, files] of speakers) audio.set(who, await Promise.all(files.map((f) => decoder.decode(f, 'wav', uncontrolled()))));
  const clean = new Map<string, FrameStats[]>();
  for (const [who, list] of audio) clean.set(who, await Promise.all(list.map(async (a) => fileStats(await enhanced(a)))));
  const trials: Trial[] = [];
  for (const scene of scenes) {
    for (const [who, list] of audio) {
      for (let i = 0; i < list.length; i++) {
        const test = await fileStats(await sceneAudio(list[i]!, scene));
        // Same person: enrolled from their other files.
        trials.push(trial(true, scene, sum(clean.get(who)!.filter((_, j) => j !== i)), test));
        // Different people: every other speaker enrolled from all their files.
        for (const [other, stats] of clean) if (other !== who) trials.push(trial(false, scene, sum(stats), test));
      }
    }
  }
  return trials;
}

interface SyntheticSpeaker {
  meeting: string;
  scene: string;
  voice: string;
  stats: FrameStats;
}

async function syntheticSpeakers(
  scripts: readonly string[],
  seeds: readonly number[],
  scenes: readonly string[],
): Promise<SyntheticSpeaker[]> {
  const work = mkdtempSync(join(tmpdir(), 'mas-voiceprint-'));
  const out: SyntheticSpeaker[] = [];
  try {
    for (const name of scripts) {
      const script = await loadScript(name);
      for (const castSeed of seeds) {
        for (const scene of scenes) {
          const rendered = await renderScript(script, join(work, `${name}.${castSeed}.${scene}.wav`), {
            voiceSet: 'natural',
            scene,
            seed: 1,
            castSeed,
          });
          const audio = await enhanced(await new AudioDecoder().decode(rendered.wav, 'wav', uncontrolled()));
          const { truth } = rendered;
          for (const sp of truth.speakers) {
            const own = truth.turns.filter(
              (t) =>
                t.speaker === sp.key &&
                t.end - t.start >= MIN_TURN &&
                !truth.turns.some((o) => o.speaker !== sp.key && o.start < t.end && o.end > t.start),
            );
            const voice = `${sp.engine}:${sp.voice}:${sp.pitch_shift}:${sp.rate}:${sp.espeak_pitch ?? ''}`;
            out.push({ meeting: `${name}#${castSeed}`, scene, voice, stats: await voiceStats(audio, own, uncontrolled()) });
          }
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return out;
}

/** Enrolled from a clean meeting, tested in every other meeting and scene. */
function syntheticTrials(speakers: readonly SyntheticSpeaker[]): Trial[] {
  const trials: Trial[] = [];
  for (const enrolled of speakers.filter((s) => s.scene === 'clean' && s.stats.n >= 300)) {
    for (const test of speakers) {
      if (test.meeting === enrolled.meeting || test.stats.n < 100) continue;
      trials.push(trial(test.voice === enrolled.voice, test.scene, enrolled.stats, test.stats));
    }
  }
  return trials;
}

/** Equal error rate and the score where it falls (a score at or below the bar counts as the same person). */
function equalErrorRate(trials: readonly Trial[], scorer: string): { eer: number; at: number; same: number; different: number } {
  const same = trials.filter((t) => t.same).map((t) => t.scores[scorer]!);
  const diff = trials.filter((t) => !t.same).map((t) => t.scores[scorer]!);
  let best = { eer: 1, at: 0, gap: Infinity };
  for (const at of [...same, ...diff].sort((a, b) => a - b)) {
    const miss = same.filter((s) => s > at).length / Math.max(1, same.length);
    const falseAccept = diff.filter((s) => s <= at).length / Math.max(1, diff.length);
    const gap = Math.abs(miss - falseAccept);
    if (gap < best.gap) best = { eer: (miss + falseAccept) / 2, at, gap };
  }
  return { eer: round(best.eer, 3), at: round(best.at, 3), same: same.length, different: diff.length };
}

/** Misses and false accepts at the application's bar (similarity ≥ 0.75, i.e. score ≤ SCORE_AT_BAR). */
function atBar(trials: readonly Trial[]): { miss: number; false_accept: number } {
  const same = trials.filter((t) => t.same);
  const diff = trials.filter((t) => !t.same);
  const accepted = (t: Trial) => similarityOfScore(t.scores.glr!) >= 0.75;
  return {
    miss: round(same.filter((t) => !accepted(t)).length / Math.max(1, same.length), 3),
    false_accept: round(diff.filter(accepted).length / Math.max(1, diff.length), 3),
  };
}

function table(label: string, trials: readonly Trial[], scenes: readonly string[]) {
  const rows: Record<string, unknown>[] = [];
  for (const scene of ['all', ...scenes]) {
    const cell = scene === 'all' ? trials : trials.filter((t) => t.scene === scene);
    if (cell.length === 0) continue;
    const row: Record<string, unknown> = { set: label, scene, at_bar: atBar(cell) };
    for (const scorer of Object.keys(SCORERS)) row[scorer] = equalErrorRate(cell, scorer);
    rows.push(row);
    process.stdout.write(
      `${label.padEnd(10)} ${scene.padEnd(12)} ${Object.keys(SCORERS)
        .map((s) => {
          const e = row[s] as ReturnType<typeof equalErrorRate>;
          return `${s} EER ${(100 * e.eer).toFixed(1)}% at ${e.at}`;
        })
        .join(
          ' | ',
        )} | at bar: miss ${(100 * atBar(cell).miss).toFixed(1)}% false ${(100 * atBar(cell).false_accept).toFixed(1)}% (${cell.filter((t) => t.same).length}/${cell.filter((t) => !t.same).length} trials)\n`,
    );
  }
  return rows;
}

async function main(): Promise<void> {
  const values = readFlags(
    process.argv.slice(2),
    {
      scripts: { type: 'string' },
      'cast-seeds': { type: 'string' },
      scenes: { type: 'string' },
      enhancement: { type: 'string' },
      out: { type: 'string' },
    },
    USAGE,
  );
  const list = (v: string | undefined, d: string) => (v ?? d).split(',').filter(Boolean);
  const scenes = list(values.scenes, 'clean,office,reverb-only');
  const scripts = list(values.scripts, 'four-person-standup,three-person-design-review');
  const seeds = list(values['cast-seeds'], '1,2,3').map(Number);
  frontEnd = (values.enhancement ?? 'off') as EnhancementMode;
  const real = await realTrials(scenes);
  const rows = table('real', real, scenes);
  const synthetic = syntheticTrials(await syntheticSpeakers(scripts, seeds, scenes));
  rows.push(...table('synthetic', synthetic, scenes));
  const out = values.out ?? 'reports/voiceprint-choice.json';
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ score_at_bar: SCORE_AT_BAR, enhancement: frontEnd, scripts, cast_seeds: seeds, scenes, rows }, null, 2)}\n`,
  );
  process.stdout.write(`written: ${out}\n`);
}

await runCli(main);
