/**
 * --expected-failures FILE: the failures a team on its way to conformance
 * tolerates for now (docs/decisions/106-conformance-expected-failures-and-exit-codes.md).
 *
 * The file: one entry a line, a check id (meetings/export-md) or a clause id
 * (summary.regenerate.202), then an optional reason; '#' starts a comment,
 * blank lines are ignored. A FAIL or ERROR of a listed check (or of a check
 * whose failures all name listed clauses) does not fail the run; any other
 * does. An entry whose checks ran and now pass is stale: it fails the run,
 * naming the line to delete, so the file never outlives the failures it lists.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../gate.ts';
import type { CheckResult, RunMeta } from '../runner/result.ts';
import { isFailing } from '../runner/result.ts';

export interface ExpectedEntry {
  /** A check id or a clause id. */
  id: string;
  reason?: string;
  /** Its line in the file (1-based). */
  line: number;
}

export interface ExpectedFailures {
  file: string;
  entries: ExpectedEntry[];
}

/** Reads and checks the file: every id must name a check or a clause of the suite (a typo would tolerate nothing). */
export function readExpectedFailures(file: string, known: { checks: ReadonlySet<string>; clauses: ReadonlySet<string> }): ExpectedFailures {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--expected-failures: cannot read ${file}: ${(err as Error).message}`);
  }
  const entries: ExpectedEntry[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const content = raw.replace(/(^|\s)#.*$/, '').trim();
    if (content === '') return;
    const [id = '', ...rest] = content.split(/\s+/);
    const line = i + 1;
    if (!known.checks.has(id) && !known.clauses.has(id))
      throw new UsageError(`--expected-failures ${file}:${line}: ${JSON.stringify(id)} is neither a check id nor a clause id of the suite`);
    const twice = seen.get(id);
    if (twice !== undefined) throw new UsageError(`--expected-failures ${file}:${line}: ${id} is listed already on line ${twice}`);
    seen.set(id, line);
    const reason = rest.join(' ');
    entries.push({ id, line, ...(reason === '' ? {} : { reason }) });
  });
  return { file, entries };
}

/** The entry that covers a failing result, or undefined: its check id, else every clause its failures name. */
export function entryFor(expected: ExpectedFailures, r: CheckResult): ExpectedEntry | undefined {
  const byCheck = expected.entries.find((e) => e.id === r.id);
  if (byCheck !== undefined) return byCheck;
  const clauses = [...new Set(r.failures.map((f) => f.clause))];
  if (clauses.length === 0) return undefined;
  const byClause = clauses.map((c) => expected.entries.find((e) => e.id === c));
  return byClause.every((e) => e !== undefined) ? byClause[0] : undefined;
}

export interface ExpectedVerdict {
  /** Failing results a listed entry covers: they do not fail the run. */
  expected: Array<{ result: CheckResult; entry: ExpectedEntry }>;
  /** Failing results no entry covers: each fails the run. */
  unexpected: CheckResult[];
  /** Entries whose checks ran and passed: each fails the run until its line is deleted. */
  stale: ExpectedEntry[];
}

/** The verdict of a run's results against the file. */
export function judge(expected: ExpectedFailures | undefined, results: readonly CheckResult[]): ExpectedVerdict {
  const failing = results.filter((r) => isFailing(r.outcome));
  if (expected === undefined) return { expected: [], unexpected: failing, stale: [] };
  const verdict: ExpectedVerdict = { expected: [], unexpected: [], stale: [] };
  for (const r of failing) {
    const entry = entryFor(expected, r);
    if (entry === undefined) verdict.unexpected.push(r);
    else verdict.expected.push({ result: r, entry });
  }
  const used = new Set(verdict.expected.map((x) => x.entry));
  for (const e of expected.entries) {
    if (used.has(e)) continue;
    // The checks the entry names that ran to a verdict; a skipped or unselected check says nothing of it.
    const ran = results.filter((r) => (r.id === e.id || r.clauses.includes(e.id)) && r.outcome !== 'SKIPPED');
    const stillFailing = ran.some((r) => isFailing(r.outcome) && (r.id === e.id || r.failures.some((f) => f.clause === e.id)));
    if (ran.length > 0 && !stillFailing) verdict.stale.push(e);
  }
  return verdict;
}

/** The verdict as the JSON report's meta keeps it (RunMeta.expectedFailures; the Markdown report shows it apart). */
export function expectedMeta(expected: ExpectedFailures, results: readonly CheckResult[]): NonNullable<RunMeta['expectedFailures']> {
  const verdict = judge(expected, results);
  return {
    file: expected.file,
    expected: verdict.expected.map(({ result, entry }) => ({
      id: result.id,
      line: entry.line,
      ...(entry.reason === undefined ? {} : { reason: entry.reason }),
    })),
    stale: verdict.stale.map((e) => ({ id: e.id, line: e.line })),
  };
}

/** The lines of the console summary: the expected failures apart, then the stale entries to delete. */
export function expectedLines(expected: ExpectedFailures, verdict: ExpectedVerdict): string[] {
  const lines: string[] = [];
  if (verdict.expected.length > 0) {
    lines.push(`Expected failures (${expected.file}; they do not fail the run):`);
    for (const { result, entry } of verdict.expected)
      lines.push(`  ${result.outcome} ${result.id} (line ${entry.line}${entry.reason === undefined ? '' : `: ${entry.reason}`})`);
  }
  for (const e of verdict.stale) lines.push(`Stale expected failure: ${expected.file}:${e.line} ${e.id} now passes; delete that line`);
  return lines;
}

/** --write-expected-failures FILE: this run's failing checks, one a line, each with its first failure as the reason. */
export function writeExpectedFailures(file: string, results: readonly CheckResult[], header: string): number {
  const failing = results.filter((r) => isFailing(r.outcome));
  const lines = failing.map((r) => {
    const why = (r.failures[0]?.what ?? r.error?.message ?? r.outcome).replace(/\s+/g, ' ').slice(0, 160);
    return `${r.id}  ${r.outcome}: ${why}`;
  });
  mkdirSync(dirname(resolve(file)), { recursive: true });
  writeFileSync(
    file,
    `# ${header}\n# One check id or clause id a line, then why; delete a line once its check passes.\n${lines.join('\n')}\n`,
  );
  return failing.length;
}
