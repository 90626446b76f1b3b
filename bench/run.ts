/**
 * Runs the benchmarks and writes one report per benchmark,
 * reports/bench-<name>.json, plus the aggregate of the run: reports/bench.json
 * (every figure, every ratio with its baseline, every target) and a readable
 * reports/bench.md (reports/ is created when missing).
 *
 *   node bench/run.ts                   every benchmark (npm run bench)
 *   node bench/run.ts --only core       some of them (comma-separated)
 *   node bench/run.ts --tiny            a tiny run that only proves the machinery
 *   node bench/run.ts --out-dir DIR     write the reports somewhere else
 *   node bench/run.ts --only quality --scripts two-person-call --scenes clean,office [--voices espeak] [--long] [--cast-seeds 1,2,3]
 *                                       a part of the quality matrix (bench/quality.ts), once per casting seed if given
 *   node bench/run.ts --only pruning --settings grid [--scenes clean,office]   the recognizer's search settings on real speech (bench/pruning.ts)
 *   node bench/run.ts --only core --http-seconds 2   the core benchmark's throughput figures shortened (8 s each by default)
 *   node bench/run.ts --only front-end    the front end in place against on the workers (bench/front-end.ts)
 *   node bench/run.ts --only rtf --lengths 5,30,60 --scenes clean,office [--processes 1,2]   the transcript wait (opt-in)
 *   node bench/run.ts --only identification [--scenes clean,office]   speakers named across meetings (opt-in; detection too)
 *
 * `make bench` runs every benchmark: core, pipeline, webhooks, recording,
 * load (1,000 connections), sse-waits (10,000 waits), a 2.5-minute soak, and
 * slow-clients. A long soak written by `make soak` (reports/bench-soak-<N>min.json)
 * is included in bench.md as it is, with its charts.
 *
 * Charts: a module's charts(report) (bench/charts.ts) are written to
 * reports/charts/<benchmark>-<name>.svg and linked from bench.md; bench.html
 * is the same report with the charts inlined.
 *
 * A benchmark is a module exporting run(opts) and table(report), optionally
 * markdown(report) (BenchModule in lib.ts). Add one by adding a line to
 * BENCHMARKS. bench/recording.ts has its own shape (benchRecording); it is
 * wrapped here.
 *
 * A benchmark that throws is recorded as failed in the aggregate, the others
 * still run, and the process exits with 1.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { barChart, escapeXml } from './charts.ts';
import {
  FlagError,
  fmt,
  formatRows,
  machine,
  readFlags,
  round,
  runCli,
  type BenchModule,
  type BenchReport,
  type BenchRunOptions,
  type Chart,
  type Machine,
  type Target,
} from './lib.ts';

export const BENCHMARKS: Record<string, () => Promise<BenchModule>> = {
  core: () => import('./core.ts'),
  pipeline: () => import('./pipeline.ts'),
  webhooks: () => import('./webhooks.ts'),
  recording: loadRecording,
  load: () => import('./load.ts'),
  'sse-waits': () => import('./sse-waits.ts'),
  soak: () => import('./soak.ts'),
  'slow-clients': () => import('./slow-clients.ts'),
  quality: () => import('./quality.ts'),
  // The recognizer's search settings on real recorded speech: WER and CPU per audio second (decision 096).
  pruning: () => import('./pruning.ts'),
  // Needs QMSum (bench/qmsum.ts says where to get it); train and val splits, ROUGE beside LEAD (decision 079).
  'summary-quality': () => import('./summary-quality.ts'),
  // The speech-enhancement front end in place against on the worker threads, back to back (decision 102).
  'front-end': () => import('./front-end.ts'),
  // Upload end → job.completed on 5-, 30- and 60-minute meetings, one recognizer process against one per core (decision 094).
  rtf: () => import('./rtf.ts'),
  detection: () => import('./detection.ts'),
  identification: () => import('./identification.ts'),
};

export interface RunArgs {
  only: string[];
  tiny: boolean;
  outDir: string;
  /** Options of one benchmark, passed through (see BenchRunOptions.options). */
  options: Record<string, string>;
}

/** Options passed through to the benchmarks: value flags, and flags that take none. */
const PASS_THROUGH = [
  'scripts',
  'scenes',
  'voices',
  'enhancement',
  'speaker-voices',
  'dynamics',
  'cast-seeds',
  'http-seconds',
  'qmsum',
  'splits',
  'limit',
  'api',
  'transcripts',
  'lengths',
  'processes',
  'settings',
  'sets',
] as const;
const PASS_THROUGH_SWITCHES = ['long'];

