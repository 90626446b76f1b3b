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
 * and, per meeting (clusters × enrolled voices), glr and cov each normalised
 * against the pair's cohort (decision 167): /ratio divided by the mean of
 * both cohorts (what the application uses), /ratio-prints and
 * /ratio-clusters by one of them, /ratio-min by the best other candidate,
 * /z and /z.25 z-scores with the spread floored. Beside equal error rates,
 * the one-to-one naming identification does, at each scorer's real-speech
 * equal-error bar.
 *
 * Real recorded speech: the speakers Debian's pocketsphinx-testdata holds (a
 * LibriVox reader, five files; the card-name reader, five files) and the
 * ALSA speaker-test voice (alsa-utils, eight files), in meetings of one file
 * each: each person enrolled clean from all their files but that one, which
 * is heard clean, or in the office or reverb-only scene the simulator lays
 * over it (enrolled clean, heard elsewhere: the cross-condition measure);
 * and the same meetings with one person never enrolled.
 *
 * Synthetic voices: meetings rendered with casting seeds (decision 135) in
 * the clean, office and reverb-only scenes; each speaker's turns that
 * overlap nobody, of at least MIN_TURN seconds, make their statistics; a
 * voice (engine, voice, pitch, pace) enrolled from its clean meeting is
 * tested against every speaker of every other meeting.
 *
 *   node bench/voiceprint-choice.ts [--scripts four-person-standup,three-person-design-review]
 *       [--cast-seeds 1,2,3] [--scenes clean,office,reverb-only] [--enhancement off|on|auto]
 *       [--out reports/voiceprint-choice.json] [--stats-cache FILE]
 *
 * --stats-cache keeps the synthetic speakers' statistics in FILE (written
 * when absent, read when present, for the same scripts, seeds, scenes and
 * front end), so scorers can be compared again without rendering.
 *
 * --enhancement runs the speech-enhancement front end (default off) on every
 * recording first, as a transcription with that vad setting does: the
 * identification stage reads the front end's output.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { enhanceSpeech, type EnhancementMode } from '../server/pipeline/enhance/front-end.ts';
import { addStats, emptyStats, type FrameStats } from '../server/pipeline/diarize/features.ts';
import { splitEvidence } from '../server/pipeline/diarize/likelihood.ts';
import {
  SCORE_AT_BAR,
  centred,
  fromVoiceprint,
  toVoiceprint,
  type Voiceprint,
  cohortNormalisedScores,
  cohortScores,
  similarityOfScore,
  voiceScore,
  voiceStats,
} from '../server/pipeline/voiceprint.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled, type PcmAudio } from '../server/pipeline/types.ts';
import { applyScene, resolveScene } from '../simulator/scenes/scene.ts';
import { loadScript } from '../simulator/scripts/load-script.ts';
import { renderScript } from '../simulator/synth/render-script.ts';
import { readFlags, round, runCli } from './lib.ts';
import { bestSimilarityPairs } from '../server/pipeline/identify-speakers.ts';

const USAGE =
  'node bench/voiceprint-choice.ts [--scripts a,b] [--cast-seeds 1,2,3] [--scenes clean,office,reverb-only] [--enhancement off|on|auto] [--out reports/voiceprint-choice.json] [--stats-cache FILE]';
const TESTDATA = '/usr/share/pocketsphinx/test/data';
const ALSA = '/usr/share/sounds/alsa';
/** Turns shorter than this are left out of a speaker's statistics (as enrolment does). */
const MIN_TURN = 1;

type Scorer = (a: FrameStats, b: FrameStats) => number;
const PAIR_SCORERS: Record<string, Scorer> = {
  glr: voiceScore,
  cov: (a, b) => {
    const pitch = splitEvidence(a, b).pitch;
    return splitEvidence(centred(a), centred(b)).cepstra + 0.5 * (pitch ?? 0);
  },
  'cov-cep': (a, b) => splitEvidence(centred(a), centred(b)).cepstra,
};

/**
 * Scores normalised within a meeting (clusters × enrolled people): each pair
 * measured against its cohort (voiceprint.ts, cohortScores). A pair without
 * a cohort keeps its raw score.
 */
