/**
 * What a seam between two recognizer processes does to the words (decision
 * 104): one rendered meeting (a WAV with its .truth.json beside it, as
 * bench/rtf.ts keeps them under .tmp/rtf-meetings/) through the front end
 * (auto) and voice activity, then recognized with each process count asked
 * for, no bias. Prints the WER of the whole meeting for each count, stock
 * `pocketsphinx_continuous` on the raw file beside them, and the WER of
 * stretches of the meeting before and after each seam, so a loss shows
 * where it happens.
 *
 *   node bench/decode-seams.ts --wav=FILE [--processes=1,2] [--warm-up-seconds=S] [--min-group-seconds=S]
 *       [--stock=plain,same|no]   stock whole-file decoding: plain, with the recognizer's search
 *           bounds (POCKETSPHINX_SEARCH_ARGS, the same options), or none (its figure known already)
 *       [--recognizer-args="-opt value"]   extra pocketsphinx options for the pipeline's decodes (measurements)
 *
 * (decision 104's meeting: the 5-minute office one bench/rtf.ts renders,
 * long-planning-session-5min-office.wav in that folder.)
 */
import { readFileSync } from 'node:fs';
import { POCKETSPHINX_SEARCH_ARGS, PocketSphinxRecognizer } from '../server/adapters/asr/pocketsphinx.ts';
import { mapToSourceTime, planDecodeGroups } from '../server/adapters/asr/spans.ts';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { enhanceSpeech } from '../server/pipeline/enhance/front-end.ts';
import { uncontrolled, type RecognizedWord } from '../server/pipeline/types.ts';
import { detectSpeech } from '../server/pipeline/vad.ts';
import { alignWords, wordErrorRate } from '../simulator/score/word-error-rate.ts';
import { cpuSecondsWithChildren, FlagError, readFlags, runCli } from './lib.ts';
import { stockWholeFileWords } from './quality.ts';

const USAGE =
  'node bench/decode-seams.ts --wav=FILE [--processes=1,2] [--warm-up-seconds=S] [--min-group-seconds=S] [--stock=plain,same|no] [--recognizer-args="-opt value"]';
/** Stretches reported around each seam, in seconds from it. */
const AROUND_SEAM = [-30, 0, 30, 60, 120];

interface TimedWord {
  text: string;
  start: number;
  end: number;
}

const middle = (w: TimedWord) => (w.start + w.end) / 2;

function werPercent(reference: readonly TimedWord[], hypothesis: readonly TimedWord[], from: number, to: number): string {
  const inside = (w: TimedWord) => middle(w) >= from && middle(w) < to;
  const ref = reference.filter(inside).map((w) => w.text);
  if (ref.length === 0) return '–';
  return `${(
    wordErrorRate(
      ref,
      hypothesis.filter(inside).map((w) => w.text),
    ).wer * 100
  ).toFixed(1)} %`;
}

/**
 * Where each count's words differ from the first count's (the single
 * process's, with --processes=1,…): every run of edits, with its time and
 * both sides' words, so a seam's lost, gained or doubled words show.
 */
function printDifferences(results: ReadonlyMap<number, readonly RecognizedWord[]>): void {
  const [first, ...others] = [...results];
  if (first === undefined) return;
  const [base, baseWords] = first;
  for (const [count, words] of others) {
    const steps = alignWords(
      baseWords.map((w) => w.text),
      words.map((w) => w.text),
    );
    const runs: { at: number; was: string[]; now: string[] }[] = [];
    let open: { at: number; was: string[]; now: string[] } | null = null;
    let lastTime = 0;
    for (const step of steps) {
      if (step.op === 'match') {
        lastTime = baseWords[step.ref]!.end;
        open = null;
        continue;
      }
      if (open === null) runs.push((open = { at: lastTime, was: [], now: [] }));
      if (step.op !== 'insertion') open.was.push(baseWords[step.ref]!.text);
      if (step.op !== 'deletion') open.now.push(words[step.hyp]!.text);
    }
    console.log(`${count} process(es) against ${base}: ${runs.length} runs of edits`);
    for (const r of runs) console.log(`  ${r.at.toFixed(1)} s: "${r.was.join(' ')}" → "${r.now.join(' ')}"`);
  }
}

