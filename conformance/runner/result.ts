/**
 * Results: outcomes per check, per clause, and the coverage of the catalog.
 * Every reporter and the shard merge work from these types only.
 */
import type { Clause } from '../catalog.ts';
import { isCheckable } from '../catalog.ts';
import type { Level, Need } from '../harness/check-types.ts';
import type { Delivery, Exchange } from '../harness/exchange.ts';
import type { CleanupSummary } from '../harness/ledger.ts';

export const OUTCOMES = ['PASS', 'FAIL', 'NON_STRICT', 'INFORMATIONAL', 'SKIPPED', 'ERROR', 'FLAKY'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Worst first: a clause takes the worst outcome among the checks that cover it. */
export const SEVERITY: readonly Outcome[] = ['FAIL', 'ERROR', 'NON_STRICT', 'FLAKY', 'PASS', 'INFORMATIONAL', 'SKIPPED'];

function worst(outcomes: readonly Outcome[]): Outcome | undefined {
  let best: Outcome | undefined;
  for (const o of outcomes) if (best === undefined || SEVERITY.indexOf(o) < SEVERITY.indexOf(best)) best = o;
  return best;
}

/** Outcomes that fail a run (exit code 1). */
export function isFailing(o: Outcome): boolean {
  return o === 'FAIL' || o === 'ERROR';
}

export interface PropertyRun {
  name: string;
  seed: number;
  numRuns: number;
  failed: boolean;
  /** fast-check's counterexample path (with the seed, it replays the failure). */
  path?: string;
  counterexample?: string;
  shrinks?: number;
  /** A command line that re-runs just this check with this seed and path. */
  replay?: string;
}

export interface Failure {
  clause: string;
  /** The clause statement, quoted. */
  requirement: string;
  /** What was done, e.g. "PATCH /v1/meetings/{id} with a 501-character title". */
  what: string;
  expected: string[];
  actual: string;
  /** fail: the requirement is broken; non_strict: a documented alternative the spec did not choose. */
  severity: 'fail' | 'non_strict';
  alternative?: string;
  /** seq of the decisive exchange, and its curl line. */
  exchange?: number;
  curl?: string;
  /** The verdict named no exchange: `exchange` is the check's last request, a guess (harness/context.ts). */
  lastExchange?: true;
  /**
   * The request body of that exchange, base64, when the curl line cannot carry it (a large binary body):
   * written beside a JSON report and then dropped from the result (reporters/bodies.ts).
   */
  requestBody?: string;
  property?: PropertyRun;
  /** For properties: the exchanges of the (shrunk) counterexample run. */
  exchanges?: Exchange[];
}

/** What a target did where the spec leaves a gap (or a side remark on a requirement). */
export interface Observation {
  clause: string;
  what: string;
  actual: string;
  exchange?: number;
  curl?: string;
}

export interface Attempt {
  outcome: Outcome;
  startedAt: string;
  durationMs: number;
  /** The check ran to its end (no hard stop, no exception). */
  completed: boolean;
  failures: Failure[];
  observations: Observation[];
  notes: string[];
  skipReason?: string;
  error?: { message: string; stack?: string; curl?: string };
  properties: PropertyRun[];
  exchanges: Exchange[];
  /** Exchanges left out of the report (a check keeps the first MAX_EXCHANGES). */
  exchangesOmitted: number;
  deliveries: Delivery[];
}

export interface CheckResult extends Attempt {
  id: string;
  area: string;
  clauses: string[];
  level: Level;
  needs: Need[];
  description: string;
  requirement: string;
  /** Set when the check was run twice (a first FAIL or ERROR). */
  retry?: { outcome: Outcome; durationMs: number; failures: Failure[]; error?: { message: string } };
}

export interface RunMeta {
  suite: string;
  suiteVersion: string;
  target: { baseUrl: string; controlUrl?: string; capabilities?: string[] };
  startedAt: string;
  finishedAt: string;
  seed: number;
  runs: number;
  slow: boolean;
  shard?: string;
  only?: string[];
  skip?: string[];
  /** Shell variables the curl lines use in place of secrets. */
  placeholders: string[];
  nodeVersion: string;
  /** What the run created on the target, removed and left (harness/ledger.ts, runner/cleanup.ts). */
  cleanup?: CleanupSummary;
  /**
   * --expected-failures: the file, the failing checks it listed (they did not fail the run) and its
   * stale entries (cli/expected-failures.ts).
   */
  expectedFailures?: {
    file: string;
    expected: Array<{ id: string; line: number; reason?: string }>;
    stale: Array<{ id: string; line: number }>;
  };
  /** For merged reports: the shard metas it was built from. */
  mergedFrom?: Array<{ shard?: string; startedAt: string; checks: number }>;
}

export interface RunReport {
  meta: RunMeta;
  results: CheckResult[];
  /** Every check of the suite (selected or not) → its clauses: the static coverage. */
  suite: Array<{ id: string; clauses: string[] }>;
}

type ClauseStatus = Outcome | 'NOT_RUN' | 'NOT_COVERED' | 'NOT_CHECKABLE';

export interface ClauseRow {
  id: string;
  kind: Clause['kind'];
  observe: Clause['observe'];
  statement: string;
  status: ClauseStatus;
  /** Check ids of the suite that cover the clause. */
  checks: string[];
  /** Outcome of each check that ran for it. */
  results: Array<{ check: string; outcome: Outcome }>;
}

/** How one check's result counts for one of its clauses. */
function clauseContribution(result: CheckResult, clauseId: string, kind: Clause['kind']): Outcome {
  if (result.outcome === 'SKIPPED' || result.outcome === 'ERROR' || result.outcome === 'FLAKY') return result.outcome;
  const own = result.failures.filter((f) => f.clause === clauseId);
  if (own.some((f) => f.severity === 'fail')) return 'FAIL';
  if (own.length > 0) return 'NON_STRICT';
  // A check stopped early proves nothing about the clauses it did not reach.
  if (!result.completed) return result.outcome;
  return kind === 'gap' ? 'INFORMATIONAL' : 'PASS';
}

export function clauseRows(catalog: readonly Clause[], report: Pick<RunReport, 'results' | 'suite'>): ClauseRow[] {
  const coveredBy = new Map<string, string[]>();
  for (const c of report.suite) for (const id of c.clauses) coveredBy.set(id, [...(coveredBy.get(id) ?? []), c.id]);
  const resultsBy = new Map<string, CheckResult[]>();
  for (const r of report.results) for (const id of r.clauses) resultsBy.set(id, [...(resultsBy.get(id) ?? []), r]);
  return catalog.map((c) => {
    const results = (resultsBy.get(c.id) ?? []).map((r) => ({ check: r.id, outcome: clauseContribution(r, c.id, c.kind) }));
    const checks = coveredBy.get(c.id) ?? [];
    let status: ClauseStatus;
    if (!isCheckable(c) && checks.length === 0) status = 'NOT_CHECKABLE';
    else if (checks.length === 0) status = 'NOT_COVERED';
    else if (results.length === 0) status = 'NOT_RUN';
    else status = worst(results.map((r) => r.outcome))!;
    return { id: c.id, kind: c.kind, observe: c.observe, statement: c.statement, status, checks, results };
  });
}

export interface Coverage {
  /** Clauses a black-box suite can observe (observe ≠ internal). */
  checkable: number;
  /** Checkable clauses with at least one check in the suite. */
  covered: number;
  /** Checkable clauses exercised by this run (a check ran for them and was not skipped). */
  exercised: number;
  internal: number;
  total: number;
  byArea: Array<{ area: string; checkable: number; covered: number; exercised: number; pass: number; fail: number }>;
}

export function coverage(rows: readonly ClauseRow[]): Coverage {
  const checkable = rows.filter((r) => r.observe !== 'internal');
  const exercisedStatus = (s: ClauseStatus): boolean => s !== 'SKIPPED' && s !== 'NOT_RUN' && s !== 'NOT_COVERED' && s !== 'NOT_CHECKABLE';
  const areas = new Map<string, ClauseRow[]>();
  for (const r of checkable) {
    const area = r.id.split('.')[0]!;
    areas.set(area, [...(areas.get(area) ?? []), r]);
  }
  return {
    checkable: checkable.length,
    covered: checkable.filter((r) => r.checks.length > 0).length,
    exercised: checkable.filter((r) => exercisedStatus(r.status)).length,
    internal: rows.length - checkable.length,
    total: rows.length,
    byArea: [...areas.entries()].map(([area, list]) => ({
      area,
      checkable: list.length,
      covered: list.filter((r) => r.checks.length > 0).length,
      exercised: list.filter((r) => exercisedStatus(r.status)).length,
      pass: list.filter((r) => r.status === 'PASS' || r.status === 'INFORMATIONAL').length,
      fail: list.filter((r) => r.status === 'FAIL' || r.status === 'ERROR').length,
    })),
  };
}

export function countOutcomes(results: readonly CheckResult[]): Record<Outcome, number> {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const r of results) counts[r.outcome] += 1;
  return counts;
}
