/**
 * Scoring speaker identification across meetings (bench/identification.ts):
 * which truth person each of a transcript's speaker clusters is, and whether
 * the name the application gave the cluster is that person's.
 *
 * A cluster is a truth person by the best one-to-one assignment of time
 * overlap (common/best-assignment.ts), the pairing most favourable
 * to the diarizer, so a diarization error is not also counted as an
 * identification error; a cluster left over (more clusters than people, or
 * no overlap) is nobody's. Pure: the bench feeds it the truth and the
 * transcript.
 */
import { bestAssignment } from '../common/best-assignment.ts';

/** A truth turn, its speaker already the person's id (simulator/truth-formats/truth-formats.ts, speakerTurns). */
export interface PersonTurn {
  speaker: string;
  start: number;
  end: number;
}

export interface ClusterSegment {
  speaker: string;
  start: number;
  end: number;
}

function overlap(a: { start: number; end: number }, b: { start: number; end: number }): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/** Cluster key → truth person (or null: a cluster no person was assigned to), by the best assignment of overlap seconds. */
export function clusterPeople(truth: readonly PersonTurn[], segments: readonly ClusterSegment[]): Map<string, string | null> {
  const clusters = [...new Set(segments.map((s) => s.speaker))];
  const people = [...new Set(truth.map((t) => t.speaker))];
  const weights = clusters.map((c) =>
    people.map((p) => {
      let seconds = 0;
      for (const s of segments) if (s.speaker === c) for (const t of truth) if (t.speaker === p) seconds += overlap(s, t);
      return seconds;
    }),
  );
  const pick = bestAssignment(weights);
  return new Map(clusters.map((c, i) => [c, pick[i]! >= 0 && weights[i]![pick[i]!]! > 0 ? people[pick[i]!]! : null]));
}

export interface ClusterVerdict {
  cluster: string;
  /** The truth person's id, null for a cluster that is nobody. */
  person: string | null;
  /** True when the person was enrolled before this meeting. */
  enrolled: boolean;
  /** The name the transcript gives the cluster, null when none (it stays S<n>). */
  name: string | null;
  /** Enrolled: named with their own name; never enrolled (or nobody): given no name. */
  correct: boolean;
}

/**
 * Each cluster's verdict. `names`: cluster key → the transcript's name for
 * it (a name equal to the key counts as none); `enrolled`: person id → the
 * display name the person was enrolled under.
 */
export function judgeClusters(
  people: ReadonlyMap<string, string | null>,
  names: ReadonlyMap<string, string | null>,
  enrolled: ReadonlyMap<string, string>,
): ClusterVerdict[] {
  return [...people].map(([cluster, person]) => {
    const raw = names.get(cluster) ?? null;
    const name = raw === null || raw.trim() === '' || raw === cluster ? null : raw;
    const enrolledName = person === null ? undefined : enrolled.get(person);
    const correct = enrolledName === undefined ? name === null : name === enrolledName;
    return { cluster, person, enrolled: enrolledName !== undefined, name, correct };
  });
}

export interface IdentificationShares {
  /** Clusters of enrolled people named with their own name, of all enrolled people's clusters (null: none). */
  named_correctly: number | null;
  enrolled_clusters: number;
  /** Clusters of never-enrolled people (or of nobody) given someone's name, of all such clusters. */
  never_enrolled_named: number | null;
  never_enrolled_clusters: number;
  /** Clusters given any name at all. */
  named_any: number;
}

export function shares(verdicts: readonly ClusterVerdict[]): IdentificationShares {
  const enrolled = verdicts.filter((v) => v.enrolled);
  const others = verdicts.filter((v) => !v.enrolled);
  const share = (n: number, of: number): number | null => (of === 0 ? null : n / of);
  return {
    named_correctly: share(enrolled.filter((v) => v.correct).length, enrolled.length),
    enrolled_clusters: enrolled.length,
    never_enrolled_named: share(others.filter((v) => v.name !== null).length, others.length),
    never_enrolled_clusters: others.length,
    named_any: verdicts.filter((v) => v.name !== null).length,
  };
}