/** The pass-through options as command-line flags again, for the reproduce lines. */
export function optionFlags(options: Record<string, string>): string[] {
  return Object.entries(options).flatMap(([k, v]) => (PASS_THROUGH_SWITCHES.includes(k) ? [`--${k}`] : [`--${k}`, v]));
}

const REPO = fileURLToPath(new URL('..', import.meta.url));
// Only when named in --only: summary-quality needs QMSum (half an hour); rtf and identification transcribe many meetings,
// their times meaningful only idle; detection idles ten minutes (`node bench/detection.ts --idle-minutes N`).
const OPT_IN = ['summary-quality', 'rtf', 'detection', 'identification'];
/** What `npm run bench` runs without --only. */
const DEFAULT_RUN = Object.keys(BENCHMARKS).filter((n) => !OPT_IN.includes(n));

export function parseArgs(argv: readonly string[]): RunArgs {
  const args: RunArgs = {
    only: Object.keys(BENCHMARKS).filter((n) => !OPT_IN.includes(n)),
    tiny: false,
    outDir: join(REPO, 'reports'),
    options: {},
  };
  const flags = readFlags(
    argv,
    {
      only: { type: 'string' },
      tiny: { type: 'boolean' },
      'out-dir': { type: 'string' },
      // Passed on to the quality benchmark (bench/quality.ts).
      scripts: { type: 'string' },
      scenes: { type: 'string' },
      voices: { type: 'string' },
      enhancement: { type: 'string' },
      'speaker-voices': { type: 'string' },
      dynamics: { type: 'string' },
      'cast-seeds': { type: 'string' },
      long: { type: 'boolean' },
      // Passed on to the core benchmark (bench/core.ts).
      'http-seconds': { type: 'string' },
      // Passed on to the summary-quality benchmark (bench/summary-quality.ts).
      qmsum: { type: 'string' },
      splits: { type: 'string' },
      limit: { type: 'string' },
      api: { type: 'string' },
      transcripts: { type: 'string' },
      // Passed on to the transcript-wait benchmark (bench/rtf.ts), with --scenes.
      lengths: { type: 'string' },
      processes: { type: 'string' },
      // Passed on to the pruning benchmark (bench/pruning.ts).
      settings: { type: 'string' },
      sets: { type: 'string' },
    },
    '--only <names>, --tiny, --out-dir <dir> (quality: --scripts, --scenes, --voices, --enhancement, --speaker-voices, --dynamics, --cast-seeds, --long; core: --http-seconds; ' +
      'summary-quality: --qmsum, --splits, --limit, --api, --transcripts; rtf: --lengths, --scenes, --processes; pruning: --settings, --scenes, --sets; identification: --scenes, --scripts)',
  );
  if (flags.only !== undefined)
    args.only = flags.only
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (flags.tiny === true) args.tiny = true;
  if (flags['out-dir'] !== undefined) {
    if (flags['out-dir'] === '') throw new FlagError('--out-dir needs a value');
    args.outDir = resolve(flags['out-dir']);
  }
  for (const name of PASS_THROUGH) {
    const v = flags[name];
    if (v === '') throw new FlagError(`--${name} needs a value`);
    if (v !== undefined) args.options[name] = v;
  }
  if (flags.long === true) args.options.long = 'true';
  const unknown = args.only.filter((n) => !Object.hasOwn(BENCHMARKS, n));
  if (unknown.length > 0) throw new Error(`no benchmark named ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
  return args;
}

/** The command that reproduces one benchmark of a run. */
export function commandFor(name: string, tiny: boolean): string {
  return `npm run bench -- --only ${name}${tiny ? ' --tiny' : ''}`;
}

// ── bench/recording.ts, wrapped ────────────────────────────────────────────

type BenchRecording = (opts: {
  minutes?: number;
  baselineSeconds?: number;
  log?: (line: string) => void;
}) => Promise<Record<string, unknown>>;

async function loadRecording(): Promise<BenchModule> {
  return recordingModule((await import('./recording.ts')).benchRecording);
}

/** Minutes recorded and seconds of the no-recording baseline, full and tiny. */
export const RECORDING_CONFIG = { full: { minutes: 1, baselineSeconds: 15 }, tiny: { minutes: 0.05, baselineSeconds: 1 } } as const;

export function recordingModule(benchRecording: BenchRecording): BenchModule {
  const flat = (report: BenchReport): [string, string][] =>
    Object.entries(report.benchmarks).flatMap(([group, value]) =>
      typeof value === 'object' && value !== null
        ? Object.entries(value as Record<string, unknown>)
            .filter(([, v]) => typeof v !== 'object' || v === null)
            .map(([k, v]): [string, string] => [`${group}.${k}`, v === null ? '–' : (v as string | number | boolean).toString()])
        : [[group, String(value)]],
    );
  return {
    async run(opts: BenchRunOptions): Promise<BenchReport> {
      const cfg = opts.tiny ? RECORDING_CONFIG.tiny : RECORDING_CONFIG.full;
      const raw = await benchRecording({ ...cfg, log: opts.log });
      const { generated_at, machine: m, config, ...figures } = raw;
      return {
        generated_at: typeof generated_at === 'string' ? generated_at : new Date().toISOString(),
        machine: (m as Machine | undefined) ?? machine(),
        config: { ...(config as Record<string, unknown> | undefined), tiny: opts.tiny },
        benchmarks: figures,
        ratios: {},
        targets: {},
      };
    },
    table: (report) => formatRows([['figure', 'value'], ...flat(report)]),
    markdown: (report) => ['| figure | value |', '|---|---:|', ...flat(report).map(([k, v]) => `| ${k} | ${v} |`)].join('\n'),
  };
}

// ── The aggregate ──────────────────────────────────────────────────────────

/** Baselines of ratios whose names do not say it (the core benchmark's). */
const KNOWN_BASELINES: Record<string, Record<string, string>> = {
  core: {
    search_p99_growth: 'search p99 over the small store (search_small)',
  },
};

export function baselineOf(benchmark: string, name: string, report: BenchReport): string {
  const given = report.baselines?.[name] ?? KNOWN_BASELINES[benchmark]?.[name];
  if (given !== undefined) return given;
  const vs = name.indexOf('_vs_');
  return vs >= 0 ? name.slice(vs + 4) : 'not stated';
}

export interface PartResult {
  seconds: number;
  ok: boolean;
  report_file: string | null;
  error?: string;
  /** The command that reproduces this part, when it is not `npm run bench -- --only <name>` (a long soak from `make soak`). */
  command?: string;
}

export interface Aggregate {
  generated_at: string;
  machine: Machine;
  command: string;
  tiny: boolean;
  total_seconds: number;
  parts: Record<string, PartResult>;
  figures: Record<string, Record<string, unknown>>;
  ratios: { benchmark: string; name: string; value: number | null; baseline: string }[];
  targets: ({ benchmark: string; name: string } & Target)[];
}

export function aggregate(
  args: RunArgs,
  parts: Record<string, PartResult>,
  reports: Record<string, BenchReport>,
  totalSeconds: number,
): Aggregate {
  const all = args.only.join(',') === DEFAULT_RUN.join(',');
  const flags = [...(all ? [] : ['--only', args.only.join(',')]), ...(args.tiny ? ['--tiny'] : []), ...optionFlags(args.options)];
  const command = flags.length === 0 ? 'npm run bench' : `npm run bench -- ${flags.join(' ')}`;
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    command,
    tiny: args.tiny,
    total_seconds: round(totalSeconds, 1),
    parts,
    figures: Object.fromEntries(Object.entries(reports).map(([name, r]) => [name, { config: r.config, ...r.benchmarks }])),
    ratios: Object.entries(reports).flatMap(([benchmark, r]) =>
      Object.entries(r.ratios).map(([name, value]) => ({ benchmark, name, value, baseline: baselineOf(benchmark, name, r) })),
    ),
    targets: Object.entries(reports).flatMap(([benchmark, r]) => Object.entries(r.targets).map(([name, t]) => ({ benchmark, name, ...t }))),
  };
}

/** A text table without its ratio and target lines, which bench.md shows as tables of their own. */
function textFigures(table: string): string {
  return table
    .split('\n')
    .filter((line) => !/^target /.test(line) && !/^[\w.-]+: \S+$/.test(line))
    .join('\n')
    .trimEnd();
}

/** What reproduces a part of the report. */
function reproduce(name: string, p: PartResult, tiny: boolean): string {
  return p.command ?? commandFor(name, tiny);
}

/** A chart written next to the report: its path relative to bench.md. */
export interface ChartFile {
  file: string;
  title: string;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function duration(seconds: number): string {
  return seconds >= 90 ? `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s` : `${fmt(seconds, 1)} s`;
}

export function renderMarkdown(
  agg: Aggregate,
  reports: Record<string, BenchReport>,
  modules: Record<string, BenchModule>,
  charts: Record<string, ChartFile[]> = {},
): string {
  const m = agg.machine;
  const out: string[] = [
    '# Benchmarks',
    '',
    `Reproduce the whole report with \`make bench\` (\`npm run bench\`). This one was generated ${agg.generated_at} by \`${agg.command}\` in ${duration(agg.total_seconds)}${agg.tiny ? ' (tiny run: proves the machinery; the figures mean nothing)' : ''}.`,
    `Machine: ${m.cpus} cores (${m.cpu_model}), ${m.total_mem_mb} MB, Node ${m.node}, ${m.platform}/${m.arch}. ` +
      'Every ratio is against a baseline measured in the same run; targets are reported, never asserted.',
    '',
    '| benchmark | took | targets met | report | reproduce |',
    '|---|---:|---:|---|---|',
  ];
  for (const [name, p] of Object.entries(agg.parts)) {
    const ts = agg.targets.filter((t) => t.benchmark === name);
    const met = p.ok ? `${ts.filter((t) => t.met).length} of ${ts.length}` : `failed: ${cell(p.error ?? '')}`;
    out.push(`| ${name} | ${duration(p.seconds)} | ${met} | ${p.report_file ?? '–'} | \`${reproduce(name, p, agg.tiny)}\` |`);
  }
  for (const c of charts[OVERVIEW] ?? []) out.push('', `![${c.title}](${c.file})`);
  if (agg.targets.length > 0) {
    out.push('', '## Targets', '', '| benchmark | target | rule | value | met |', '|---|---|---|---:|---|');
    for (const t of agg.targets)
      out.push(`| ${t.benchmark} | ${t.name} | ${cell(t.target)} | ${fmt(t.value, 3)} | ${t.met ? 'yes' : '**no**'} |`);
  }
  for (const [name, p] of Object.entries(agg.parts)) {
    out.push('', `## ${name}`, '', `Reproduce: \`${reproduce(name, p, agg.tiny)}\` (took ${duration(p.seconds)}).`, '');
    const report = reports[name];
    if (report === undefined) {
      out.push(`**Failed:** ${p.error ?? 'no report'}`);
      continue;
    }
    const mod = modules[name];
    out.push('### Figures', '');
    if (mod?.markdown !== undefined) out.push(mod.markdown(report));
    else if (mod !== undefined) out.push('```', textFigures(mod.table(report)), '```');
    const files = charts[name] ?? [];
    if (files.length > 0) {
      out.push('', '### Charts', '');
      for (const c of files) out.push(`![${c.title}](${c.file})`, '');
    }
    const ratios = agg.ratios.filter((r) => r.benchmark === name);
    if (ratios.length > 0) {
      out.push('', '### Ratios', '', '| ratio | value | baseline |', '|---|---:|---|');
      for (const r of ratios) out.push(`| ${r.name} | ${fmt(r.value, 3)} | ${cell(r.baseline)} |`);
    }
    const targets = agg.targets.filter((t) => t.benchmark === name);
    if (targets.length > 0) {
      out.push('', '### Targets', '', '| target | rule | value | met |', '|---|---|---:|---|');
      for (const t of targets) out.push(`| ${t.name} | ${cell(t.target)} | ${fmt(t.value, 3)} | ${t.met ? 'yes' : '**no**'} |`);
    }
  }
  return `${out.join('\n')}\n`;
}

