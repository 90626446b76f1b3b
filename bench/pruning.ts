/**
 * Pruning benchmark: what pocketsphinx's search settings cost and give on
 * real recorded speech (decision 096). The project's recognizer
 * (PocketSphinxRecognizer, the pipeline's own options, no bias) decodes
 * pocketsphinx-testdata's readings (bench/quality-real-speech.ts: five
 * LibriVox readings, five read card names, each set joined end to end) in
 * the quality matrix's rooms, laid over the real speech with the simulator's
 * own rendering (simulator/scenes, seed 1), so the speech stays real:
 *
 *   clean        the recordings as they are
 *   office       RT60 0.4 s room and pink noise at 15 dB SNR
 *   reverb-only  the office's room alone
 *   noise-only   the office's noise alone (with --scenes)
 *
 * Each condition goes through the pipeline's front end (the vad section's
 * defaults: enhancement auto) and voice activity once; every candidate
 * setting then decodes the same regions. Figures per setting and condition:
 * WER (simulator/score/word-error-rate.ts) and CPU seconds per audio second
 * of the pocketsphinx processes (user + system time of this process's
 * waited-for children, /proc/self/stat fields cutime and cstime: wall time
 * means nothing on a shared machine). Beside them, stock whole-file decoding
 * of the condition's raw audio (`pocketsphinx_continuous -infile`, no other
 * option: decision 093), with its CPU the same way.
 *
 *   npm run bench -- --only pruning                          the recognizer's defaults against pocketsphinx's, and stock
 *   npm run bench -- --only pruning --settings grid          every candidate of PRUNING_GRID
 *   npm run bench -- --only pruning --settings pocketsphinx-defaults,maxhmmpf-3000 --scenes clean,office --sets librivox
 *
 * A setting overrides the options of the recognizer's defaults it names
 * (POCKETSPHINX_SEARCH_ARGS; overrideOptions). Needs the pocketsphinx-testdata
 * package (/usr/share/pocketsphinx/test/data).
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWav } from '../common/audio/wav.ts';
import { POCKETSPHINX_SEARCH_ARGS, PocketSphinxRecognizer } from '../server/adapters/asr/pocketsphinx.ts';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { enhanceSpeech } from '../server/pipeline/enhance/front-end.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled, type PcmAudio } from '../server/pipeline/types.ts';
import { detectSpeech } from '../server/pipeline/vad.ts';
import { applyScene, resolveScene, SCENE_PRESETS } from '../simulator/scenes/scene.ts';
import { wordErrorRate } from '../simulator/score/word-error-rate.ts';
import { FlagError, fmt, formatRows, machine, round, target, type BenchReport, type BenchRunOptions, type Target } from './lib.ts';
import { stockWholeFileWords } from './quality.ts';
import { joinUtterances, REAL_SPEECH_SETS } from './quality-real-speech.ts';

/**
 * pocketsphinx_continuous's own defaults for the search options of the grid
 * (`pocketsphinx_continuous` with no argument lists them; Debian's
 * 0.8+5prealpha). The "pocketsphinx-defaults" setting passes them all, so it
 * decodes as the recognizer did before decision 096 whatever the defaults are now.
 */
const POCKETSPHINX_DEFAULTS: Record<string, string> = {
  '-beam': '1e-48',
  '-wbeam': '7e-29',
  '-pbeam': '1e-48',
  '-lpbeam': '1e-40',
  '-lponlybeam': '7e-29',
  '-maxhmmpf': '30000',
  '-maxwpf': '-1',
  '-pl_window': '5',
  '-pl_beam': '1e-10',
  '-pl_pbeam': '1e-10',
  '-fwdflat': 'yes',
  '-fwdflatbeam': '1e-64',
  '-fwdflatwbeam': '7e-29',
  '-bestpath': 'yes',
  '-ds': '1',
  '-topn': '4',
};

/**
 * The candidates measured for decision 096, as options over
 * pocketsphinx's defaults. Caps on active HMMs and word exits per frame
 * bind where the search widens (noise, reverberation); beams, the phone
 * lookahead window, frame downsampling, fewer Gaussians and dropping the
 * flat second pass cut everywhere. -bestpath stays on: the word posteriors
 * (the transcript's confidences) come from its lattice.
 */
