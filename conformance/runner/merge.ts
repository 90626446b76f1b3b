/**
 * Joins the JSON reports of several shards (or runs) into one: results by
 * check id (a check found twice keeps its worse outcome), the suite's static
 * coverage as the union, the run's times spanning all parts.
 */
import type { CheckResult, RunReport } from './result.ts';
import { SEVERITY } from './result.ts';
import { mergeCleanups } from '../harness/ledger.ts';

export function mergeReports(reports: readonly RunReport[]): RunReport {
  if (reports.length === 0) throw new Error('nothing to merge');
  const byId = new Map<string, CheckResult>();
  for (const report of reports) {
    for (const r of report.results) {
      const seen = byId.get(r.id);
      if (seen === undefined) byId.set(r.id, r);
      else {
        const keep = SEVERITY.indexOf(r.outcome) < SEVERITY.indexOf(seen.outcome) ? r : seen;
        const other = keep === r ? seen : r;
        byId.set(r.id, { ...keep, notes: [...keep.notes, `also in another part of the merge, with outcome ${other.outcome}`] });
      }
    }
  }
  const suite = new Map<string, string[]>();
  for (const report of reports) for (const c of report.suite) if (!suite.has(c.id)) suite.set(c.id, c.clauses);
  const first = reports[0]!.meta;
  const startedAt = reports.map((r) => r.meta.startedAt).sort()[0]!;
  const finishedAt = reports
    .map((r) => r.meta.finishedAt)
    .sort()
    .at(-1)!;
  const { shard: _shard, cleanup: _cleanup, ...rest } = first;
  const cleanups = reports.flatMap((r) => (r.meta.cleanup === undefined ? [] : [r.meta.cleanup]));
  return {
    meta: {
      ...rest,
      startedAt,
      finishedAt,
      placeholders: [...new Set(reports.flatMap((r) => r.meta.placeholders))],
      ...(cleanups.length === 0 ? {} : { cleanup: mergeCleanups(cleanups) }),
      mergedFrom: reports.map((r) => ({
        ...(r.meta.shard === undefined ? {} : { shard: r.meta.shard }),
        startedAt: r.meta.startedAt,
        checks: r.results.length,
      })),
    },
    results: [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    suite: [...suite.entries()].map(([id, clauses]) => ({ id, clauses })).sort((a, b) => (a.id < b.id ? -1 : 1)),
  };
}
