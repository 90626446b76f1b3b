/**
 * What speaker identification costs beside the diarizer (decisions 148,
 * 171): on one rendered meeting (a WAV, as `node simulator/cli.ts render`
 * writes it), each the median of --rounds runs, wall and CPU time of
 *
 *   - the diarizer, which measures every speaker's voice statistics as it
 *     clusters (diarizeWithVoices) and hands them to the identification stage;
 *   - the analysis the stage falls back to when they are not handed through
 *     (voiceStatsBySpeaker: every speaker's turns read again, one pass);
 *
 * and, per speaker, how far the two sets of statistics are apart: voice
 * frames counted each way and the comparison score between them
 * (voiceprint.ts voiceScore; about 0 for one voice, the bar is SCORE_AT_BAR).
 * Then the identification stage itself (identify-speakers.ts), every
 * speaker enrolled from its own statistics, on a transcription whose
 * segments are the diarizer's turns: with the statistics handed through and
 * without them (the stage measures the audio again).
 *
 *   node simulator/cli.ts render three-person-design-review --out <dir>/meeting.wav
 *   node bench/voiceprint-cost.ts --wav <dir>/meeting.wav [--rounds 3]
 */
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { diarizeWithVoices, type Diarization } from '../server/pipeline/diarize.ts';
import { uncontrolled } from '../server/pipeline/types.ts';
import { detectSpeech } from '../server/pipeline/vad.ts';
import { identifySpeakers } from '../server/pipeline/identify-speakers.ts';
import type { Transcription, TranscriptionSettings } from '../server/pipeline/transcribe.ts';
import { SCORE_AT_BAR, toVoiceprint, voiceScore, voiceStatsBySpeaker } from '../server/pipeline/voiceprint.ts';
import { FlagError, median, readFlags, runCli } from './lib.ts';

const USAGE = 'node bench/voiceprint-cost.ts --wav <rendered meeting.wav> [--rounds 3]';

/** Median wall and CPU (this process, all threads) milliseconds of `rounds` runs, and the last result. */
async function timed<T>(run: () => Promise<T>, rounds: number): Promise<{ wallMs: number; cpuMs: number; result: T }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  let result: T | undefined;
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    result = await run();
    const used = process.cpuUsage(c);
    wall.push(performance.now() - t);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wallMs: median(wall) ?? 0, cpuMs: median(cpu) ?? 0, result: result as T };
}

async function main(): Promise<void> {
  const values = readFlags(process.argv.slice(2), { wav: { type: 'string' }, rounds: { type: 'string' } }, USAGE);
  if (values.wav === undefined) throw new FlagError(`--wav is needed; use ${USAGE}`);
  const rounds = Math.max(1, Number(values.rounds ?? 3));
  const audio = await new AudioDecoder().decode(values.wav, 'wav', uncontrolled());
  const regions = detectSpeech(audio, CONFIG_SECTIONS.vad.defaults);
  const diarizer = await timed<Diarization>(
    () => diarizeWithVoices(audio, regions, CONFIG_SECTIONS.diarization.defaults, uncontrolled()),
    rounds,
  );
  // What the stage reads when nothing is handed through: each speaker's stretches (here the diarizer's own turns).
  const stretches = diarizer.result.turns.filter((t) => t.overlap !== true);
  const again = await timed(() => voiceStatsBySpeaker(audio, stretches, uncontrolled()), rounds);
  const seconds = audio.durationSeconds;
  const share = (ms: number) => `${((100 * ms) / (1000 * seconds)).toFixed(1)} % of the audio's duration`;
  const lines = [
    `audio ${seconds.toFixed(1)} s, median of ${rounds}`,
    `diarizer, voice statistics included: ${diarizer.wallMs.toFixed(0)} ms wall, ${diarizer.cpuMs.toFixed(0)} ms CPU (${share(diarizer.cpuMs)})`,
    `identification's own analysis when nothing is handed through: ${again.wallMs.toFixed(0)} ms wall, ${again.cpuMs.toFixed(0)} ms CPU (${share(again.cpuMs)})`,
  ];
  for (const [key, handed] of Object.entries(diarizer.result.voices ?? {})) {
    const measured = again.result.get(key);
    if (measured === undefined) continue;
    lines.push(
      `  ${key}: ${handed.n} voice frames handed through, ${measured.n} measured again; score between them ` +
        `${voiceScore(handed, measured).toFixed(3)} (bar ${SCORE_AT_BAR})`,
    );
  }
  const stage = await stageCost(audio, diarizer.result, rounds);
  lines.push(
    `identification stage, statistics handed through: ${stage.handed.wallMs.toFixed(1)} ms wall, ${stage.handed.cpuMs.toFixed(1)} ms CPU; ` +
      `measuring again: ${stage.again.wallMs.toFixed(0)} ms wall, ${stage.again.cpuMs.toFixed(0)} ms CPU ` +
      `(names ${JSON.stringify(stage.handed.result)} and ${JSON.stringify(stage.again.result)})`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The stage's own time, every speaker enrolled from the diarizer's statistics of them, with and without them handed through. */
async function stageCost(audio: Transcription['audio'], diarization: Diarization, rounds: number) {
  const voices = diarization.voices ?? {};
  const segments = diarization.turns
    .filter((t) => t.overlap !== true)
    .map((t) => ({ speaker: t.speaker, start: t.start, end: t.end, text: '', words: [] }));
  const transcription: Transcription = { audio, speechFound: true, words: [], speakers: [], segments, voices };
  const people = Object.entries(voices).map(([key, stats]) => ({ name: `person ${key}`, print: toVoiceprint(stats) }));
  // The stage reads nothing of the settings but this section.
  const settings = {
    speakerIdentification: { enabled: true, matchThreshold: 0.75, voiceprints: () => people },
  } as unknown as TranscriptionSettings;
  const run = (t: Transcription) => async () => (await identifySpeakers.run(t, uncontrolled(), settings)).speakerNames ?? {};
  const { voices: _dropped, ...without } = transcription;
  return { handed: await timed(run(transcription), rounds), again: await timed(run(without), rounds) };
}

await runCli(main);
