/**
 * What speaker identification costs beside the diarizer (decision 148): on
 * one rendered meeting (a WAV and its truth file beside it, as
 * `node simulator/cli.ts render` writes them), the time of the diarizer and
 * of the identification stage's analysis (every speaker's voice statistics,
 * one pass over their turns), each the median of --rounds runs.
 *
 *   node simulator/cli.ts render three-person-design-review --out <dir>/meeting.wav
 *   node bench/voiceprint-cost.ts --wav <dir>/meeting.wav [--rounds 3]
 */
import { readFileSync } from 'node:fs';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { diarize } from '../server/pipeline/diarize.ts';
import { uncontrolled } from '../server/pipeline/types.ts';
import { detectSpeech } from '../server/pipeline/vad.ts';
import { voiceStatsBySpeaker } from '../server/pipeline/voiceprint.ts';
import { truthPathFor, type MeetingTruth } from '../simulator/synth/render-script.ts';
import { FlagError, median, readFlags, runCli } from './lib.ts';

const USAGE = 'node bench/voiceprint-cost.ts --wav <rendered meeting.wav> [--rounds 3]';

async function timed(run: () => Promise<unknown>, rounds: number): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await run();
    ms.push(performance.now() - t);
  }
  return median(ms) ?? 0;
}

async function main(): Promise<void> {
  const values = readFlags(process.argv.slice(2), { wav: { type: 'string' }, rounds: { type: 'string' } }, USAGE);
  if (values.wav === undefined) throw new FlagError(`--wav is needed; use ${USAGE}`);
  const rounds = Math.max(1, Number(values.rounds ?? 3));
  const audio = await new AudioDecoder().decode(values.wav, 'wav', uncontrolled());
  const truth = JSON.parse(readFileSync(truthPathFor(values.wav), 'utf8')) as MeetingTruth;
  const regions = detectSpeech(audio, CONFIG_SECTIONS.vad.defaults);
  const diarizer = await timed(() => diarize(audio, regions, CONFIG_SECTIONS.diarization.defaults, uncontrolled()), rounds);
  const identification = await timed(() => voiceStatsBySpeaker(audio, truth.turns, uncontrolled()), rounds);
  process.stdout.write(
    `audio ${audio.durationSeconds.toFixed(1)} s: diarizer ${diarizer.toFixed(0)} ms, identification's voice statistics ${identification.toFixed(0)} ms ` +
      `(${((100 * identification) / (1000 * audio.durationSeconds)).toFixed(1)} % of the audio's duration)\n`,
  );
}

await runCli(main);
