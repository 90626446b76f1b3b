/**
 * Word error rate of a stock recognizer on a rendered meeting: the whole
 * meeting WAV through pocketsphinx_continuous with its stock US English
 * model, language model and dictionary (nothing adapted to the voices),
 * scored against the truth file's words. A development tool that measures
 * the voices (docs/decisions/026-natural-voices.md), not part of the tests.
 *
 *   node simulator/synth/measure-recognition.ts [--voices natural|espeak] [script ...]
 *
 * Default script: two-person-call.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runTool } from '../run-tool.ts';
import { loadScript } from '../scripts/load-script.ts';
import { normalizeWordList, normalizeWords } from '../score/normalize-words.ts';
import { wordErrorRate } from '../score/word-error-rate.ts';
import { renderScript } from './render-script.ts';
import { VOICE_SETS, voiceLabel } from './voices.ts';
import type { VoiceSet } from './voices.ts';

const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { voices: { type: 'string' } } });
  const voiceSet = (values.voices ?? 'natural') as VoiceSet;
  if (!VOICE_SETS.includes(voiceSet)) throw new Error(`--voices expects one of ${VOICE_SETS.join(', ')}`);
  const work = await mkdtemp(path.join(tmpdir(), 'measure-recognition-'));
  try {
    for (const name of positionals.length > 0 ? positionals : ['two-person-call']) {
      const rendered = await renderScript(await loadScript(name), path.join(work, `${name}.wav`), { voiceSet });
      const { stdout } = await runTool('pocketsphinx_continuous', [
        '-infile',
        rendered.wav,
        '-hmm',
        path.join(MODEL_DIR, 'en-us'),
        '-lm',
        path.join(MODEL_DIR, 'en-us.lm.bin'),
        '-dict',
        path.join(MODEL_DIR, 'cmudict-en-us.dict'),
      ]);
      // One hypothesis line per utterance pocketsphinx found.
      const hypothesis = normalizeWords(stdout.toString('utf8').replace(/\n/g, ' '));
      const reference = normalizeWordList(rendered.truth.words.map((w) => w.text));
      const wer = wordErrorRate(reference, hypothesis);
      const voices = rendered.truth.speakers
        .map((s) => `${s.key}=${voiceLabel(s)}${s.varied ? `(${s.pitch_shift >= 0 ? '+' : ''}${s.pitch_shift} st, ${s.rate} wpm)` : ''}`)
        .join(' ');
      console.log(
        `${name} [${voiceSet}: ${voices}]: WER ${(wer.wer * 100).toFixed(1)} % (${wer.substitutions} sub, ${wer.deletions} del, ${wer.insertions} ins of ${reference.length} words), ${rendered.duration.toFixed(1)} s`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await main(process.argv.slice(2));
}
