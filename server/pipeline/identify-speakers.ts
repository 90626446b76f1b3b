/**
 * Speaker identification, a stage after every transcription (decision 119:
 * this file and its line in after-transcription.ts; decision 148).
 *
 * With the speaker-identification section enabled and people enrolled, each
 * speaker cluster's voice statistics (its segments of the recording, as the
 * diarizer counts frames: voiceprint.ts) are compared with every voiceprint.
 * A cluster takes a person's name when their similarity is at or above
 * match_threshold; among those pairs, the one-to-one assignment with the
 * greatest total similarity is chosen (the Hungarian method), so two
 * clusters of one meeting never get one name and a clear match is not taken
 * by a weaker one that came first. A cluster that matches nobody keeps its
 * key (S<n>). The names go out as `speakerNames`; the meetings feature
 * stores them as identified labels, never over a label a user set.
 */
import type { TranscriptStage } from './transcribe.ts';
import type { FrameStats } from './diarize/features.ts';
import { fromVoiceprint, voiceSimilarity, voiceStatsBySpeaker } from './voiceprint.ts';

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
    const byKey = await voiceStatsBySpeaker(transcription.audio, transcription.segments, control);
    const clusters: FrameStats[] = keys.map((k) => byKey.get(k)!);
    const prints = people.map((p) => fromVoiceprint(p.print));
    const similarity = clusters.map((c) => prints.map((p) => (c.n < MIN_CLUSTER_FRAMES ? 0 : voiceSimilarity(c, p))));
    const names: Record<string, string> = {};
    for (const [k, p] of bestAssignment(similarity, identification.matchThreshold)) names[keys[k]!] = people[p]!.name;
    return { ...transcription, speakerNames: names };
  },
};

/**
 * The one-to-one pairs (row, column) of greatest total similarity among the
 * pairs at or above the threshold (the others count as no pair).
 */
export function bestAssignment(similarity: readonly (readonly number[])[], threshold: number): [number, number][] {
  const rows = similarity.length;
  const cols = similarity[0]?.length ?? 0;
  const n = Math.max(rows, cols);
  if (rows === 0 || cols === 0) return [];
  const gain = (r: number, c: number) => {
    const s = r < rows && c < cols ? similarity[r]![c]! : 0;
    return s >= threshold ? s : 0;
  };
  const assigned = hungarian(n, (r, c) => -gain(r, c));
  const pairs: [number, number][] = [];
  assigned.forEach((c, r) => {
    if (gain(r, c) > 0) pairs.push([r, c]);
  });
  return pairs;
}

/** The minimum-cost assignment of an n×n cost matrix (Kuhn–Munkres with potentials, O(n³)): the column of each row. */
function hungarian(n: number, cost: (r: number, c: number) => number): number[] {
  const u = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const match = new Int32Array(n + 1); // match[column] = row, 1-based; 0: free
  const way = new Int32Array(n + 1);
  for (let row = 1; row <= n; row++) {
    match[0] = row;
    let col0 = 0;
    const minv = new Float64Array(n + 1).fill(Infinity);
    const used = new Uint8Array(n + 1);
    do {
      used[col0] = 1;
      const row0 = match[col0]!;
      let delta = Infinity;
      let col1 = 0;
      for (let c = 1; c <= n; c++) {
        if (used[c] === 1) continue;
        const cur = cost(row0 - 1, c - 1) - u[row0]! - v[c]!;
        if (cur < minv[c]!) {
          minv[c] = cur;
          way[c] = col0;
        }
        if (minv[c]! < delta) {
          delta = minv[c]!;
          col1 = c;
        }
      }
      for (let c = 0; c <= n; c++) {
        if (used[c] === 1) {
          u[match[c]!]! += delta;
          v[c]! -= delta;
        } else minv[c]! -= delta;
      }
      col0 = col1;
    } while (match[col0] !== 0);
    do {
      const col1 = way[col0]!;
      match[col0] = match[col1]!;
      col0 = col1;
    } while (col0 !== 0);
  }
  const of = new Array<number>(n).fill(-1);
  for (let c = 1; c <= n; c++) if (match[c]! > 0) of[match[c]! - 1] = c - 1;
  return of;
}
