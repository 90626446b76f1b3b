/**
 * Casting recurring people (catalogue.ts) into a script: the script's
 * speakers, in order, become the people a cast names; a speaker the cast
 * leaves empty keeps the script's own voice and name. A cast person speaks
 * with their fixed voice and carries their name; where the script's lines
 * address the speaker they replace by first name ("Thanks. Fiona?" → "Thanks.
 * Raj?"), so what is said and who speaks agree (a meeting's talk names its
 * people, which names-from-speech needs). Without a cast nothing changes.
 */
import type { MeetingScript } from '../scripts/meeting-script.ts';
import { voiceLabel } from '../synth/voices.ts';
import { PEOPLE, personById } from './catalogue.ts';
import type { Person } from './catalogue.ts';

/** One entry per script speaker, in order; undefined leaves the speaker as the script has them. */
export type PeopleCast = readonly (Person | undefined)[];

export class PeopleCastError extends Error {}

/**
 * "fiona,raj,,dana" → the cast (an empty entry leaves that speaker as it is).
 * Unknown ids and one person twice are refused with the catalogue's ids.
 */
export function parsePeopleCast(value: string): PeopleCast {
  const ids = value.split(',').map((s) => s.trim().toLowerCase());
  if (ids.every((id) => id === '')) throw new PeopleCastError('--people names no person');
  const seen = new Set<string>();
  return ids.map((id) => {
    if (id === '') return undefined;
    const person = personById(id);
    if (person === undefined) throw new PeopleCastError(`unknown person "${id}"; the people are ${PEOPLE.map((p) => p.id).join(', ')}`);
    if (seen.has(id)) throw new PeopleCastError(`"${id}" is cast twice; a person speaks as one speaker`);
    seen.add(id);
    return person;
  });
}

/** The first word of a name: "Fiona Grant" → "Fiona". */
function firstName(name: string): string {
  return name.trim().split(/\s+/)[0]!;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface CastScript {
  script: MeetingScript;
  /** The person each cast speaker key now is. */
  personOf: ReadonlyMap<string, Person>;
}

/**
 * The script with the cast applied. `renameMentions`: replace each cast
 * speaker's first name in the lines by the person's (whole words, case as
 * written); off for scripts whose speaker names are roles ("Project
 * Manager", QMSum), where the first word is no name.
 */
export function castPeople(script: MeetingScript, cast: PeopleCast, renameMentions = true): CastScript {
  if (cast.length > script.speakers.length)
    throw new PeopleCastError(`the cast names ${cast.length} people, the script has ${script.speakers.length} speakers`);
  const personOf = new Map<string, Person>();
  const renames = new Map<string, string>(); // a speaker's first name → the person's
  const speakers = script.speakers.map((s, i) => {
    const person = cast[i];
    if (person === undefined) return s;
    personOf.set(s.key, person);
    const from = firstName(s.name);
    if (renameMentions && from !== firstName(person.name)) renames.set(from, firstName(person.name));
    // The person's voice in full: the script's own pitch or rate must not change who they sound like.
    return { key: s.key, name: person.name, voice: voiceLabel(person), pitch_shift: person.pitch_shift, rate: person.rate };
  });
  if (renames.size === 0) return { script: { ...script, speakers }, personOf };
  // All renames in one pass of one pattern, so a rename's output is never renamed again (Fiona → Raj, Raj → Dana).
  const names = new RegExp(`\\b(?:${[...renames.keys()].map(escapeRegExp).join('|')})\\b`, 'g');
  const rename = (text: string): string => text.replace(names, (name) => renames.get(name)!);
  const renamed: MeetingScript = {
    ...script,
    speakers,
    lines: script.lines.map((l) => ({ ...l, text: rename(l.text) })),
    ...(script.key_points !== undefined ? { key_points: script.key_points.map((k) => ({ ...k, text: rename(k.text) })) } : {}),
    ...(script.bias !== undefined ? { bias: { ...script.bias, custom_words: script.bias.custom_words.map(rename) } } : {}),
  };
  return { script: renamed, personOf };
}
