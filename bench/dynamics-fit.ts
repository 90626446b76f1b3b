/**
 * How close the natural dynamics come to real meetings: renders scripted
 * meetings of fixtures/meetings/ and the vendored QMSum excerpt with the
 * natural profile (several seeds each) and with tidy, computes the timing
 * statistics of their truth with the module AMI's RTTMs are counted with
 * (simulator/dynamics/conversation-statistics.ts), and writes a table,
 * statistic by statistic, rendered against AMI (decisions 109 and 110):
 *
 *   node bench/dynamics-fit.ts [--scripts a,b] [--seeds 1,2,3] [--ami-path <AMI-diarization-setup checkout>]
 *     → reports/dynamics-fit.json and reports/dynamics-fit.md
 *
 * With --ami-path the AMI column is recounted in the same run (bench/ami-statistics.ts);
 * without it, the recount of decision 109 stands in. Renders use the
 * simulator's voice cache; audio goes to a temporary folder and is removed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { countRecording, emptyCounts, summarize, type ConversationStatistics } from '../simulator/dynamics/conversation-statistics.ts';
import { isBackchannelText, sentenceCount } from '../simulator/dynamics/plan.ts';
import { renderQmsum } from '../simulator/qmsum/render-qmsum.ts';
import { loadQmsumMeeting } from '../simulator/qmsum/qmsum-source.ts';
import { REPO_ROOT, loadScript } from '../simulator/scripts/load-script.ts';
import type { DynamicsProfileName } from '../simulator/scripts/meeting-script.ts';
import { renderScript, type MeetingTruth } from '../simulator/synth/render-script.ts';
import { recountAmi } from './ami-statistics.ts';
import { FlagError, formatRows, readFlags, runCli } from './lib.ts';

const USAGE = 'node bench/dynamics-fit.ts [--scripts a,b] [--seeds 1,2,3] [--ami-path <AMI-diarization-setup checkout>] [--out <dir>]';

const DEFAULT_SCRIPTS = ['two-person-call', 'three-person-design-review', 'four-person-standup', 'six-person-incident-review'];
const QMSUM_EXCERPT = path.join(REPO_ROOT, 'fixtures', 'qmsum', 'val', 'ES2006a-excerpt.json');

/** Decision 109's recount of AMI (bench/ami-statistics.ts, only_words), when no checkout is given. */
const AMI_RECOUNT: ConversationStatistics = {
  recordings: 170,
  hours: 99.4,
  overlapShare: 0.1357,
  silenceShare: 0.1859,
  changes: 42041,
  overlappingChanges: 0.439,
  gapsOverOneSecond: 0.183,
  changeOffset: { q25: -0.59, median: 0.13, q75: 0.73 },
  samePause: { q25: 1.22, median: 1.63, q75: 2.51 },
  insideShare: 0.363,
  segmentLength: { q25: 0.47, median: 1.51, q75: 4.5 },
};

/** What the script-level shares are compared with: ICSI's backchannels per dialogue act, AMI's "um"/"uh" per word (decision 109). */
const REAL_BACKCHANNEL_ACT_SHARE = 1 / 7;
const REAL_HESITATION_WORD_SHARE = 0.043;

interface Column {
  name: string;
  statistics: ConversationStatistics;
  backchannelActShare: number | null;
  hesitationWordShare: number | null;
}

interface Tally {
  counts: ReturnType<typeof emptyCounts>;
  recordings: number;
  acts: number;
  backchannels: number;
  words: number;
  hesitations: number;
}

function tally(): Tally {
  return { counts: emptyCounts(), recordings: 0, acts: 0, backchannels: 0, words: 0, hesitations: 0 };
}

function add(t: Tally, truth: MeetingTruth): void {
  countRecording(t.counts, truth.words, truth.duration);
  t.recordings++;
  for (const line of truth.lines) {
    if (line.inserted === 'backchannel' || isBackchannelText(line.text)) t.backchannels++;
    else if (line.inserted === undefined) t.acts += sentenceCount(line.text);
  }
  t.words += truth.words.length;
  t.hesitations += truth.words.filter((w) => /^(um|uh)$/i.test(w.text)).length;
}

function column(name: string, t: Tally): Column {
  return {
    name,
    statistics: summarize(t.counts, t.recordings),
    backchannelActShare: t.backchannels / (t.acts + t.backchannels),
    hesitationWordShare: t.hesitations / t.words,
  };
}

