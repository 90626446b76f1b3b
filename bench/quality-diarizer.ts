/**
 * The diarizer alone on the quality matrix's meetings: each cell rendered as
 * the quality benchmark renders it (bench/quality.ts: the scene's seed, the
 * voice set), then the gateway's path without the recognizer: decode →
 * front end (the vad section's defaults, auto) → voice activity → diarize
 * (the diarization section's defaults, the decoded signal as decision 069
 * has it). Scored against the truth: DER with the 0.25 s collar on the turns
 * themselves, speakers found, and the attribution of the truth's own words
 * through assignSpeakers (so it measures the diarizer, not the recognizer's
 * word times). A few seconds a cell where the quality cell takes minutes:
 * what a change to the diarizer is checked on before the gateway's cells
 * are run (decision 092).
 *
 *   node bench/quality-diarizer.ts                                 the default matrix's scripts × scenes, espeak clean
 *   node bench/quality-diarizer.ts --cells six-person-incident-review@clean,my-script.json@office@natural
 *   node bench/quality-diarizer.ts --threshold 0.6                 another clustering_threshold
 *   node bench/quality-diarizer.ts --cells six-person-incident-review@clean \
 *     --speaker-voices flite:kal16,flite:slt,flite:rms,flite:awb,flite:slt/-3,flite:rms/+3   voices named (bench/quality.ts)
 *   node bench/quality-diarizer.ts --cells six-person-incident-review@clean --cast-seeds 1,2,3,4,5 --dynamics natural
 *                                                                  one row per casting seed (decision 135), natural dynamics
 *   node bench/quality-diarizer.ts --real-voices                    two real people instead (below)
 *   node bench/quality-diarizer.ts --real-voices --real-overlap     the same two, talking over each other at times
 *   node bench/quality-diarizer.ts … --overlap-fraction 0           without second speakers in overlaps (decision 156's "before")
 *   node bench/quality-diarizer.ts … --mixture-margin off           without the mixture detector of overlapped speech (decision 179's "before")
 *   node bench/quality-diarizer.ts … --mixture-margin 0.4 [--mixture-scope everywhere]   the detector at that margin (and inside turns too)
 *   node bench/quality-diarizer.ts --real-voices [--real-overlap] --mixture-oracle   the detector alone on the truth's speakers, per margin
 *   node bench/quality-diarizer.ts … --md-eval                      NIST md-eval.pl's DER beside ours (sctk; decision 113)
 *   node bench/quality-diarizer.ts --cells four-person-standup@clean --cast-seeds 1,2,3 --recast
 *                                                                  the script's named voices dropped: the seed casts everyone
 *
 * A cell is script@scene[@voice set]; a script is a fixture name or a path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { assignSpeakers, diarize } from '../server/pipeline/diarize.ts';
import type { SecondSpeakerOptions } from '../server/pipeline/diarize.ts';
import { cutBlocks, describeBlocks } from '../server/pipeline/diarize/blocks.ts';
import { mixtureOverlapSpans, type MixtureScope } from '../server/pipeline/diarize/mixture.ts';
import { enhanceSpeech } from '../server/pipeline/enhance/front-end.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled, type PcmAudio } from '../server/pipeline/types.ts';
import { detectSpeech } from '../server/pipeline/vad.ts';
import { diarizationErrorRate, toRttm, type DiarizationErrorRate, type DiarizationTurn } from '../simulator/score/der.ts';
import { findSctk, runMdEval, type SctkTools } from '../simulator/score/nist-tools.ts';
import { speakerAttribution } from '../simulator/score/speaker-attribution.ts';
import { loadScript } from '../simulator/scripts/load-script.ts';
import { renderScript } from '../simulator/synth/render-script.ts';
import type { VoiceSet } from '../simulator/synth/voices.ts';
import { REAL_SPEECH_SETS, readPcm16Wav } from './quality-real-speech.ts';
import { castSeedsFlag, withSpeakerVoices, withoutNamedVoices } from './quality-cast.ts';
import { DEFAULT_SCENES, DEFAULT_SCRIPTS, QUALITY_SEED } from './quality.ts';
import { FlagError, readFlags, runCli } from './lib.ts';
import { DYNAMICS_PROFILES, type DynamicsProfileName } from '../simulator/scripts/meeting-script.ts';

export interface DiarizerCell {
  script: string;
  scene: string;
  voice_set: string;
  /** The casting seed the voices were drawn with; null: the voice set's own order. */
  cast_seed: number | null;
  dynamics: DynamicsProfileName;
  der: number;
  /** DER's parts: reference speech not covered (overlapped speech beyond the one speaker a turn names counts here), extra speech, wrong speaker. */
  missed: number;
  false_alarm: number;
  confusion: number;
  /** DER where one reference speaker talks (md-eval's -1): what is left when overlapped speech is not scored. */
  der_single: number;
  /** With --md-eval: NIST md-eval.pl's DER (fraction, collar 0.25 s) on the same truth and turns as RTTM (decision 113); else null. */
  der_md_eval: number | null;
  /** CPU seconds diarize() itself took (user + system, this process). */
  diarize_cpu_s: number;
  speakers_found: number;
  speakers: number;
  attribution: number;
}

