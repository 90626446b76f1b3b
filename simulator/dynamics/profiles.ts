/**
 * The conversation-dynamics profiles: how far apart turns fall, how often
 * people talk over each other, backchannel and hesitate.
 *
 * "tidy" is the renderer as it always was: every line 0.4 s after the last
 * (or the script's own pause_before / overlap), nothing added. "natural" is
 * fitted to real meetings (decision 109): the floor-transfer offsets and the
 * pauses of one speaker are AMI's own distributions, recounted from the
 * word-level RTTMs of all 170 AMI meetings (bench/ami-statistics.ts) and
 * drawn by their quantiles; the backchannel share is ICSI's (about one
 * dialogue act in seven, as issue 32 cites Shriberg, Stolcke & Baron 2001), the hesitation share AMI's
 * "um"/"uh" per word. The rates that have no direct counterpart in a script
 * (how an overlap is bounded when a synthesized line cannot stop early) are
 * set so the rendered statistics come out near AMI's (bench/dynamics-fit.ts,
 * decision 110).
 */
import type { DynamicsProfileName } from '../scripts/meeting-script.ts';

/**
 * A distribution given by its quantiles: `[probability, value]` pairs with
 * increasing probabilities from 0 to 1; a draw interpolates linearly between
 * them (inverse transform sampling).
 */
export type QuantileTable = readonly (readonly [number, number])[];

export interface NaturalProfile {
  name: 'natural';
  /** Seconds from the end of the floor holder's speech to the next speaker's start; negative: they overlap. */
  changeOffsets: QuantileTable;
  /** Seconds of silence between two lines of one speaker. */
  samePausesSeconds: QuantileTable;
  /** An overlap never exceeds this share of either line, so neither is swallowed by the other. */
  maxOverlapShare: number;
  /** Nor this many seconds: a synthesized line cannot stop when interrupted, as a person would. */
  maxOverlapSeconds: number;
  /** Backchannels ("yeah", "uh-huh") as a share of all dialogue acts (sentences and backchannels). */
  backchannelActShare: number;
  /** Of the backchannels, the share said under the speaker's speech; the others follow it in the gap. */
  backchannelUnderSpeech: number;
  /** What a listener says as a backchannel, with weights. Flite spells "mm-hmm" letter by letter, so it is absent. */
  backchannels: readonly (readonly [string, number])[];
  /** Share of changes of speaker after a silence where a second person starts at the same moment and gives way. */
  falseStartShare: number;
  /** What the person who gives way says. */
  falseStarts: readonly string[];
  /** Hesitations ("um", "uh") as a share of all words. */
  hesitationWordShare: number;
  hesitations: readonly string[];
}

export type DynamicsProfile = { name: 'tidy' } | NaturalProfile;

/**
 * Quantiles of the floor-transfer offset over AMI's 42,041 changes of speaker
 * (bench/ami-statistics.ts on the only_words RTTMs): the 2nd and 98th
 * percentiles stand for 0 and 1, so a draw never goes beyond them.
 */
const AMI_CHANGE_OFFSETS: QuantileTable = [
  [0, -3.13],
  [0.05, -2.11],
  [0.1, -1.45],
  [0.2, -0.8],
  [0.25, -0.59],
  [0.3, -0.41],
  [0.4, -0.09],
  [0.5, 0.13],
  [0.6, 0.33],
  [0.7, 0.57],
  [0.75, 0.73],
  [0.8, 0.93],
  [0.9, 1.61],
  [0.95, 2.64],
  [1, 4.93],
];

/** Quantiles of the pause between two stretches of one speaker with nobody in between (AMI, 10,528 pauses), 2nd to 98th percentile. */
const AMI_SAME_SPEAKER_PAUSES: QuantileTable = [
  [0, 0.47],
  [0.05, 0.67],
  [0.1, 0.99],
  [0.2, 1.16],
  [0.25, 1.22],
  [0.3, 1.29],
  [0.4, 1.44],
  [0.5, 1.63],
  [0.6, 1.88],
  [0.7, 2.24],
  [0.75, 2.51],
  [0.8, 2.87],
  [0.9, 4.46],
  [0.95, 6.63],
  [1, 11.03],
];

export const NATURAL_PROFILE: NaturalProfile = {
  name: 'natural',
  changeOffsets: AMI_CHANGE_OFFSETS,
  samePausesSeconds: AMI_SAME_SPEAKER_PAUSES,
  maxOverlapShare: 0.8,
  maxOverlapSeconds: 3.5,
  backchannelActShare: 1 / 7,
  backchannelUnderSpeech: 0.9,
  backchannels: [
    ['Yeah.', 4],
    ['Uh-huh.', 2],
    ['Right.', 2],
    ['Okay.', 2],
    ['Yep.', 1],
    ['Sure.', 1],
  ],
  falseStartShare: 0.05,
  falseStarts: ['So', 'Well', 'I think', 'And', 'But'],
  hesitationWordShare: 0.04,
  hesitations: ['um', 'uh'],
};

export function dynamicsProfile(name: DynamicsProfileName): DynamicsProfile {
  return name === 'tidy' ? { name: 'tidy' } : NATURAL_PROFILE;
}

/** The value of a quantile table at probability `u` in [0, 1]. */
export function quantileAt(table: QuantileTable, u: number): number {
  const p = Math.min(1, Math.max(0, u));
  for (let i = 1; i < table.length; i++) {
    const [p1, v1] = table[i]!;
    if (p <= p1) {
      const [p0, v0] = table[i - 1]!;
      return p1 === p0 ? v1 : v0 + ((v1 - v0) * (p - p0)) / (p1 - p0);
    }
  }
  return table.at(-1)![1];
}