export const PRUNING_GRID: Record<string, string> = {
  'pocketsphinx-defaults': '',
  'maxhmmpf-10000': '-maxhmmpf 10000',
  'maxhmmpf-8000': '-maxhmmpf 8000',
  'maxhmmpf-7000': '-maxhmmpf 7000',
  'maxhmmpf-6000': '-maxhmmpf 6000',
  'maxhmmpf-5000': '-maxhmmpf 5000',
  'maxhmmpf-3000': '-maxhmmpf 3000',
  'maxhmmpf-2000': '-maxhmmpf 2000',
  'maxwpf-20': '-maxwpf 20',
  'maxwpf-10': '-maxwpf 10',
  'maxhmmpf-3000-maxwpf-20': '-maxhmmpf 3000 -maxwpf 20',
  'maxhmmpf-5000-maxwpf-10': '-maxhmmpf 5000 -maxwpf 10',
  'maxhmmpf-10000-maxwpf-10': '-maxhmmpf 10000 -maxwpf 10',
  'maxhmmpf-8000-maxwpf-10': '-maxhmmpf 8000 -maxwpf 10',
  'maxhmmpf-7000-maxwpf-10': '-maxhmmpf 7000 -maxwpf 10',
  'beams-narrow': '-beam 1e-40 -pbeam 1e-40 -wbeam 1e-24',
  'fwdflat-beams-narrow': '-fwdflatbeam 1e-56 -fwdflatwbeam 1e-24',
  'pl_window-10': '-pl_window 10',
  'fwdflat-no': '-fwdflat no',
  'ds-2': '-ds 2',
  'topn-2': '-topn 2',
};

/** The settings a run without --settings compares: before decision 096, and the recognizer's defaults now. */
const DEFAULT_SETTINGS = ['pocketsphinx-defaults', 'recognizer-defaults'];
const DEFAULT_SCENES = ['clean', 'office', 'reverb-only'];
const SETS = ['librivox', 'cards'];

/** A setting's options: the grid's over pocketsphinx's defaults, or none over the recognizer's ("recognizer-defaults"). */
export function settingArgs(name: string): string[] {
  if (name === 'recognizer-defaults') return [];
  const own = PRUNING_GRID[name];
  if (own === undefined)
    throw new FlagError(`--settings: no setting "${name}"; known: recognizer-defaults, grid, ${Object.keys(PRUNING_GRID).join(', ')}`);
  const pairs = new Map(Object.entries(POCKETSPHINX_DEFAULTS));
  const words = own.split(/\s+/).filter(Boolean);
  for (let i = 0; i + 1 < words.length; i += 2) pairs.set(words[i]!, words[i + 1]!);
  return [...pairs].flat();
}

/** User + system CPU seconds of this process's waited-for children (proc(5) fields 16 and 17). */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / CLOCK_TICKS;
}
/** Linux's USER_HZ: /proc reports times in 1/100 s on every architecture Node runs on here. */
const CLOCK_TICKS = 100;

interface Cell {
  set: string;
  scene: string;
  setting: string;
  audio_s: number;
  words: number;
  wer: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  /** CPU seconds of the decoding processes per second of audio. */
  cpu_per_audio_s: number;
}

interface Condition {
  set: string;
  scene: string;
  audio_s: number;
  /** What the front end ran (auto), and its CPU per audio second (this process). */
  front_end: string;
  front_end_cpu_per_audio_s: number;
  regions: number;
  stock_wer: number;
  stock_cpu_per_audio_s: number;
}

function toPcm16(samples: Float32Array): Int16Array {
  return Int16Array.from(samples, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));
}