// ── Charts, the long soak, bench.html ──────────────────────────────────────

/** The key of the report-wide charts (drawn from every ratio), shown under the summary table. */
export const OVERVIEW = '_overview';

/** The overview chart: every ratio of the run against its baseline (1 = as fast, as big, … as the baseline). */
export function overviewChart(agg: Aggregate): Chart | null {
  const rs = agg.ratios.filter((r) => r.value !== null && Number.isFinite(r.value));
  if (rs.length === 0) return null;
  return {
    name: 'ratios',
    title: 'Every ratio against its baseline, same run (see each section for what the baseline is)',
    svg: barChart({
      title: 'Ratios against baselines measured in the same run',
      yLabel: 'ratio (figure / baseline)',
      categories: rs.map((r) => `${r.benchmark}: ${r.name}`.replace(/_vs_/g, ' / ').replace(/_/g, ' ')),
      series: [{ name: 'ratio', values: rs.map((r) => r.value) }],
      width: Math.max(720, rs.length * 70),
      height: 380,
    }),
  };
}

/** Writes the charts of every report (and the overview) to <outDir>/charts/ and returns the files per part. */
export function writeCharts(
  outDir: string,
  agg: Aggregate,
  reports: Record<string, BenchReport>,
  modules: Record<string, BenchModule>,
): Record<string, ChartFile[]> {
  const dir = join(outDir, 'charts');
  mkdirSync(dir, { recursive: true });
  const files: Record<string, ChartFile[]> = {};
  const put = (part: string, prefix: string, c: Chart): void => {
    const file = `charts/${prefix}-${c.name}.svg`;
    writeFileSync(join(outDir, file), c.svg);
    (files[part] ??= []).push({ file, title: c.title });
  };
  const overview = overviewChart(agg);
  if (overview !== null) put(OVERVIEW, 'overview', overview);
  for (const [name, report] of Object.entries(reports)) {
    let list: Chart[] = [];
    try {
      list = modules[name]?.charts?.(report) ?? [];
    } catch (err) {
      console.error(`charts of ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (const c of list) put(name, name, c);
  }
  return files;
}

/**
 * The longest soak report `make soak` left in the reports folder
 * (bench-soak-<N>min.json), to show next to the short one of this run.
 */
export function findLongSoak(outDir: string): { name: string; file: string; minutes: number } | null {
  let best: { name: string; file: string; minutes: number } | null = null;
  let entries: string[];
  try {
    entries = readdirSync(outDir);
  } catch {
    return null;
  }
  for (const f of entries) {
    const m = /^bench-soak-(\d+(?:_\d+)?)min\.json$/.exec(f);
    if (m === null) continue;
    const minutes = Number(m[1]!.replace('_', '.'));
    if (best === null || minutes > best.minutes) best = { name: `soak-${m[1]!}min`, file: f, minutes };
  }
  return best;
}

/** bench.md as a standalone HTML page with the charts inlined (for a browser, or an attachment). */
export function renderHtml(markdown: string, outDir: string): string {
  const inline = (text: string): string =>
    escapeXml(text)
      .replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  const body: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const image = /^!\[(.*)\]\((charts\/[\w.-]+\.svg)\)$/.exec(line);
    if (image !== null) {
      let svg: string;
      try {
        svg = readFileSync(join(outDir, image[2]!), 'utf8');
      } catch {
        svg = `<p>(missing chart ${escapeXml(image[2]!)})</p>`;
      }
      body.push(`<figure>${svg}<figcaption>${inline(image[1]!)}</figcaption></figure>`);
    } else if (line.startsWith('```')) {
      const block: string[] = [];
      while (++i < lines.length && !lines[i]!.startsWith('```')) block.push(lines[i]!);
      body.push(`<pre>${escapeXml(block.join('\n'))}</pre>`);
    } else if (line.startsWith('|')) {
      const rows: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(lines[i]!);
      i--;
      const cells = (r: string): string[] =>
        r
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => c.trim().replace(/\\\|/g, '|'));
      const head = cells(rows[0]!);
      body.push(
        `<table><thead><tr>${head.map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>` +
          rows
            .slice(2)
            .map(
              (r) =>
                `<tr>${cells(r)
                  .map((c) => `<td>${inline(c)}</td>`)
                  .join('')}</tr>`,
            )
            .join('') +
          '</tbody></table>',
      );
    } else if (/^#{1,3} /.test(line)) {
      const level = line.indexOf(' ');
      body.push(`<h${level}>${inline(line.slice(level + 1))}</h${level}>`);
    } else if (line.startsWith('- ')) body.push(`<li>${inline(line.slice(2))}</li>`);
    else if (line.trim() !== '') body.push(`<p>${inline(line)}</p>`);
  }
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Benchmarks</title>',
    '<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 ' +
      '1em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px ' +
      '8px;text-align:left}pre{background:#f6f6f6;padding:8px;overflow:auto}figure{margin:1em ' +
      '0}svg{max-width:100%;height:auto}</style>',
    '</head><body>',
    ...body,
    '</body></html>',
    '',
  ].join('\n');
}