type Normaliser = (scores: readonly (readonly number[])[]) => number[][];
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const NORMALISERS: Record<string, Normaliser> = {
  raw: (m) => m.map((r) => [...r]),
  // The application's: divided by the mean of both cohorts.
  ratio: (m) => cohortNormalisedScores(m).map((r, i) => r.map((v, j) => v ?? m[i]![j]!)),
  // T-norm's cohort only: the cluster against the other enrolled voices.
  'ratio-prints': (m) => m.map((r) => r.map((s, j) => s / mean(r.filter((_, k) => k !== j)))),
  // Z-norm's cohort only: the person against the meeting's other clusters.
  'ratio-clusters': (m) => m.map((r, i) => r.map((s, j) => s / mean(m.filter((_, k) => k !== i).map((o) => o[j]!)))),
  // Divided by the cohort's smallest score: the best other candidate (best against second).
  'ratio-min': (m) =>
    m.map((r, i) =>
      r.map((s, j) => {
        const c = cohortScores(m, i, j);
        return c.length === 0 ? s : s / Math.max(1e-6, Math.min(...c));
      }),
    ),
  // Z-scores against both cohorts, the standard deviation floored at a share of the mean (cohorts are small).
  z: (m) => zNorm(m, 0.05),
  'z.25': (m) => zNorm(m, 0.25),
};

function zNorm(m: readonly (readonly number[])[], floor: number): number[][] {
  return m.map((r, i) =>
    r.map((s, j) => {
      const c = cohortScores(m, i, j);
      if (c.length < 2) return s;
      const mu = mean(c);
      const sd = Math.sqrt(mean(c.map((x) => (x - mu) ** 2)));
      return (s - mu) / Math.max(sd, floor * mu, 1e-6);
    }),
  );
}
const SCORERS = Object.entries(PAIR_SCORERS).flatMap(([p, _]) =>
  Object.keys(NORMALISERS)
    .filter((n) => n === 'raw' || p === 'glr')
    .map((n) => (n === 'raw' ? p : `${p}/${n}`)),
);

interface Trial {
  same: boolean;
  scene: string;
  /** The meeting, its cluster and the enrolled voice the trial scores (for the one-to-one naming). */
  meeting: string;
  cluster: number;
  print: number;
  /** Whether the cluster's voice is enrolled at all. */
  enrolled: boolean;
  scores: Record<string, number>;
}

