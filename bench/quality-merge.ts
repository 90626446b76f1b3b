/**
 * Joins quality-benchmark reports run in chunks (each `npm run bench -- --only
 * quality … --out-dir DIR`) into one: reports/bench-quality.json, and
 * bench.json, bench.md, bench.html and the charts beside it, as one run of
 * the whole matrix would write them. A cell run twice keeps its later run.
 * The commands of the chunks are listed, so every cell can be re-run.
 *
 * A chunk stopped before its end wrote no report; its log (the run's stderr)
 * still has one line per finished cell, and a `.log` file given here is read
 * for those lines: such cells carry every figure of the line (not the key
 * points' ROUGE-1 recall, which the line does not show).
 *
 *   node bench/quality-merge.ts --out-dir reports DIR1/bench-quality.json chunk2.log … [--command "…"]…
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as quality from './quality.ts';
import { markTargets, type Cell } from './quality.ts';
import { machine, round, runCli, type BenchReport, type Target } from './lib.ts';
import { aggregate, renderHtml, renderMarkdown, writeCharts } from './run.ts';

const LOG_LINE =
  /^quality (\S+) \/ (\S+) \/ (\S+) \/ front end (\S+): WER ([\d.]+) → ([\d.]+) with bias, attribution ([\d.]+|–), DER ([\d.]+), speakers (\d+)\/(\d+), key points (\d+)\/(\d+), RTF ([\d.]+) \(front end ([\d.]+)\)(?:, stock whole-file WER ([\d.]+|–))?$/;

/** The cells of a quality run's log (its finished cells' lines). */
export function cellsFromLog(text: string): Cell[] {
  const cells: Cell[] = [];
  for (const line of text.split('\n')) {
    const m = LOG_LINE.exec(line.trim());
    if (m === null) continue;
    const n = (i: number) => Number(m[i]);
    const found = n(9);
    const total = n(12);
    cells.push(
      markTargets({
        script: m[1]!,
        speakers: n(10),
        voice_set: m[2]!,
        scene: m[3]!,
        enhancement: m[4]!,
        audio_seconds: null,
        error: null,
        targets: {},
        key_points: [],
        wer_no_bias: n(5),
        wer_bias: n(6),
        wer_stock: m[15] === undefined || m[15] === '–' ? null : n(15),
        attribution: m[7] === '–' ? null : n(7),
        der: n(8),
        speaker_count_error: found - n(10),
        speakers_found: found,
        key_point_recall: null,
        key_points_found: total === 0 ? null : round(n(11) / total, 4),
        rtf: n(13),
        front_end_rtf: n(14),
      }),
    );
  }
  return cells;
}

export function mergeQualityReports(reports: readonly BenchReport[]): BenchReport {
  const cells = new Map<string, Cell>();
  for (const r of reports)
    for (const c of (r.benchmarks['cells'] as Cell[] | undefined) ?? [])
      cells.set(`${c.script}/${c.voice_set}/${c.scene}/${c.enhancement}`, c);
  const all = [...cells.values()];
  const targets: Record<string, Target> = {};
  for (const c of all)
    for (const [k, t] of Object.entries(c.targets)) targets[`${c.script}/${c.voice_set}/${c.scene}/${c.enhancement}: ${k}`] = t;
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {
      chunks: reports.map((r) => ({ generated_at: r.generated_at, ...r.config })),
      wall_seconds: round(
        reports.reduce((s, r) => s + Number(r.config['wall_seconds'] ?? 0), 0),
        1,
      ),
    },
    benchmarks: { cells: all },
    ratios: {},
    targets,
  };
}

function main(): void {
  const { values, positionals } = parseArgs({
    options: { 'out-dir': { type: 'string' }, command: { type: 'string', multiple: true } },
    // The chunks are positional (readFlags takes none); runCli still turns a mistyped flag into one line.
    allowPositionals: true,
  });
  const outDir = resolve(values['out-dir'] ?? 'reports');
  const chunks = positionals.map((file): BenchReport => {
    const text = readFileSync(file, 'utf8');
    if (!file.endsWith('.log')) return JSON.parse(text) as BenchReport;
    return {
      generated_at: statSync(file).mtime.toISOString(),
      machine: machine(),
      config: { from_log: file },
      benchmarks: { cells: cellsFromLog(text) },
      ratios: {},
      targets: {},
    };
  });
  const merged = mergeQualityReports(chunks);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'bench-quality.json'), `${JSON.stringify(merged, null, 2)}\n`);
  const commands = values.command ?? [];
  const seconds = Number(merged.config['wall_seconds'] ?? 0);
  const parts = {
    quality: {
      seconds,
      ok: true,
      report_file: 'bench-quality.json',
      command: commands.length > 0 ? commands.join(' ; ') : 'npm run bench -- --only quality',
    },
  };
  const agg = aggregate({ only: ['quality'], tiny: false, outDir, options: {} }, parts, { quality: merged }, seconds);
  const modules = { quality: { run: quality.run, table: quality.table, markdown: quality.markdown, charts: quality.charts } };
  const charts = writeCharts(outDir, agg, { quality: merged }, modules);
  const md = renderMarkdown(agg, { quality: merged }, modules, charts);
  writeFileSync(join(outDir, 'bench.json'), `${JSON.stringify({ ...agg, charts }, null, 2)}\n`);
  writeFileSync(join(outDir, 'bench.md'), md);
  writeFileSync(join(outDir, 'bench.html'), renderHtml(md, outDir));
  console.log(
    `${(merged.benchmarks['cells'] as Cell[]).length} cells from ${positionals.length} chunk(s) → ${outDir} (${statSync(join(outDir, 'bench-quality.json')).size} bytes)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runCli(() => Promise.resolve().then(main));