function table(columns: readonly Column[]): string[][] {
  const pct = (v: number | null) => (v === null ? '–' : `${(100 * v).toFixed(1)} %`);
  const sec = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(2)} s`;
  const rows: [string, (c: Column) => string][] = [
    ['recordings (hours)', (c) => `${c.statistics.recordings} (${c.statistics.hours.toFixed(2)} h)`],
    ['overlap share of speech time', (c) => pct(c.statistics.overlapShare)],
    ['silence share', (c) => pct(c.statistics.silenceShare)],
    ['changes of speaker', (c) => String(c.statistics.changes)],
    ['changes that overlap', (c) => pct(c.statistics.overlappingChanges)],
    ['changes with a gap over 1 s', (c) => pct(c.statistics.gapsOverOneSecond)],
    ['floor-transfer offset, median', (c) => sec(c.statistics.changeOffset.median)],
    ['floor-transfer offset, middle half', (c) => `${sec(c.statistics.changeOffset.q25)} to ${sec(c.statistics.changeOffset.q75)}`],
    ['pause of one speaker, median', (c) => sec(c.statistics.samePause.median)],
    ['segments inside another speaker', (c) => pct(c.statistics.insideShare)],
    ['segment length, median', (c) => `${c.statistics.segmentLength.median.toFixed(2)} s`],
    [
      'segment length, middle half',
      (c) => `${c.statistics.segmentLength.q25.toFixed(2)} to ${c.statistics.segmentLength.q75.toFixed(2)} s`,
    ],
    ['backchannels per dialogue act', (c) => pct(c.backchannelActShare)],
    ['"um"/"uh" per word', (c) => pct(c.hesitationWordShare)],
  ];
  return [['statistic', ...columns.map((c) => c.name)], ...rows.map(([label, f]) => [label, ...columns.map(f)])];
}

async function render(work: string, what: string, dynamics: DynamicsProfileName, seed: number): Promise<MeetingTruth> {
  const wav = path.join(work, `${path.basename(what, '.json')}.${dynamics}.${seed}.wav`);
  const options = { dynamics, scene: 'clean', seed, concurrency: 1 } as const;
  if (what === QMSUM_EXCERPT) return (await renderQmsum(await loadQmsumMeeting(what), wav, options)).truth;
  return (await renderScript(await loadScript(what), wav, options)).truth;
}

async function main(): Promise<void> {
  const flags = readFlags(
    process.argv.slice(2),
    { scripts: { type: 'string' }, seeds: { type: 'string' }, 'ami-path': { type: 'string' }, out: { type: 'string' } },
    USAGE,
  );
  const scripts = flags.scripts?.split(',').filter((s) => s !== '') ?? DEFAULT_SCRIPTS;
  const seeds = (flags.seeds ?? '1,2,3').split(',').map(Number);
  if (seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new FlagError(`--seeds expects integers, got "${flags.seeds}"; use ${USAGE}`);
  const ami = flags['ami-path'] === undefined ? AMI_RECOUNT : recountAmi(flags['ami-path'], 'only_words').statistics;
  const amiColumn: Column = {
    name: 'AMI (ICSI for backchannels)',
    statistics: ami,
    backchannelActShare: REAL_BACKCHANNEL_ACT_SHARE,
    hesitationWordShare: REAL_HESITATION_WORD_SHARE,
  };
  const work = mkdtempSync(path.join(tmpdir(), 'dynamics-fit-'));
  const natural = { scripts: tally(), qmsum: tally() };
  const tidy = { scripts: tally(), qmsum: tally() };
  try {
    for (const what of [...scripts, QMSUM_EXCERPT]) {
      const into = what === QMSUM_EXCERPT ? 'qmsum' : 'scripts';
      add(tidy[into], await render(work, what, 'tidy', 1));
      for (const seed of seeds) {
        add(natural[into], await render(work, what, 'natural', seed));
        process.stderr.write(`rendered ${path.basename(what, '.json')} natural seed ${seed}\n`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const columns = [
    column(`natural: ${scripts.length} scripts × ${seeds.length} seeds`, natural.scripts),
    column(`natural: QMSum ES2006a excerpt × ${seeds.length} seeds`, natural.qmsum),
    column('tidy: the same scripts', tidy.scripts),
    amiColumn,
  ];
  const rows = table(columns);
  const out = flags.out ?? path.join(REPO_ROOT, 'reports');
  mkdirSync(out, { recursive: true });
  const command = `node bench/dynamics-fit.ts ${process.argv.slice(2).join(' ')}`.trim();
  writeFileSync(path.join(out, 'dynamics-fit.json'), `${JSON.stringify({ command, scripts, seeds, columns }, null, 2)}\n`);
  const markdown = [
    `| ${rows[0]!.join(' | ')} |`,
    `|${rows[0]!.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.slice(1).map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
  writeFileSync(path.join(out, 'dynamics-fit.md'), `# Conversation dynamics against AMI\n\n${command}\n\n${markdown}\n`);
  process.stdout.write(`${formatRows(rows)}\n`);
}

if (import.meta.main) await runCli(main);