export async function run(opts: BenchRunOptions): Promise<BenchReport> {
  const o = opts.options ?? {};
  const list = (v: string | undefined): string[] | undefined =>
    v
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const settingNames = (list(o['settings']) ?? (opts.tiny ? ['recognizer-defaults'] : DEFAULT_SETTINGS)).flatMap((s) =>
    s === 'grid' ? [...Object.keys(PRUNING_GRID), 'recognizer-defaults'] : [s],
  );
  const settings = Object.fromEntries(settingNames.map((s) => [s, settingArgs(s)]));
  const scenes = list(o['scenes']) ?? (opts.tiny ? ['clean'] : DEFAULT_SCENES);
  for (const scene of scenes)
    if (!(scene in SCENE_PRESETS))
      throw new FlagError(`--scenes: no scene preset "${scene}"; known: ${Object.keys(SCENE_PRESETS).join(', ')}`);
  const sets = list(o['sets']) ?? (opts.tiny ? ['cards'] : SETS);
  for (const set of sets)
    if (!(set in REAL_SPEECH_SETS)) throw new FlagError(`--sets: no set "${set}"; known: ${Object.keys(REAL_SPEECH_SETS).join(', ')}`);
  const recognizers = Object.fromEntries(
    Object.entries(settings).map(([name, extraArgs]) => [name, new PocketSphinxRecognizer({ vocabularyBias: 'off', extraArgs })]),
  );
  if (!(await recognizers[settingNames[0]!]!.available())) throw new Error('pocketsphinx_continuous or its English model is not installed');
  const vad = CONFIG_SECTIONS.vad.defaults;
  const work = mkdtempSync(join(tmpdir(), 'mas-bench-pruning-'));
  const cells: Cell[] = [];
  const conditions: Condition[] = [];
  try {
    for (const set of sets) {
      const joined = joinUtterances(REAL_SPEECH_SETS[set]!());
      for (const scene of scenes) {
        const samples =
          scene === 'clean'
            ? joined.samples
            : await applyScene([{ speaker: 'reader', samples: joined.samples }], PIPELINE_SAMPLE_RATE, resolveScene(scene, 1));
        const audio: PcmAudio = { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: samples.length / PIPELINE_SAMPLE_RATE };
        const wav = join(work, `${set}.${scene}.wav`);
        writeFileSync(wav, encodeWav({ sampleRate: PIPELINE_SAMPLE_RATE, channels: 1, samples: toPcm16(samples) }));
        let c0 = childrenCpuSeconds();
        const stock = await stockWholeFileWords(wav);
        const stockCpu = childrenCpuSeconds() - c0;
        const own0 = process.cpuUsage();
        const enhanced = await enhanceSpeech(
          audio,
          { enhancement: vad.enhancement, denoise: vad.denoise, dereverberation: vad.dereverberation },
          uncontrolled(),
        );
        const own = process.cpuUsage(own0);
        const regions = detectSpeech(enhanced.audio, { ...vad });
        const condition: Condition = {
          set,
          scene,
          audio_s: round(audio.durationSeconds, 2),
          front_end: [enhanced.dereverberated ? 'WPE' : '', enhanced.denoised ? 'RNNoise' : ''].filter(Boolean).join('+') || 'nothing',
          front_end_cpu_per_audio_s: round((own.user + own.system) / 1e6 / audio.durationSeconds, 4),
          regions: regions.length,
          stock_wer: round(wordErrorRate(joined.words, stock).wer, 4),
          stock_cpu_per_audio_s: round(stockCpu / audio.durationSeconds, 4),
        };
        conditions.push(condition);
        opts.log(
          `pruning ${set} / ${scene}: ${fmt(condition.audio_s, 1)} s, front end ${condition.front_end}, ${regions.length} regions; stock WER ${fmt(condition.stock_wer * 100, 1)} % at ${fmt(condition.stock_cpu_per_audio_s, 3)} CPU s/s`,
        );
        for (const [name, recognizer] of Object.entries(recognizers)) {
          c0 = childrenCpuSeconds();
          const words = await recognizer.transcribe(
            enhanced.audio,
            regions,
            { language: 'en', customWords: [], initialPrompt: '' },
            uncontrolled(),
          );
          const cpu = childrenCpuSeconds() - c0;
          const wer = wordErrorRate(
            joined.words,
            words.map((w) => w.text),
          );
          const cell: Cell = {
            set,
            scene,
            setting: name,
            audio_s: condition.audio_s,
            words: joined.words.length,
            wer: round(wer.wer, 4),
            substitutions: wer.substitutions,
            deletions: wer.deletions,
            insertions: wer.insertions,
            cpu_per_audio_s: round(cpu / audio.durationSeconds, 4),
          };
          cells.push(cell);
          opts.log(
            `pruning ${set} / ${scene} / ${name}: WER ${fmt(cell.wer * 100, 1)} % (${wer.substitutions} sub, ${wer.deletions} del, ${wer.insertions} ins of ${cell.words}), ${fmt(cell.cpu_per_audio_s, 3)} CPU s/s`,
          );
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {
      tiny: opts.tiny,
      sets,
      scenes,
      settings,
      recognizer_defaults: POCKETSPHINX_SEARCH_ARGS,
      front_end: vad.enhancement,
      cpu: 'user + system seconds of the pocketsphinx processes (cutime + cstime of /proc/self/stat) per audio second',
    },
    benchmarks: { conditions, cells },
    ratios: {},
    targets: targetsOf(cells, conditions),
  };
}

/**
 * Issue 24's bounds on the recognizer's defaults, where the run has them: on
 * the clean LibriVox readings WER within half a point of pocketsphinx's
 * defaults and at most 0.9 × stock; CPU per audio second over two cores
 * (the ideal of one decoder per core) ≤ 0.15 clean and ≤ 0.5 in the office.
 */
function targetsOf(cells: readonly Cell[], conditions: readonly Condition[]): Record<string, Target> {
  const t: Record<string, Target> = {};
  const find = (scene: string, setting: string) => cells.find((c) => c.set === 'librivox' && c.scene === scene && c.setting === setting);
  const now = find('clean', 'recognizer-defaults');
  const before = find('clean', 'pocketsphinx-defaults');
  const stock = conditions.find((c) => c.set === 'librivox' && c.scene === 'clean');
  if (now !== undefined && before !== undefined)
    t['librivox clean: WER - pocketsphinx defaults'] = target(round(now.wer - before.wer, 4), { max: 0.005 });
  if (now !== undefined && stock !== undefined && stock.stock_wer > 0)
    t['librivox clean: WER / stock WER'] = target(round(now.wer / stock.stock_wer, 3), { max: 0.9 });
  for (const [scene, max] of [
    ['clean', 0.15],
    ['office', 0.5],
  ] as const) {
    const c = find(scene, 'recognizer-defaults');
    if (c !== undefined) t[`librivox ${scene}: recognizer CPU s per audio s / 2 cores`] = target(round(c.cpu_per_audio_s / 2, 4), { max });
  }
  return t;
}

function cellsOf(report: BenchReport): { conditions: Condition[]; cells: Cell[] } {
  return report.benchmarks as unknown as { conditions: Condition[]; cells: Cell[] };
}

export function table(report: BenchReport): string {
  const { conditions, cells } = cellsOf(report);
  const rows = [['set', 'scene', 'setting', 'WER %', 'CPU s/s']];
  for (const c of conditions) {
    rows.push([c.set, c.scene, `stock whole file`, fmt(c.stock_wer * 100, 1), fmt(c.stock_cpu_per_audio_s, 3)]);
    for (const x of cells.filter((y) => y.set === c.set && y.scene === c.scene))
      rows.push([x.set, x.scene, x.setting, fmt(x.wer * 100, 1), fmt(x.cpu_per_audio_s, 3)]);
  }
  return formatRows(rows);
}

export function markdown(report: BenchReport): string {
  const { conditions, cells } = cellsOf(report);
  const out = [
    'CPU: user + system seconds of the pocketsphinx processes per audio second. Stock: `pocketsphinx_continuous -infile` on the raw audio.',
    '',
    '| set | scene | front end | setting | WER | sub/del/ins | CPU s/s |',
    '|---|---|---|---|---:|---|---:|',
  ];
  for (const c of conditions) {
    out.push(
      `| ${c.set} | ${c.scene} | ${c.front_end} | stock whole file | ${fmt(c.stock_wer * 100, 1)} % | | ${fmt(c.stock_cpu_per_audio_s, 3)} |`,
    );
    for (const x of cells.filter((y) => y.set === c.set && y.scene === c.scene))
      out.push(
        `| ${x.set} | ${x.scene} | ${c.front_end} | ${x.setting} | ${fmt(x.wer * 100, 1)} % | ${x.substitutions}/${x.deletions}/${x.insertions} | ${fmt(x.cpu_per_audio_s, 3)} |`,
      );
  }
  return out.join('\n');
}
