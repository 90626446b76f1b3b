/**
 * The simulator's recurring people: a fixed cast of named people, each with
 * one fixed voice (engine, voice, pitch, pace), who can be cast into any
 * script or rendered QMSum meeting (render --people=…, cast-people.ts). The
 * same person sounds the same in every meeting and scene, and the truth names
 * them by a stable id, so that recognising a person across meetings can be
 * scored (bench/identification.ts; decision 151).
 *
 * Voices are honest people (decisions 068 and 135): the four different
 * recorded people among Debian's natural voices (slt, kal, awb, rms) speak
 * unvaried; the other four are Flite clustergen voices moved three semitones
 * by playback rate, formants and all (simulator/synth/voices.ts,
 * variationMovesVocalTract), which a listener hears as a different vocal
 * tract, never a voice moved in pitch alone.
 */
import { voiceLabel } from '../synth/voices.ts';
import type { EngineName } from '../synth/voices.ts';

export interface Person {
  /** Stable id: lower case, written into the truth (`speakers[].person`, the RTTM's and STM's speaker). */
  id: string;
  /** The display name a user would type when labelling them. */
  name: string;
  engine: EngineName;
  voice: string;
  /** Semitones from the voice's own pitch; on Flite clustergen voices the whole voice moves (decision 135). */
  pitch_shift: number;
  /** Words per minute (simulator/synth/voices.ts: one scale for every engine). */
  rate: number;
}

/**
 * Eight people. The first four are exactly the four-person standup's voices
 * (fixtures/meetings/four-person-standup.json) with its people's names, so
 * the README's standup is a meeting of recurring people as it stands. The
 * variations and paces are decision 135's repeats (−3 st 12 wpm slower,
 * +3 st 12 wpm faster).
 */
export const PEOPLE: readonly Person[] = [
  { id: 'dana', name: 'Dana Whitfield', engine: 'festival', voice: 'cmu_us_slt_arctic_hts', pitch_shift: 0, rate: 160 },
  { id: 'emeka', name: 'Emeka Obi', engine: 'flite', voice: 'kal16', pitch_shift: 0, rate: 160 },
  { id: 'fiona', name: 'Fiona Grant', engine: 'flite', voice: 'awb', pitch_shift: 0, rate: 160 },
  { id: 'hiro', name: 'Hiro Tanaka', engine: 'flite', voice: 'rms', pitch_shift: 0, rate: 160 },
  { id: 'raj', name: 'Raj Patel', engine: 'flite', voice: 'rms', pitch_shift: -3, rate: 148 },
  { id: 'sofia', name: 'Sofia Ruiz', engine: 'flite', voice: 'slt', pitch_shift: 3, rate: 172 },
  { id: 'lukas', name: 'Lukas Berg', engine: 'flite', voice: 'awb', pitch_shift: -3, rate: 148 },
  { id: 'amara', name: 'Amara Nwosu', engine: 'flite', voice: 'slt', pitch_shift: -3, rate: 148 },
];

/** The person with this id, or undefined. */
export function personById(id: string): Person | undefined {
  return PEOPLE.find((p) => p.id === id);
}

/** "flite:rms −3 st, 148 wpm": how a person's voice is described in listings. */
export function describeVoice(p: Person): string {
  const shift = p.pitch_shift === 0 ? '' : ` ${p.pitch_shift > 0 ? '+' : '−'}${Math.abs(p.pitch_shift)} st`;
  return `${voiceLabel(p)}${shift}, ${p.rate} wpm`;
}