/** The default cells: every default script in every default scene with natural voices, and each in the clean scene with espeak-ng. */
export function defaultDiarizerCells(): string[] {
  return [
    ...DEFAULT_SCRIPTS.flatMap((s) => DEFAULT_SCENES.map((scene) => `${s}@${scene}`)),
    ...DEFAULT_SCRIPTS.map((s) => `${s}@clean@espeak`),
  ];
}

/** The path of diarizerCell from the decoded signal on: front end, voice activity, diarize, DER against `truth`. */
async function diarizeAndScore(
  decoded: PcmAudio,
  truth: readonly DiarizationTurn[],
  clusteringThreshold: number,
  overlap: SecondSpeakerOptions = {},
) {
  const vad = CONFIG_SECTIONS.vad.defaults;
  const enhanced = (await enhanceSpeech(decoded, vad, uncontrolled())).audio;
  const regions = detectSpeech(enhanced, vad);
  const settings = { ...CONFIG_SECTIONS.diarization.defaults, clustering_threshold: clusteringThreshold };
  // The diarizer's own CPU time (this thread; it runs on one), without the front end and voice activity.
  const cpu = process.cpuUsage();
  const turns = await diarize(decoded, regions, settings, uncontrolled(), overlap);
  const used = process.cpuUsage(cpu);
  return { turns, der: diarizationErrorRate(truth, turns), cpu_s: (used.user + used.system) / 1e6 };
}

/**
 * The time from the end of one real clip to the start of the next in the
 * overlapped real-voices meeting, in turn (negative: the next reader starts
 * before the last one stops). A fixed cycle, not drawn from the simulator's
 * natural profile: interruptions of 0.5–1.5 s and pauses, alternating.
 */
export const REAL_OVERLAP_OFFSETS = [-0.5, 0.6, -0.8, 0.6, -0.3, 1.0] as const;

/**
 * Real recorded voices (issue 32's check beside the synthetic casts): the
 * pocketsphinx-testdata LibriVox readings (one woman) and "cards" utterances
 * (another reader), alternating, 0.6 s of silence between them, 40 s. With
 * `overlapped`, the times between clips follow REAL_OVERLAP_OFFSETS instead
 * (an overlap at most 80 % of either clip), the clips summed where they meet:
 * the material the overlap rule of decision 156 was chosen on.
 */
export async function realVoicesCell(
  clusteringThreshold: number,
  overlapped = false,
  overlap: SecondSpeakerOptions = {},
): Promise<{ der: DiarizationErrorRate; der_single: number; found: number }> {
  const { audio, truth } = realVoicesMeeting(overlapped);
  const { turns, der } = await diarizeAndScore(audio, truth, clusteringThreshold, overlap);
  return {
    der,
    der_single: diarizationErrorRate(truth, turns, { ignoreOverlap: true }).der,
    found: new Set(turns.map((t) => t.speaker)).size,
  };
}

