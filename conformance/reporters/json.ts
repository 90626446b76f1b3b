/**
 * JSON report, Autobahn-style: DIR/index.json (the run, counts, coverage,
 * one line per check and per clause) plus DIR/checks/<area>/<behaviour>.json
 * per check holding the full exchange (requests, responses, SSE frames,
 * deliveries), failures and property seeds. A detail file is also what
 * --replay reads.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Clause } from '../catalog.ts';
import type { CheckResult, ClauseRow, Coverage, Outcome, RunMeta, RunReport } from '../runner/result.ts';
import { clauseRows, countOutcomes, coverage, isFailing } from '../runner/result.ts';

const REPORT_FORMAT = 'mas-conformance-report/1';

export interface IndexEntry {
  id: string;
  area: string;
  clauses: string[];
  level: CheckResult['level'];
  outcome: Outcome;
  durationMs: number;
  failures: number;
  detail: string;
  skipReason?: string;
  error?: string;
  firstFailure?: { clause: string; expected: string[]; actual: string };
}

export interface IndexFile {
  format: string;
  meta: RunMeta;
  summary: { total: number; outcomes: Record<Outcome, number>; failed: boolean };
  coverage: Coverage;
  checks: IndexEntry[];
  clauses: ClauseRow[];
  suite: RunReport['suite'];
}

export interface DetailFile extends CheckResult {
  format: string;
  run: { seed: number; baseUrl: string; startedAt: string };
}

export function detailPath(id: string): string {
  return `checks/${id}.json`;
}

function buildIndex(report: RunReport, catalog: readonly Clause[]): IndexFile {
  const rows = clauseRows(catalog, report);
  const outcomes = countOutcomes(report.results);
  return {
    format: REPORT_FORMAT,
    meta: report.meta,
    summary: { total: report.results.length, outcomes, failed: report.results.some((r) => isFailing(r.outcome)) },
    coverage: coverage(rows),
    checks: report.results.map((r) => {
      const f = r.failures[0];
      return {
        id: r.id,
        area: r.area,
        clauses: r.clauses,
        level: r.level,
        outcome: r.outcome,
        durationMs: r.durationMs,
        failures: r.failures.length,
        detail: detailPath(r.id),
        ...(r.skipReason === undefined ? {} : { skipReason: r.skipReason }),
        ...(r.error === undefined ? {} : { error: r.error.message }),
        ...(f === undefined ? {} : { firstFailure: { clause: f.clause, expected: f.expected, actual: f.actual } }),
      };
    }),
    clauses: rows,
    suite: report.suite,
  };
}

export function writeJsonReport(dir: string, report: RunReport, catalog: readonly Clause[]): IndexFile {
  const index = buildIndex(report, catalog);
  mkdirSync(dir, { recursive: true });
  for (const r of report.results) {
    const file = join(dir, detailPath(r.id));
    mkdirSync(dirname(file), { recursive: true });
    const detail: DetailFile = {
      format: REPORT_FORMAT,
      run: { seed: report.meta.seed, baseUrl: report.meta.target.baseUrl, startedAt: report.meta.startedAt },
      ...r,
    };
    writeFileSync(file, `${JSON.stringify(detail, null, 2)}\n`);
  }
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  return index;
}

/** Reads a JSON report back (for merge): the index and every detail file it lists. */
export function readJsonReport(dir: string): RunReport {
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as IndexFile;
  if (index.format !== REPORT_FORMAT) throw new Error(`${dir}/index.json is not a ${REPORT_FORMAT} report (format ${index.format})`);
  const results = index.checks.map((entry) => {
    const detail = JSON.parse(readFileSync(join(dir, entry.detail), 'utf8')) as DetailFile;
    const { format: _format, run: _run, ...result } = detail;
    return result;
  });
  return { meta: index.meta, results, suite: index.suite };
}

export function readDetail(file: string): DetailFile {
  const detail = JSON.parse(readFileSync(file, 'utf8')) as DetailFile;
  if (detail.format !== REPORT_FORMAT || typeof detail.id !== 'string')
    throw new Error(`${file} is not a check detail of a ${REPORT_FORMAT} report`);
  return detail;
}
