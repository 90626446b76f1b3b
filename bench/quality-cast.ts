/**
 * How the quality benchmarks cast a script's voices: the casting seeds of
 * --cast-seeds (simulator/synth/voices.ts, assignVoices; decision 135), and
 * voices named speaker by speaker with --speaker-voices (decision 092).
 * Shared by bench/quality.ts, bench/quality-diarizer.ts and
 * bench/pipeline-vs-stock.ts.
 */
import type { MeetingScript } from '../simulator/scripts/meeting-script.ts';
import { MAX_CAST_SEED, isCastSeed } from '../simulator/synth/voices.ts';
import { FlagError } from './lib.ts';

/** --cast-seeds 1,2,3 → [1, 2, 3]; absent → [null] (the voice set's own cast). */
export function castSeedsFlag(value: string | undefined): (number | null)[] {
  if (value === undefined) return [null];
  const seeds = value.split(',').map((s) => s.trim());
  for (const s of seeds)
    if (!/^\d+$/.test(s) || !isCastSeed(Number(s)))
      throw new FlagError(`--cast-seeds: "${s}" is not an integer from 0 to ${MAX_CAST_SEED}`);
  return seeds.map(Number);
}

/**
 * Names each speaker's voice, in order, from entries "engine:voice" or
 * "engine:voice/semitones" (flite:rms/+3): how a meeting with chosen voices
 * is rendered from a fixture script without a copy of it (decision 092).
 */
export function withSpeakerVoices(script: MeetingScript, voices: readonly string[] | null): MeetingScript {
  if (voices === null) return script;
  if (voices.length !== script.speakers.length)
    throw new FlagError(`--speaker-voices: ${voices.length} voices for ${script.speakers.length} speakers`);
  return {
    ...script,
    speakers: script.speakers.map((speaker, i) => {
      const [voice = '', shift] = voices[i]!.split('/');
      const pitch_shift = shift === undefined ? 0 : Number(shift);
      if (!Number.isFinite(pitch_shift)) throw new FlagError(`--speaker-voices: "${voices[i]}" has no number of semitones after "/"`);
      return { ...speaker, voice, pitch_shift };
    }),
  };
}

/**
 * The script with no voice named: every speaker's voice is then the casting
 * seed's to draw (--recast), for a script that names its voices (the
 * four-person standup does) measured over casts.
 */
export function withoutNamedVoices(script: MeetingScript): MeetingScript {
  return { ...script, speakers: script.speakers.map(({ voice: _voice, pitch_shift: _shift, ...speaker }) => speaker) };
}
