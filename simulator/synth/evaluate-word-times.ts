/**
 * How far the truth's word boundaries (voices.ts: the synthesizer's own
 * timing for Flite and Festival, the estimate of word-times.ts for espeak-ng)
 * are from where a forced aligner puts them. A development tool, not part of
 * the tests: it needs pocketsphinx and its US English model (apt packages
 * pocketsphinx, pocketsphinx-en-us).
 *
 *   node simulator/synth/evaluate-word-times.ts [--voices v1,v2,...] [script ...]
 *
 * Default voices: flite:kal16, flite:rms, festival:cmu_us_slt_arctic_hts,
 * espeak:en-us; default scripts: the short ones. Every line of every script
 * is spoken by every voice as the renderer does, aligned with pocketsphinx
 * against exactly its text (a JSGF grammar of that one sentence, so
 * recognition becomes alignment), and every boundary between two words is
 * compared. Lines with a word the aligner's dictionary lacks (names) are
 * skipped. The aligner works in 10 ms frames and has errors of its own, so
 * the numbers are an upper bound on the truth's error more than an exact one.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runTool } from '../run-tool.ts';
import { loadScript } from '../scripts/load-script.ts';
import { DEFAULT_RATE_WPM } from '../scripts/meeting-script.ts';
import { DEFAULT_CACHE_DIR } from './render-script.ts';
import { LINE_SAMPLE_RATE, NATURAL_RATE_WPM, VoiceCache, parseVoiceName } from './voices.ts';
import type { VoiceChoice } from './voices.ts';
import { encodeWav } from '../../common/audio/wav.ts';
import { characterWeight, layOutWords, tokenizeLine } from './word-times.ts';

const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const DEFAULT_SCRIPTS = ['tiny', 'two-person-call', 'four-person-standup', 'near-identical-voices', 'long-silences'];
const DEFAULT_VOICES = ['flite:kal16', 'flite:rms', 'festival:cmu_us_slt_arctic_hts', 'espeak:en-us'];

export interface BoundaryStats {
  boundaries: number;
  mean: number;
  median: number;
  p90: number;
  p95: number;
}

/** Mean and nearest-rank percentiles of absolute boundary errors (seconds). */
export function boundaryStats(errors: readonly number[]): BoundaryStats | undefined {
  if (errors.length === 0) return undefined;
  const sorted = [...errors].sort((a, b) => a - b);
  const rank = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return {
    boundaries: errors.length,
    mean: errors.reduce((a, b) => a + b, 0) / errors.length,
    median: rank(0.5),
    p90: rank(0.9),
    p95: rank(0.95),
  };
}

function describeStats(stats: BoundaryStats | undefined): string {
  if (stats === undefined) return 'no boundaries';
  const ms = (s: number): string => `${Math.round(s * 1000)} ms`;
  return `${stats.boundaries} boundaries, mean ${ms(stats.mean)}, median ${ms(stats.median)}, 90th percentile ${ms(stats.p90)}, 95th percentile ${ms(stats.p95)}`;
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { voices: { type: 'string' } } });
  const names = positionals.length > 0 ? positionals : DEFAULT_SCRIPTS;
  const voices: VoiceChoice[] = (values.voices?.split(',') ?? DEFAULT_VOICES).map((name) => {
    const { engine, voice } = parseVoiceName(name.trim());
    // Each engine at the pace a speaker without a rate gets.
    return engine === 'espeak'
      ? { engine, voice, pitch_shift: 0, rate: DEFAULT_RATE_WPM, espeak_pitch: 50 }
      : { engine, voice, pitch_shift: 0, rate: NATURAL_RATE_WPM };
  });
  const dictionary = new Set(
    (await readFile(path.join(MODEL_DIR, 'cmudict-en-us.dict'), 'utf8')).split('\n').map((row) => row.split(' ')[0]),
  );
  const cache = new VoiceCache(DEFAULT_CACHE_DIR);
  const work = await mkdtemp(path.join(tmpdir(), 'word-times-'));
  try {
    for (const voice of voices) {
      const errors = { truth: [] as number[], charactersOnly: [] as number[] };
      const timings: Record<string, number> = {};
      let skipped = 0;
      for (const name of names) {
        const script = await loadScript(name);
        for (const line of script.lines) {
          const tokens = tokenizeLine(line.text);
          const spoken = tokens.map((t) => t.text.toLowerCase());
          if (spoken.length < 2 || !spoken.every((w) => dictionary.has(w))) {
            skipped++;
            continue;
          }
          const synthesized = await cache.line(voice, line.text);
          const wav = path.join(work, 'line.wav');
          await writeFile(wav, encodeWav({ sampleRate: LINE_SAMPLE_RATE, channels: 1, samples: synthesized.samples }));
          await writeFile(path.join(work, 'line.gram'), `#JSGF V1.0;\ngrammar line;\npublic <line> = ${spoken.join(' ')};\n`);
          const aligned = await runTool(
            'pocketsphinx_continuous',
            [
              '-infile',
              wav,
              '-jsgf',
              path.join(work, 'line.gram'),
              '-time',
              'yes',
              '-hmm',
              path.join(MODEL_DIR, 'en-us'),
              '-dict',
              path.join(MODEL_DIR, 'cmudict-en-us.dict'),
            ],
            { allowFailure: true },
          );
          // Rows: "word start end confidence"; "(2)" marks an alternative pronunciation.
          const reference = aligned.stdout
            .toString('utf8')
            .split('\n')
            .map((row) => row.trim().split(/\s+/))
            .filter((cols) => cols.length === 4 && !/^[<[]/.test(cols[0]!))
            .map((cols) => ({ word: cols[0]!.replace(/\(\d+\)$/, ''), end: Number(cols[2]) }));
          if (reference.length !== spoken.length || reference.some((r, i) => r.word !== spoken[i])) {
            skipped++;
            continue;
          }
          timings[synthesized.timing] = (timings[synthesized.timing] ?? 0) + 1;
          const characters = layOutWords(
            tokens,
            tokens.map((t) => characterWeight(t.text)),
            synthesized.samples,
            LINE_SAMPLE_RATE,
            voice.rate,
          ).words;
          for (let i = 0; i < tokens.length - 1; i++) {
            errors.truth.push(Math.abs(synthesized.words[i]!.end - reference[i]!.end));
            errors.charactersOnly.push(Math.abs(characters[i]!.end / LINE_SAMPLE_RATE - reference[i]!.end));
          }
        }
      }
      console.log(`${voice.engine}:${voice.voice}: lines by word timing ${JSON.stringify(timings)}; skipped ${skipped}`);
      console.log(`  truth:           ${describeStats(boundaryStats(errors.truth))}`);
      console.log(`  characters only: ${describeStats(boundaryStats(errors.charactersOnly))}`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await main(process.argv.slice(2));
}