async function main(): Promise<void> {
  const flags = readFlags(
    process.argv.slice(2),
    {
      wav: { type: 'string' },
      processes: { type: 'string', default: '1,2' },
      'warm-up-seconds': { type: 'string' },
      'min-group-seconds': { type: 'string' },
      stock: { type: 'string', default: 'plain' },
      'recognizer-args': { type: 'string' },
    },
    USAGE,
  );
  if (flags.wav === undefined) throw new FlagError(`--wav is required; use ${USAGE}`);
  const truth = (JSON.parse(readFileSync(flags.wav.replace(/\.wav$/, '.truth.json'), 'utf8')) as { words: TimedWord[] }).words;
  const warmUp = flags['warm-up-seconds'] !== undefined ? { warmUpSeconds: Number(flags['warm-up-seconds']) } : {};
  const minGroup = flags['min-group-seconds'] !== undefined ? { minGroupSeconds: Number(flags['min-group-seconds']) } : {};
  const extraArgs = flags['recognizer-args']?.split(/\s+/).filter(Boolean) ?? [];

  const frontEndCpuBefore = cpuSecondsWithChildren();
  const audio = await new AudioDecoder().decode(flags.wav, 'wav', uncontrolled());
  const vad = CONFIG_SECTIONS.vad.defaults;
  const enhanced = await enhanceSpeech(
    audio,
    { enhancement: 'auto', denoise: vad.denoise, dereverberation: vad.dereverberation },
    uncontrolled(),
  );
  const regions = detectSpeech(enhanced.audio, { ...vad });
  const duration = enhanced.audio.durationSeconds;
  // CPU seconds per audio second (user+sys, child processes included): decoding, the front end and voice activity.
  const frontEndCpu = (cpuSecondsWithChildren() - frontEndCpuBefore) / audio.durationSeconds;
  console.log(`decode, front end (auto) and voice activity: ${frontEndCpu.toFixed(3)} CPU s per audio s`);

  for (const kind of flags.stock.split(',').filter((k) => k !== 'no')) {
    if (kind !== 'plain' && kind !== 'same') throw new FlagError(`--stock expects plain, same or no; use ${USAGE}`);
    const stock = await stockWholeFileWords(flags.wav, kind === 'same' ? POCKETSPHINX_SEARCH_ARGS : []);
    const wer = wordErrorRate(
      truth.map((w) => w.text),
      stock,
    ).wer;
    console.log(`stock whole file${kind === 'same' ? ', same options' : ''}: WER ${(wer * 100).toFixed(2)} % of ${truth.length} words`);
  }
  const results = new Map<number, RecognizedWord[]>();
  let seams: number[] = [];
  for (const processes of flags.processes.split(',').map(Number)) {
    const recognizer = new PocketSphinxRecognizer({ vocabularyBias: 'off', processes, extraArgs, ...warmUp, ...minGroup });
    const started = performance.now();
    const cpuBefore = cpuSecondsWithChildren();
    const words = await recognizer.transcribe(
      enhanced.audio,
      regions,
      { language: 'en', customWords: [], initialPrompt: '' },
      uncontrolled(),
    );
    results.set(processes, words);
    const wer = wordErrorRate(
      truth.map((w) => w.text),
      words.map((w) => w.text),
    ).wer;
    const cpu = (cpuSecondsWithChildren() - cpuBefore) / audio.durationSeconds;
    console.log(
      `${processes} process(es): WER ${(wer * 100).toFixed(2)} %; ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
        `recognition ${cpu.toFixed(3)} CPU s per audio s, the whole path ${(cpu + frontEndCpu).toFixed(3)}`,
    );
    // The seams of this count, in the recording's time (each group's first cut, through the plan).
    const { plan, groups } = planDecodeGroups(regions, duration, processes, minGroup.minGroupSeconds, warmUp.warmUpSeconds);
    const cuts = groups
      .slice(1)
      .map((g) => mapToSourceTime([{ text: '', start: g.keepFrom, end: g.keepFrom, confidence: 0 }], plan, duration)[0]!.start);
    if (cuts.length > seams.length) seams = cuts;
  }
  printDifferences(results);
  for (const seam of seams) {
    console.log(`seam at ${seam.toFixed(1)} s (the largest count's first seams):`);
    const edges = [0, ...AROUND_SEAM.map((d) => seam + d).filter((t) => t > 0 && t < duration), duration + 1];
    for (let i = 0; i + 1 < edges.length; i++) {
      const [from, to] = [edges[i]!, edges[i + 1]!];
      const cells = [...results].map(([n, words]) => `${n}: ${werPercent(truth, words, from, to)}`);
      console.log(`  ${from.toFixed(0)}–${Math.min(to, duration).toFixed(0)} s: ${cells.join('  ')}`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runCli(main);
