/**
 * One call of the espeak-ng speech synthesizer (the "espeak" engine of the
 * voice registry, voices.ts, which caches the lines).
 *
 * Text goes through standard input (--stdin), so a line that starts with "-"
 * is never read as an option. Output is espeak-ng's own WAV on standard
 * output: 22050 Hz, mono, 16-bit for every non-mbrola voice.
 */
import { runTool } from '../run-tool.ts';
import { parseWav } from '../../common/audio/wav.ts';
import type { Pcm16 } from '../../common/audio/wav.ts';

export interface SynthesisRequest {
  voice: string;
  pitch: number;
  /** Words per minute (espeak-ng -s). */
  rate: number;
  text: string;
  /**
   * Extra pause between words (espeak-ng -g), in units of 10 ms at the
   * default rate. Only used to measure word lengths, never in the mix.
   */
  wordGap?: number;
}

let versionPromise: Promise<string> | undefined;

/** The synthesizer's version line; part of every cache key, so an upgrade re-renders. */
export function espeakVersion(): Promise<string> {
  versionPromise ??= runTool('espeak-ng', ['--version']).then((r) => r.stdout.toString('utf8').trim());
  return versionPromise;
}

export async function synthesize(req: SynthesisRequest): Promise<Pcm16> {
  const args = ['-v', req.voice, '-p', String(req.pitch), '-s', String(req.rate)];
  if (req.wordGap !== undefined) args.push('-g', String(req.wordGap));
  args.push('--stdout', '--stdin');
  // A trailing newline ends espeak-ng's stdin line so the last clause is spoken with final intonation.
  const { stdout } = await runTool('espeak-ng', args, { input: `${req.text.replace(/\s+/g, ' ')}\n` });
  const pcm = parseWav(stdout);
  if (pcm.channels !== 1) throw new Error(`espeak-ng produced ${pcm.channels} channels; expected mono`);
  return pcm;
}