/** A meeting's trials: every cluster against every enrolled voice, by every scorer. */
function meetingTrials(
  meeting: string,
  scene: string,
  clusters: readonly { who: string; stats: FrameStats }[],
  prints: readonly { who: string; stats: FrameStats }[],
): Trial[] {
  const byScorer = new Map<string, number[][]>();
  for (const [p, pair] of Object.entries(PAIR_SCORERS)) {
    const raw = clusters.map((c) => prints.map((v) => pair(v.stats, c.stats)));
    for (const [n, normalise] of Object.entries(NORMALISERS)) byScorer.set(n === 'raw' ? p : `${p}/${n}`, normalise(raw));
  }
  return clusters.flatMap((c, i) =>
    prints.map((v, j) => ({
      same: c.who === v.who,
      scene,
      meeting,
      cluster: i,
      print: j,
      enrolled: prints.some((p) => p.who === c.who),
      scores: Object.fromEntries(SCORERS.map((k) => [k, byScorer.get(k)![i]![j]!])),
    })),
  );
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

/**
 * Meetings of real speech: in fold i each speaker's file i (cyclically) is
 * their "cluster", heard in the scene, and their voiceprint is enrolled from
 * all their other files, clean; every cluster is scored against every
 * voiceprint, so the normalised scorers have a cohort as in a meeting.
 * `strangers` holds the same meetings with one person left unenrolled.
 */
async function realTrials(scenes: readonly string[]): Promise<{ trials: Trial[]; strangers: Trial[] }> {
  const decoder = new AudioDecoder();
  const speakers = Object.entries(realSpeakers()).filter(([, f]) => f.length >= 2);
  const audio = new Map<string, PcmAudio[]>();
  for (const [who, files] of speakers) audio.set(who, await Promise.all(files.map((f) => decoder.decode(f, 'wav', uncontrolled()))));
  const clean = new Map<string, FrameStats[]>();
  for (const [who, list] of audio) clean.set(who, await Promise.all(list.map(async (a) => fileStats(await enhanced(a)))));
  const folds = Math.max(...[...audio.values()].map((l) => l.length));
  const trials: Trial[] = [];
  const strangers: Trial[] = [];
  for (const scene of scenes) {
    const heard = new Map<string, FrameStats[]>();
    for (const [who, list] of audio) heard.set(who, await Promise.all(list.map(async (a) => fileStats(await sceneAudio(a, scene)))));
    for (let fold = 0; fold < folds; fold++) {
      const clusters: { who: string; stats: FrameStats }[] = [];
      const prints: { who: string; stats: FrameStats }[] = [];
      for (const [who, list] of heard) {
        const i = fold % list.length;
        clusters.push({ who, stats: list[i]! });
        prints.push({ who, stats: sum(clean.get(who)!.filter((_, j) => j !== i)) });
      }
      trials.push(...meetingTrials(`real#${fold}|${scene}`, scene, clusters, prints));
      // The same meeting with one person never enrolled, each in turn: whom their cluster is named after.
      for (const stranger of prints) {
        const others = prints.filter((p) => p !== stranger);
        strangers.push(...meetingTrials(`real#${fold}-${stranger.who}|${scene}`, scene, clusters, others));
      }
    }
  }
  return { trials, strangers };
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

/** syntheticSpeakers, kept in a file between runs (--stats-cache). */
async function cachedSpeakers(
  file: string | undefined,
  scripts: readonly string[],
  seeds: readonly number[],
  scenes: readonly string[],
): Promise<SyntheticSpeaker[]> {
  const key = JSON.stringify({ scripts, seeds, scenes, frontEnd });
  if (file !== undefined && existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as {
      key: string;
      speakers: (Omit<SyntheticSpeaker, 'stats'> & { stats: Voiceprint })[];
    };
    if (cached.key === key) return cached.speakers.map((s) => ({ ...s, stats: fromVoiceprint(s.stats) }));
  }
  const speakers = await syntheticSpeakers(scripts, seeds, scenes);
  if (file !== undefined)
    writeFileSync(file, JSON.stringify({ key, speakers: speakers.map((s) => ({ ...s, stats: toVoiceprint(s.stats) })) }));
  return speakers;
}

/**
 * Each meeting (script, casting seed, scene) against voiceprints enrolled
 * from the clean meetings of the other casting seeds and scripts: one
 * voiceprint per voice, from the first such meeting it speaks in.
 */
function syntheticTrials(speakers: readonly SyntheticSpeaker[]): Trial[] {
  const trials: Trial[] = [];
  const meetings = [...new Set(speakers.map((s) => `${s.meeting}|${s.scene}`))];
  for (const key of meetings) {
    const [meeting, scene] = key.split('|') as [string, string];
    const prints = new Map<string, FrameStats>();
    for (const s of speakers) {
      if (s.scene === 'clean' && s.meeting !== meeting && s.stats.n >= 300 && !prints.has(s.voice)) prints.set(s.voice, s.stats);
    }
    const clusters = speakers.filter((s) => s.meeting === meeting && s.scene === scene && s.stats.n >= 100);
    trials.push(
      ...meetingTrials(
        key,
        scene,
        clusters.map((c) => ({ who: c.voice, stats: c.stats })),
        [...prints].map(([who, stats]) => ({ who, stats })),
      ),
    );
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
    for (const scorer of SCORERS) row[scorer] = equalErrorRate(cell, scorer);
    rows.push(row);
    process.stdout.write(
      `${label.padEnd(10)} ${scene.padEnd(12)} ${SCORERS.map((s) => {
        const e = row[s] as ReturnType<typeof equalErrorRate>;
        return `${s} EER ${(100 * e.eer).toFixed(1)}% at ${e.at}`;
      }).join(
        ' | ',
      )} | at bar: miss ${(100 * atBar(cell).miss).toFixed(1)}% false ${(100 * atBar(cell).false_accept).toFixed(1)}% (${cell.filter((t) => t.same).length}/${cell.filter((t) => !t.same).length} trials)\n`,
    );
  }
  return rows;
}

/**
 * Speaker identification's own measure: in each meeting, names given one to
 * one (bestSimilarityPairs) among the pairs whose score is at or below the
 * bar; the share of enrolled voices' clusters named with their own name, of
 * them named with another's, and of never-enrolled voices' clusters named.
 */
function naming(trials: readonly Trial[], scorer: string, bar: number) {
  let enrolled = 0;
  let right = 0;
  let wrong = 0;
  let strangers = 0;
  let strangersNamed = 0;
  const meetings = Map.groupBy(trials, (t) => t.meeting);
  for (const list of meetings.values()) {
    const rows = Math.max(...list.map((t) => t.cluster)) + 1;
    const columns = Math.max(...list.map((t) => t.print)) + 1;
    const gain = Array.from({ length: rows }, () => new Array<number>(columns).fill(0));
    for (const t of list) {
      const score = t.scores[scorer]!;
      if (score <= bar) gain[t.cluster]![t.print] = 1 + bar - score;
    }
    const named = new Map(bestSimilarityPairs(gain, 1));
    for (let c = 0; c < rows; c++) {
      const mine = list.filter((t) => t.cluster === c);
      const name = named.get(c);
      if (mine[0]!.enrolled) {
        enrolled++;
        if (name !== undefined && mine.find((t) => t.print === name)!.same) right++;
        else if (name !== undefined) wrong++;
      } else {
        strangers++;
        if (name !== undefined) strangersNamed++;
      }
    }
  }
  const share = (a: number, b: number) => (b === 0 ? null : round(a / b, 3));
  return {
    right: share(right, enrolled),
    wrong: share(wrong, enrolled),
    strangers_named: share(strangersNamed, strangers),
    enrolled,
    strangers,
  };
}

function namingTable(label: string, trials: readonly Trial[], scenes: readonly string[], bars: Record<string, number>) {
  const rows: Record<string, unknown>[] = [];
  for (const scene of ['all', ...scenes]) {
    const cell = scene === 'all' ? trials : trials.filter((t) => t.scene === scene);
    if (cell.length === 0) continue;
    const row: Record<string, unknown> = { set: label, scene, naming: true };
    for (const scorer of SCORERS) row[scorer] = naming(cell, scorer, bars[scorer]!);
    rows.push(row);
    const pct = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(0)}%`);
    process.stdout.write(
      `named     ${label.padEnd(10)} ${scene.padEnd(12)} ${SCORERS.map((k) => {
        const n = row[k] as ReturnType<typeof naming>;
        return `${k} right ${pct(n.right)} wrong ${pct(n.wrong)} strangers ${pct(n.strangers_named)}`;
      }).join(' | ')}\n`,
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
      'stats-cache': { type: 'string' },
    },
    USAGE,
  );
  const list = (v: string | undefined, d: string) => (v ?? d).split(',').filter(Boolean);
  const scenes = list(values.scenes, 'clean,office,reverb-only');
  const scripts = list(values.scripts, 'four-person-standup,three-person-design-review');
  const seeds = list(values['cast-seeds'], '1,2,3').map(Number);
  frontEnd = (values.enhancement ?? 'off') as EnhancementMode;
  const { trials: real, strangers } = await realTrials(scenes);
  const rows = table('real', real, scenes);
  // Each scorer's bar: its equal-error point on real speech, the scenes pooled.
  const bars = Object.fromEntries(SCORERS.map((k) => [k, equalErrorRate(real, k).at]));
  rows.push(...namingTable('real', real, scenes, bars));
  rows.push(...namingTable('real, one person not enrolled', strangers, scenes, bars));
  const synthetic = syntheticTrials(await cachedSpeakers(values['stats-cache'], scripts, seeds, scenes));
  rows.push(...table('synthetic', synthetic, scenes));
  rows.push(...namingTable('synthetic', synthetic, scenes, bars));
  const out = values.out ?? 'reports/voiceprint-choice.json';
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ score_at_bar: SCORE_AT_BAR, bars, enhancement: frontEnd, scripts, cast_seeds: seeds, scenes, rows }, null, 2)}\n`,
  );
  process.stdout.write(`written: ${out}\n`);
}

await runCli(main);