/** The real-voices meeting of realVoicesCell: the signal and the truth's turns. */
function realVoicesMeeting(overlapped: boolean): { audio: PcmAudio; truth: DiarizationTurn[] } {
  const readings = REAL_SPEECH_SETS['librivox']!();
  const cards = REAL_SPEECH_SETS['cards']!();
  const parts = readings.flatMap((u, i) => [{ speaker: 'reader', u }, ...(cards[i] ? [{ speaker: 'cards', u: cards[i] }] : [])]);
  const clips = parts.map((p) => readPcm16Wav(p.u.file));
  const starts: number[] = [];
  let at = 0;
  clips.forEach((c, i) => {
    if (i > 0) {
      const offset = overlapped ? REAL_OVERLAP_OFFSETS[(i - 1) % REAL_OVERLAP_OFFSETS.length]! : 0.6;
      const shortest = Math.min(c.length, clips[i - 1]!.length);
      at = starts[i - 1]! + clips[i - 1]!.length + Math.max(Math.round(offset * PIPELINE_SAMPLE_RATE), -Math.floor(0.8 * shortest));
    }
    starts.push(at);
  });
  const samples = new Float32Array(starts[starts.length - 1]! + clips[clips.length - 1]!.length + Math.round(0.6 * PIPELINE_SAMPLE_RATE));
  const truth: DiarizationTurn[] = clips.map((c, i) => {
    for (let j = 0; j < c.length; j++) samples[starts[i]! + j]! += c[j]!;
    return { speaker: parts[i]!.speaker, start: starts[i]! / PIPELINE_SAMPLE_RATE, end: (starts[i]! + c.length) / PIPELINE_SAMPLE_RATE };
  });
  return { audio: { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: samples.length / PIPELINE_SAMPLE_RATE }, truth };
}

/**
 * The mixture detector alone on the real voices (decision 179), with the
 * truth's speakers in place of the clustering's (which hears the overlapped
 * real meeting as one speaker, decision 156): each block labelled with the
 * speaker whose clip started first among those it lies in, the mixture
 * models built from those labels, and every candidate block's gain compared
 * with the truth (a block is overlapped when both speakers cover half of it).
 * Per margin: overlapped blocks found, and single-speaker blocks taken as two.
 */
async function realVoicesMixtureOracle(
  overlapped: boolean,
  scope: MixtureScope,
  margins: readonly number[],
): Promise<{ margin: number; found: number; overlapped: number; false_alarms: number; single: number }[]> {
  const { audio, truth } = realVoicesMeeting(overlapped);
  const vad = CONFIG_SECTIONS.vad.defaults;
  const regions = detectSpeech((await enhanceSpeech(audio, vad, uncontrolled())).audio, vad);
  const cut = cutBlocks(regions);
  const blocks = await describeBlocks(audio, cut, uncontrolled(), true);
  const ids = ['reader', 'cards'];
  const covering = (b: { start: number; end: number }) =>
    truth.filter((t) => Math.min(t.end, b.end) - Math.max(t.start, b.start) >= 0.5 * (b.end - b.start));
  const spoken = Int32Array.from(blocks, (b) => {
    const first = covering(b).sort((x, y) => x.start - y.start)[0];
    return first === undefined ? -1 : ids.indexOf(first.speaker);
  });
  const turns: { label: number; start: number; end: number }[] = [];
  blocks.forEach((b, i) => {
    const last = turns[turns.length - 1];
    if (spoken[i]! < 0) return;
    if (last !== undefined && last.label === spoken[i]) last.end = b.end;
    else turns.push({ label: spoken[i]!, start: b.start, end: b.end });
  });
  const both = blocks.map((b) => covering(b).length >= 2);
  return margins.map((margin) => {
    const spans = mixtureOverlapSpans(blocks, spoken, turns, { margin, scope });
    const flagged = blocks.map((b) => spans.some((s) => s.start <= b.start + 1e-6 && b.end <= s.end + 1e-6));
    const judged = (want: boolean) => blocks.filter((_, i) => spoken[i]! >= 0 && both[i] === want);
    return {
      margin,
      found: blocks.filter((_, i) => spoken[i]! >= 0 && both[i] && flagged[i]).length,
      overlapped: judged(true).length,
      false_alarms: blocks.filter((_, i) => spoken[i]! >= 0 && !both[i] && flagged[i]).length,
      single: judged(false).length,
    };
  });
}

