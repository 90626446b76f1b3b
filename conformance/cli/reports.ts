/**
 * The reports a run or a merge writes (--json, --junit, --html, --md) and the
 * merge subcommand, which joins the JSON reports of shards into one.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadClauses } from '../catalog.ts';
import { UsageError, invocation } from '../gate.ts';
import { htmlReport } from '../reporters/html.ts';
import { junitReport } from '../reporters/junit.ts';
import { readJsonReport, writeJsonReport } from '../reporters/json.ts';
import { markdownReport } from '../reporters/markdown.ts';
import { mergeReports } from '../runner/merge.ts';
import type { RunReport } from '../runner/result.ts';
import { clauseRows, coverage, isFailing } from '../runner/result.ts';
import { EXIT } from './exit-codes.ts';

export function writeReports(report: RunReport, values: { json?: string; junit?: string; html?: string; md?: string }): string[] {
  const catalog = loadClauses();
  const files: string[] = [];
  const write = (file: string, text: string): void => {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    writeFileSync(file, text);
    files.push(file);
  };
  if (values.json !== undefined) {
    writeJsonReport(values.json, report, catalog);
    files.push(join(values.json, 'index.json'));
  }
  if (values.junit !== undefined) write(values.junit, junitReport(report, catalog));
  if (values.html !== undefined) write(values.html, htmlReport(report, catalog));
  if (values.md !== undefined) write(values.md, markdownReport(report, catalog));
  return files;
}

export async function merge(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      json: { type: 'string' },
      junit: { type: 'string' },
      html: { type: 'string' },
      md: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(`Usage: ${invocation()} merge DIR... [--json DIR] [--junit FILE] [--html FILE] [--md FILE]\n`);
    return EXIT.conformant;
  }
  if (positionals.length === 0) throw new UsageError('merge needs at least one report folder (written with --json)');
  if (values.json === undefined && values.junit === undefined && values.html === undefined && values.md === undefined) {
    throw new UsageError('merge needs an output: --json DIR, --junit FILE, --html FILE or --md FILE');
  }
  const merged = mergeReports(positionals.map((d) => readJsonReport(d)));
  const files = writeReports(merged, values);
  const rows = clauseRows(loadClauses(), merged);
  const cov = coverage(rows);
  const failed = merged.results.filter((r) => isFailing(r.outcome)).length;
  process.stdout.write(
    `Merged ${positionals.length} reports: ${merged.results.length} checks, ${failed} failed or errored; clauses ${cov.covered}/${cov.checkable} covered, ${cov.exercised} exercised.\n`,
  );
  for (const f of files) process.stdout.write(`Report: ${f}\n`);
  return failed > 0 ? EXIT.broken : EXIT.conformant;
}
