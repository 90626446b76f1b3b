/**
 * The talkers of babble noise: sentences that appear in no meeting script
 * (small talk from the next table), each said by an espeak-ng voice different
 * from its neighbours, resampled to the render's rate. espeak-ng is used
 * because it is always installed with the simulator and babble only needs
 * to sound like voices, not to be understood.
 *
 * Clips are kept per sample rate for the life of the process.
 */
import { runTool } from '../run-tool.ts';
import { parseWav } from '../../common/audio/wav.ts';

export const BABBLE_SENTENCES: readonly string[] = [
  'Did you see the match on Sunday night, it went to extra time.',
  'My sister is moving to the coast next spring with her two dogs.',
  'The bakery on the corner has started making sourdough again.',
  'I left my umbrella on the train and of course it rained all afternoon.',
  'We are painting the kitchen green, or maybe a pale yellow.',
  'Have you tried the new noodle place near the station?',
  'The garden needs water every evening in this heat.',
  'He finally fixed the bicycle chain after three tries.',
  'Our neighbours are learning the trumpet, slowly.',
  'The museum is free on the first Saturday of the month.',
  'I think the coffee machine upstairs is broken again.',
  'She ran the half marathon in under two hours.',
];

const VOICES: readonly { voice: string; pitch: number }[] = [
  { voice: 'en-us+m1', pitch: 45 },
  { voice: 'en-gb+f2', pitch: 60 },
  { voice: 'en-us+m4', pitch: 35 },
  { voice: 'en+f4', pitch: 70 },
  { voice: 'en-us+m7', pitch: 50 },
  { voice: 'en-gb-x-rp+f1', pitch: 55 },
];

/** Linear-interpolation resampling: enough for a background murmur. */
export function resampleLinear(x: Float32Array, from: number, to: number): Float32Array {
  if (from === to) return Float32Array.from(x);
  const length = Math.floor((x.length * to) / from);
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    const pos = (i * from) / to;
    const k = Math.floor(pos);
    const frac = pos - k;
    out[i] = (x[k] ?? 0) * (1 - frac) + (x[k + 1] ?? 0) * frac;
  }
  return out;
}

const cache = new Map<number, Promise<Float32Array[]>>();

async function synthesizeAll(sampleRate: number): Promise<Float32Array[]> {
  const clips: Float32Array[] = [];
  for (const [i, text] of BABBLE_SENTENCES.entries()) {
    const v = VOICES[i % VOICES.length]!;
    const { stdout } = await runTool('espeak-ng', ['-v', v.voice, '-p', String(v.pitch), '-s', '165', '--stdout', '--stdin'], {
      input: `${text}\n`,
    });
    const pcm = parseWav(stdout);
    const f = new Float32Array(pcm.samples.length);
    for (let k = 0; k < f.length; k++) f[k] = pcm.samples[k]! / 32768;
    clips.push(resampleLinear(f, pcm.sampleRate, sampleRate));
  }
  return clips;
}

/** The babble clips at `sampleRate`. */
export function babbleClips(sampleRate: number): Promise<Float32Array[]> {
  let pending = cache.get(sampleRate);
  if (pending === undefined) {
    pending = synthesizeAll(sampleRate);
    cache.set(sampleRate, pending);
    pending.catch(() => cache.delete(sampleRate));
  }
  return pending;
}