export async function diarizerCell(
  cell: string,
  work: string,
  clusteringThreshold: number,
  speakerVoices: readonly string[] | null = null,
  cast: { castSeed?: number; dynamics?: DynamicsProfileName; recast?: boolean } = {},
  overlap: SecondSpeakerOptions = {},
  sctk: SctkTools | null = null,
): Promise<DiarizerCell> {
  const [scriptName = '', scene = 'clean', voiceSet = 'natural'] = cell.split('@');
  const loaded = await loadScript(scriptName);
  const script = withSpeakerVoices(cast.recast === true ? withoutNamedVoices(loaded) : loaded, speakerVoices);
  const dynamics = cast.dynamics ?? 'tidy';
  const wav = join(work, `${basename(scriptName, '.json')}.${voiceSet}.${scene}.${dynamics}.${cast.castSeed ?? 'set'}.wav`);
  const { truth } = await renderScript(script, wav, {
    voiceSet: voiceSet as VoiceSet,
    scene,
    seed: QUALITY_SEED,
    dynamics,
    ...(cast.castSeed !== undefined ? { castSeed: cast.castSeed } : {}),
  });
  const decoded = await new AudioDecoder().decode(wav, 'wav', uncontrolled());
  const { turns, der, cpu_s } = await diarizeAndScore(decoded, truth.turns, clusteringThreshold, overlap);
  const labels = assignSpeakers(truth.words, turns);
  const attribution = speakerAttribution(
    truth.words.map((w, i) => ({ text: w.text, start: w.start, end: w.end, cluster: labels[i]! })),
    truth.words,
  );
  return {
    script: scriptName,
    scene,
    voice_set: voiceSet,
    cast_seed: cast.castSeed ?? null,
    dynamics,
    der: der.der,
    missed: der.missed_rate,
    false_alarm: der.false_alarm_rate,
    confusion: der.confusion_rate,
    der_single: diarizationErrorRate(truth.turns, turns, { ignoreOverlap: true }).der,
    diarize_cpu_s: cpu_s,
    der_md_eval:
      sctk === null ? null : runMdEval(sctk, toRttm(truth.turns), toRttm(turns), { collar: 0.25, ignoreOverlap: false }).der / 100,
    speakers_found: new Set(turns.map((t) => t.speaker)).size,
    speakers: script.speakers.length,
    attribution: attribution.accuracy,
  };
}

function pc(v: number): string {
  return `${(100 * v).toFixed(2).padStart(5)} %`;
}

