/**
 * How far the estimated word boundaries (word-times.ts) are from where a
 * forced aligner puts them. A development tool, not part of the tests: it
 * needs pocketsphinx and its US English model (apt packages pocketsphinx,
 * pocketsphinx-en-us).
 *
 *   node simulator/synth/evaluate-word-times.ts [script ...]   # default: the short scripts
 *
 * For each line it synthesizes the line as the renderer does, aligns the
 * known text with pocketsphinx (a JSGF grammar of exactly that sentence, so
 * recognition becomes alignment), and compares every boundary between two
 * words. Lines with a word the aligner's dictionary lacks (names) are skipped.
 * The aligner works in 10 ms frames and has errors of its own, so the numbers
 * are an upper bound on the estimate's error more than an exact one.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTool } from '../run-tool.ts';
import { loadScript } from '../scripts/load-script.ts';
import { DEFAULT_RATE_WPM } from '../scripts/meeting-script.ts';
import { SynthesisCache } from './espeak.ts';
import { DEFAULT_CACHE_DIR } from './render-script.ts';
import { encodeWav } from './wav.ts';
import { MEASURE_WORD_GAP, characterWeight, layOutWords, tokenizeLine, wordLengths } from './word-times.ts';

const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const DEFAULT_SCRIPTS = ['tiny', 'two-person-call', 'four-person-standup', 'near-identical-voices', 'long-silences'];

function summary(errors: number[]): string {
  if (errors.length === 0) return 'no boundaries';
  const sorted = [...errors].sort((a, b) => a - b);
  const ms = (s: number): string => `${Math.round(s * 1000)} ms`;
  const mean = errors.reduce((a, b) => a + b, 0) / errors.length;
  return `${errors.length} boundaries, mean ${ms(mean)}, median ${ms(sorted[Math.floor(sorted.length / 2)]!)}, 90th percentile ${ms(sorted[Math.floor(sorted.length * 0.9)]!)}`;
}

async function main(names: string[]): Promise<void> {
  const dictionary = new Set((await readFile(path.join(MODEL_DIR, 'cmudict-en-us.dict'), 'utf8')).split('\n').map((row) => row.split(' ')[0]));
  const cache = new SynthesisCache(DEFAULT_CACHE_DIR);
  const work = await mkdtemp(path.join(tmpdir(), 'word-times-'));
  const errors = { estimate: [] as number[], charactersOnly: [] as number[] };
  const sources: Record<string, number> = {};
  let skipped = 0;
  try {
    for (const name of names) {
      const script = await loadScript(name);
      for (const line of script.lines) {
        const speaker = script.speakers.find((s) => s.key === line.speaker)!; // parseScript checked the key
        const voice = { voice: speaker.voice, pitch: speaker.pitch, rate: speaker.rate ?? DEFAULT_RATE_WPM };
        const tokens = tokenizeLine(line.text);
        const spoken = tokens.map((t) => t.text.toLowerCase());
        if (!spoken.every((w) => dictionary.has(w))) {
          skipped++;
          continue;
        }
        const clip = await cache.get({ ...voice, text: line.text });
        const wav = path.join(work, 'line.wav');
        await writeFile(path.join(work, 'line-22k.wav'), encodeWav(clip));
        await runTool('ffmpeg', ['-loglevel', 'error', '-y', '-i', path.join(work, 'line-22k.wav'), '-ar', '16000', wav]);
        await writeFile(path.join(work, 'line.gram'), `#JSGF V1.0;\ngrammar line;\npublic <line> = ${spoken.join(' ')};\n`);
        const aligned = await runTool(
          'pocketsphinx_continuous',
          ['-infile', wav, '-jsgf', path.join(work, 'line.gram'), '-time', 'yes', '-hmm', path.join(MODEL_DIR, 'en-us'), '-dict', path.join(MODEL_DIR, 'cmudict-en-us.dict')],
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
        const measuring = await cache.get({ ...voice, text: line.text, wordGap: MEASURE_WORD_GAP });
        const { lengths, source } = wordLengths(tokens, measuring.samples, clip.sampleRate, voice.rate);
        sources[source] = (sources[source] ?? 0) + 1;
        const estimate = layOutWords(tokens, lengths, clip.samples, clip.sampleRate, voice.rate).words;
        const characters = layOutWords(tokens, tokens.map((t) => characterWeight(t.text)), clip.samples, clip.sampleRate, voice.rate).words;
        for (let i = 0; i < tokens.length - 1; i++) {
          errors.estimate.push(Math.abs(estimate[i]!.end / clip.sampleRate - reference[i]!.end));
          errors.charactersOnly.push(Math.abs(characters[i]!.end / clip.sampleRate - reference[i]!.end));
        }
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  console.log(`lines compared by word-length source: ${JSON.stringify(sources)}; skipped ${skipped}`);
  console.log(`estimate (word-times.ts): ${summary(errors.estimate)}`);
  console.log(`characters only:          ${summary(errors.charactersOnly)}`);
}

if (import.meta.main) {
  await main(process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_SCRIPTS);
}