// ── Main ───────────────────────────────────────────────────────────────────

export async function main(argv: readonly string[]): Promise<{ reports: Record<string, BenchReport>; aggregate: Aggregate }> {
  const args = parseArgs(argv);
  mkdirSync(args.outDir, { recursive: true });
  const reports: Record<string, BenchReport> = {};
  const modules: Record<string, BenchModule> = {};
  const parts: Record<string, PartResult> = {};
  const runStarted = Date.now();
  for (const name of args.only) {
    const started = Date.now();
    try {
      const mod = await BENCHMARKS[name]!();
      modules[name] = mod;
      const report = await mod.run({ tiny: args.tiny, log: (line) => process.stderr.write(`${line}\n`), options: args.options });
      const file = join(args.outDir, `bench-${name}.json`);
      writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
      if (mod.reportMarkdown !== undefined) writeFileSync(join(args.outDir, `bench-${name}.md`), mod.reportMarkdown(report));
      reports[name] = report;
      const options = optionFlags(args.options);
      parts[name] = {
        seconds: round((Date.now() - started) / 1000, 1),
        ok: true,
        report_file: `bench-${name}.json`,
        ...(options.length > 0 ? { command: `${commandFor(name, args.tiny)} ${options.join(' ')}` } : {}),
      };
      console.log(`\n== bench ${name} (${((Date.now() - started) / 1000).toFixed(1)} s) → ${file}`);
      console.log(
        `machine: ${report.machine.cpus} × ${report.machine.cpu_model}, node ${report.machine.node}, ${report.machine.platform}/${report.machine.arch}`,
      );
      console.log(mod.table(report));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      parts[name] = { seconds: round((Date.now() - started) / 1000, 1), ok: false, report_file: null, error: message };
      console.error(
        `\n== bench ${name} FAILED after ${((Date.now() - started) / 1000).toFixed(1)} s: ${err instanceof Error ? (err.stack ?? message) : message}`,
      );
    }
  }
  // A long soak from `make soak` is shown as it is (not re-run), after this run's parts.
  const longSoak = args.tiny || !args.only.includes('soak') ? null : findLongSoak(args.outDir);
  if (longSoak !== null) {
    try {
      const report = JSON.parse(readFileSync(join(args.outDir, longSoak.file), 'utf8')) as BenchReport;
      const soak = await BENCHMARKS['soak']!();
      reports[longSoak.name] = report;
      modules[longSoak.name] = soak;
      const seconds = Number((report.benchmarks['soak'] as { duration_s?: unknown } | undefined)?.duration_s ?? 0);
      parts[longSoak.name] = {
        seconds,
        ok: true,
        report_file: longSoak.file,
        command: `node bench/soak.ts --minutes ${longSoak.minutes} (make soak: 20 minutes; written ${report.generated_at})`,
      };
    } catch (err) {
      parts[longSoak.name] = {
        seconds: 0,
        ok: false,
        report_file: longSoak.file,
        error: `cannot read ${longSoak.file}: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  }
  const agg = aggregate(args, parts, reports, (Date.now() - runStarted) / 1000);
  const charts = writeCharts(args.outDir, agg, reports, modules);
  const md = renderMarkdown(agg, reports, modules, charts);
  writeFileSync(join(args.outDir, 'bench.json'), `${JSON.stringify({ ...agg, charts }, null, 2)}\n`);
  writeFileSync(join(args.outDir, 'bench.md'), md);
  writeFileSync(join(args.outDir, 'bench.html'), renderHtml(md, args.outDir));
  console.log(
    `\n== ${Object.keys(parts).length} benchmark(s) in ${duration(agg.total_seconds)}: ${Object.entries(parts)
      .map(([n, p]) => `${n} ${duration(p.seconds)}${p.ok ? '' : ' FAILED'}`)
      .join(', ')}`,
  );
  console.log(
    `→ ${join(args.outDir, 'bench.json')}, ${join(args.outDir, 'bench.md')}, ${join(args.outDir, 'bench.html')}, charts in ${join(args.outDir, 'charts')}`,
  );
  return { reports, aggregate: agg };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runCli(async () => {
    const { aggregate: agg } = await main(process.argv.slice(2));
    return Object.values(agg.parts).some((p) => !p.ok) ? 1 : 0;
  });
}
