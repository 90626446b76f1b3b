/**
 * Speaker identification, a stage after every transcription (decision 119:
 * this file and its line in after-transcription.ts; decision 148).
 *
 * With the speaker-identification section enabled and people enrolled, each
 * speaker cluster's voice statistics (as the diarizer measured them and
 * handed them through, decision 171; or, when it did not, its segments of
 * the recording, as the diarizer counts frames: voiceprint.ts) are compared
 * with every voiceprint.
 * A cluster takes a person's name when their similarity is at or above
 * match_threshold; among those pairs, the one-to-one assignment with the
 * greatest total similarity is chosen (the Hungarian method), so two
 * clusters of one meeting never get one name and a clear match is not taken
 * by a weaker one that came first. A cluster that matches nobody keeps its
 * key (S<n>). The names go out as `speakerNames`; the meetings feature
 * stores them as identified labels, never over a label a user set.
 */
import { bestAssignment } from '../../common/best-assignment.ts';
import type { Transcription, TranscriptStage } from './transcribe.ts';
import type { FrameStats } from './diarize/features.ts';
import { fromVoiceprint, voiceSimilarities, voiceStatsBySpeaker } from './voiceprint.ts';

/** A cluster with fewer voice frames than this (1 s) is not identified: too little to tell voices apart. */
const MIN_CLUSTER_FRAMES = 100;

export const identifySpeakers: TranscriptStage = {
  name: 'identify-speakers',
  async run(transcription, control, settings) {
    const identification = settings.speakerIdentification;
    if (identification?.enabled !== true || transcription.segments.length === 0) return transcription;
    const people = identification.voiceprints();
    if (people.length === 0) return transcription;

    const keys = [...new Set(transcription.segments.map((s) => s.speaker))];
    // The diarizer's statistics of these speakers when it handed them through (decision 171); else one pass over the audio.
    const byKey =
      handedThrough(transcription.voices, keys) ?? (await voiceStatsBySpeaker(transcription.audio, transcription.segments, control));
    const clusters: FrameStats[] = keys.map((k) => byKey.get(k)!);
    const prints = people.map((p) => fromVoiceprint(p.print));
    const similarity = voiceSimilarities(clusters, prints, MIN_CLUSTER_FRAMES);
    const names: Record<string, string> = {};
    for (const [k, p] of bestSimilarityPairs(similarity, identification.matchThreshold)) names[keys[k]!] = people[p]!.name;
    return { ...transcription, speakerNames: names };
  },
};

/** The voice statistics the diarizer handed through, when it gave them for every speaker key of the segments; else null. */
function handedThrough(voices: Transcription['voices'], keys: readonly string[]): Map<string, FrameStats> | null {
  if (voices === undefined || !keys.every((k) => Object.hasOwn(voices, k))) return null;
  return new Map(keys.map((k) => [k, voices[k]!]));
}

/**
 * The one-to-one pairs (row, column) of greatest total similarity among the
 * pairs at or above the threshold (the others count as no pair).
 */
export function bestSimilarityPairs(similarity: readonly (readonly number[])[], threshold: number): [number, number][] {
  const gain = similarity.map((row) => row.map((s) => (s >= threshold ? s : 0)));
  const pairs: [number, number][] = [];
  bestAssignment(gain).forEach((c, r) => {
    if (c >= 0 && gain[r]![c]! > 0) pairs.push([r, c]);
  });
  return pairs;
}