async function main(): Promise<void> {
  const values = readFlags(
    process.argv.slice(2),
    {
      cells: { type: 'string' },
      threshold: { type: 'string' },
      'speaker-voices': { type: 'string' },
      'cast-seeds': { type: 'string' },
      dynamics: { type: 'string' },
      recast: { type: 'boolean' },
      'real-voices': { type: 'boolean' },
      'real-overlap': { type: 'boolean' },
      'overlap-fraction': { type: 'string' },
      'md-eval': { type: 'boolean' },
      'mixture-margin': { type: 'string' },
      'mixture-scope': { type: 'string' },
      'mixture-oracle': { type: 'boolean' },
    },
    'node bench/quality-diarizer.ts [--cells CELL,CELL] [--threshold X] [--speaker-voices V,V] [--cast-seeds N,N] [--dynamics tidy|natural] [--recast] [--real-voices [--real-overlap]] [--overlap-fraction X] [--mixture-margin X|off] [--mixture-scope changes|everywhere] [--mixture-oracle] [--md-eval]',
  );
  const threshold = values.threshold === undefined ? CONFIG_SECTIONS.diarization.defaults.clustering_threshold : Number(values.threshold);
  const overlap: SecondSpeakerOptions = {};
  const scopeFlag = values['mixture-scope'] ?? 'changes';
  if (scopeFlag !== 'changes' && scopeFlag !== 'everywhere') throw new FlagError('--mixture-scope: changes or everywhere');
  const scope: MixtureScope = scopeFlag;
  // The detector runs here by default at the clustering's bar, though the gateway leaves it off (decision 183).
  overlap.mixture = { scope };
  if (values['mixture-margin'] !== undefined) {
    const margin = values['mixture-margin'] === 'off' ? null : Number(values['mixture-margin']);
    if (margin !== null && !Number.isFinite(margin)) throw new FlagError('--mixture-margin: a number (per-frame log-likelihood) or off');
    overlap.mixture = { margin, scope };
  }
  if (values['overlap-fraction'] !== undefined) {
    overlap.marginFraction = Number(values['overlap-fraction']);
    if (!(overlap.marginFraction >= 0)) throw new FlagError('--overlap-fraction: a number ≥ 0 (0: no second speakers)');
  }
  if (values['real-voices'] === true) {
    const overlapped = values['real-overlap'] === true;
    if (values['mixture-oracle'] === true) {
      for (const r of await realVoicesMixtureOracle(overlapped, scope, [-1, -0.5, -0.25, 0, 0.1, 0.2, 0.4, 0.6, 1]))
        console.log(
          `real voices${overlapped ? ', overlapped' : ''}, truth's speakers, mixture margin ${r.margin}: overlapped blocks found ${r.found}/${r.overlapped}, single-speaker blocks taken as two ${r.false_alarms}/${r.single}`,
        );
      return;
    }
    const { der, der_single, found } = await realVoicesCell(threshold, overlapped, overlap);
    console.log(
      `real voices (LibriVox reader, cards reader${overlapped ? ', overlapped' : ''}) DER ${pc(der.der)} (missed ${pc(der.missed_rate)}, false alarm ${pc(der.false_alarm_rate)}, confusion ${pc(der.confusion_rate)}; one speaker ${pc(der_single)})  speakers ${found}/2`,
    );
    return;
  }
  const castSeeds = castSeedsFlag(values['cast-seeds']);
  const dynamics = (values.dynamics ?? 'tidy') as DynamicsProfileName;
  if (!(DYNAMICS_PROFILES as readonly string[]).includes(dynamics))
    throw new FlagError(`--dynamics: no profile "${dynamics}"; known: ${DYNAMICS_PROFILES.join(', ')}`);
  const cells = values.cells?.split(',').filter((c) => c !== '') ?? defaultDiarizerCells();
  const sctk = values['md-eval'] === true ? findSctk() : null;
  if (values['md-eval'] === true && sctk === null) throw new FlagError('--md-eval: sctk (md-eval.pl) is not installed');
  const work = mkdtempSync(join(tmpdir(), 'mas-bench-diarizer-'));
  const results: DiarizerCell[] = [];
  try {
    for (const cell of cells)
      for (const castSeed of castSeeds) {
        const cast = { dynamics, recast: values.recast === true, ...(castSeed !== null ? { castSeed } : {}) };
        const r = await diarizerCell(cell, work, threshold, values['speaker-voices']?.split(',') ?? null, cast, overlap, sctk);
        results.push(r);
        console.log(
          `${basename(r.script, '.json').padEnd(28)} ${r.voice_set.padEnd(7)} ${r.scene.padEnd(11)} ${r.dynamics.padEnd(7)} cast ${String(r.cast_seed ?? '-').padStart(3)} DER ${pc(r.der)} (missed ${pc(r.missed)}, false alarm ${pc(r.false_alarm)}, confusion ${pc(r.confusion)}; one speaker ${pc(r.der_single)}${r.der_md_eval === null ? '' : `; md-eval ${pc(r.der_md_eval)}`})  speakers ${r.speakers_found}/${r.speakers}  attribution ${(100 * r.attribution).toFixed(1)} %  diarizer CPU ${r.diarize_cpu_s.toFixed(2)} s`,
        );
      }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ clustering_threshold: threshold, cells: results }));
}

if (import.meta.url === `file://${process.argv[1]}`) await runCli(main);
