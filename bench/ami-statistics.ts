/**
 * Recounts how real meetings go in time from AMI's word-level speaker
 * timings: the RTTM files of BUTSpeechFIT/AMI-diarization-setup (Apache-2.0;
 * references derived from the AMI corpus's manual annotations, version
 * 1.6.2: a speaker's words joined where they touch, split at any pause),
 * with its UEM files for each recording's length. The statistics are those
 * of simulator/dynamics/conversation-statistics.ts, the module the rendered
 * meetings are measured with (bench/dynamics-fit.ts); decision 109 has the
 * counts and the natural profile's fit to them.
 *
 *   git clone https://github.com/BUTSpeechFIT/AMI-diarization-setup
 *   node bench/ami-statistics.ts --path AMI-diarization-setup [--set only_words] [--json out.json]
 *
 * Every *.rttm under <path>/<set>/ is read (a recording listed in two files,
 * such as the per-split files beside the per-meeting ones, is counted once);
 * a recording's length is its UEM span when a *.uem under <path> names it,
 * else the end of its last segment.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  countRecording,
  emptyCounts,
  quantiles,
  summarize,
  type ConversationStatistics,
  type SpeechSegment,
} from '../simulator/dynamics/conversation-statistics.ts';
import { FlagError, readFlags, runCli } from './lib.ts';

const USAGE =
  'node bench/ami-statistics.ts --path <AMI-diarization-setup checkout> [--set only_words|word_and_vocalsounds] [--json <file>]';

/** The probabilities of the quantile tables the natural profile draws from (simulator/dynamics/profiles.ts). */
export const TABLE_PROBABILITIES = [0.02, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95, 0.98];

function filesUnder(dir: string, ending: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full, ending));
    else if (entry.name.endsWith(ending)) out.push(full);
  }
  return out.sort();
}

/** SPEAKER lines of the RTTMs, by recording; a recording already read from one file is not read again from another. */
function readRttms(files: readonly string[]): Map<string, SpeechSegment[]> {
  const recordings = new Map<string, SpeechSegment[]>();
  for (const file of files) {
    const here = new Map<string, SpeechSegment[]>();
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const f = line.trim().split(/\s+/);
        if (f[0] !== 'SPEAKER') return;
        const start = Number(f[3]);
        const duration = Number(f[4]);
        if (f.length < 8 || !Number.isFinite(start) || !Number.isFinite(duration))
          throw new FlagError(`${file}:${i + 1}: expected SPEAKER <file> <channel> <start> <duration> <NA> <NA> <speaker> ...`);
        const list = here.get(f[1]!) ?? [];
        list.push({ speaker: f[7]!, start, end: start + duration });
        here.set(f[1]!, list);
      });
    for (const [id, segments] of here) if (!recordings.has(id)) recordings.set(id, segments);
  }
  return recordings;
}

/** Recording → seconds, from UEM lines "<file> <channel> <start> <end>". */
function readUems(files: readonly string[]): Map<string, number> {
  const lengths = new Map<string, number>();
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4 || f[0]!.startsWith(';')) continue;
      const seconds = Number(f[3]) - Number(f[2]);
      if (Number.isFinite(seconds)) lengths.set(f[0]!, (lengths.get(f[0]!) ?? 0) + seconds);
    }
  }
  return lengths;
}

export interface AmiRecount {
  source: string;
  statistics: ConversationStatistics;
  tables: { probabilities: number[]; changeOffsets: number[]; samePauses: number[] };
  recordingsWithoutUem: number;
}

export function recountAmi(path: string, set: string): AmiRecount {
  let rttms: string[];
  try {
    rttms = filesUnder(join(path, set), '.rttm');
  } catch {
    throw new FlagError(`--path: no folder ${set}/ with RTTM files under "${path}"; use ${USAGE}`);
  }
  if (rttms.length === 0) throw new FlagError(`--path: no *.rttm under ${join(path, set)}`);
  const recordings = readRttms(rttms);
  const uems = readUems(filesUnder(path, '.uem'));
  const counts = emptyCounts();
  let withoutUem = 0;
  for (const [id, segments] of recordings) {
    const length = uems.get(id);
    if (length === undefined) withoutUem++;
    countRecording(counts, segments, length ?? Math.max(...segments.map((s) => s.end)));
  }
  const round2 = (values: number[]) => values.map((v) => Math.round(v * 100) / 100);
  return {
    source: `BUTSpeechFIT/AMI-diarization-setup ${set}/ RTTMs (${rttms.length} files, ${recordings.size} recordings)`,
    statistics: summarize(counts, recordings.size),
    tables: {
      probabilities: TABLE_PROBABILITIES,
      changeOffsets: round2(quantiles(counts.changeOffsets, TABLE_PROBABILITIES)),
      samePauses: round2(quantiles(counts.samePauses, TABLE_PROBABILITIES)),
    },
    recordingsWithoutUem: withoutUem,
  };
}

function main(): Promise<void> {
  const flags = readFlags(process.argv.slice(2), { path: { type: 'string' }, set: { type: 'string' }, json: { type: 'string' } }, USAGE);
  if (flags.path === undefined) throw new FlagError(`--path is required; use ${USAGE}`);
  const recount = recountAmi(flags.path, flags.set ?? 'only_words');
  const s = recount.statistics;
  const pct = (v: number) => `${(100 * v).toFixed(1)} %`;
  const q = (x: { q25: number; median: number; q75: number }) =>
    `${x.median.toFixed(2)} s (middle half ${x.q25.toFixed(2)} to ${x.q75.toFixed(2)} s)`;
  process.stdout.write(
    [
      recount.source,
      `recordings ${s.recordings}, ${s.hours.toFixed(1)} h (${recount.recordingsWithoutUem} without a UEM)`,
      `overlap share of speech time ${pct(s.overlapShare)}`,
      `silence share ${pct(s.silenceShare)}`,
      `changes of speaker ${s.changes}: ${pct(s.overlappingChanges)} overlap, ${pct(s.gapsOverOneSecond)} leave a gap over 1 s`,
      `floor-transfer offset median ${q(s.changeOffset)}`,
      `pause of one speaker median ${q(s.samePause)}`,
      `segments ending inside another speaker's ${pct(s.insideShare)}; segment length median ${q(s.segmentLength)}`,
      `quantiles at ${recount.tables.probabilities.join(', ')}:`,
      `  floor-transfer offsets ${recount.tables.changeOffsets.join(', ')}`,
      `  pauses of one speaker  ${recount.tables.samePauses.join(', ')}`,
      '',
    ].join('\n'),
  );
  if (flags.json !== undefined) writeFileSync(flags.json, `${JSON.stringify(recount, null, 2)}\n`);
  return Promise.resolve();
}

if (import.meta.main) await runCli(main);
