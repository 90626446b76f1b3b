/**
 * GitHub Actions workflow commands (`--reporter github`). GitHub shows at
 * most 10 annotations of a kind per step, so: one `::error` per FAIL and per
 * ERROR; every FLAKY and NON_STRICT check in one `::warning`; every SKIPPED
 * check in one `::notice`, grouped by the kind of precondition missing; and
 * the clause coverage in one more `::notice`. An annotation names the check's
 * source file only when that file exists in the workspace (a checkout of the
 * suite itself): an implementer's workflow runs the suite as a package, and
 * GitHub would point at a file that is not in their repository
 * (docs/decisions/076-ci-reports.md).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckResult, Coverage } from '../runner/result.ts';

/** Escapes the message part of a workflow command (GitHub's rules: % CR LF). */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a property value (file, title) of a workflow command: also : and ,. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function annotation(level: 'error' | 'warning' | 'notice', title: string, message: string, file?: string): string {
  const props = [...(file === undefined ? [] : [`file=${escapeProperty(file)}`]), `title=${escapeProperty(title)}`];
  return `::${level} ${props.join(',')}::${escapeData(message)}\n`;
}

/** At most `max` ids, then how many more. */
function ids(list: readonly CheckResult[], max = 12): string {
  const shown = list.slice(0, max).map((r) => r.id);
  return `${shown.join(', ')}${list.length > max ? `, … ${list.length - max} more` : ''}`;
}

/** The kind of precondition a skip reason names: its text up to the first colon ("needs the Control API"). */
function skipKind(reason: string | undefined): string {
  const head = (reason ?? 'no reason given').split(':')[0]!.trim();
  return head.length > 100 ? `${head.slice(0, 99)}…` : head;
}

export interface GithubOptions {
  /** The workspace the paths are relative to (default: the current directory). */
  cwd?: string;
  /** Where the check files are in a checkout of the suite. */
  checksRoot?: string;
}

export function githubAnnotations(results: readonly CheckResult[], cov: Coverage, options: GithubOptions = {}): string {
  const cwd = options.cwd ?? process.cwd();
  const root = options.checksRoot ?? 'conformance/checks';
  const fileOf = (id: string): string | undefined => {
    const file = `${root}/${id}.check.ts`;
    return existsSync(join(cwd, file)) ? file : undefined;
  };
  let out = '';
  for (const r of results) {
    if (r.outcome === 'FAIL') {
      const failed = r.failures.filter((f) => f.severity === 'fail');
      const first = failed[0];
      const detail =
        first === undefined
          ? r.description
          : [
              `${first.clause}: ${first.what}`,
              `Expected: ${first.expected.join(' or ')}`,
              `Actual: ${first.actual}`,
              ...(first.curl === undefined ? [] : [first.curl]),
              ...(failed.length > 1
                ? [
                    `and ${failed.length - 1} more failed clause(s): ${failed
                      .slice(1)
                      .map((f) => f.clause)
                      .join(', ')}`,
                  ]
                : []),
            ].join('\n');
      out += annotation('error', `FAIL ${r.id}`, detail, fileOf(r.id));
    } else if (r.outcome === 'ERROR') {
      out += annotation('error', `ERROR ${r.id}`, r.error?.message ?? 'the harness could not carry the check out', fileOf(r.id));
    }
  }
  const flaky = results.filter((r) => r.outcome === 'FLAKY');
  const nonStrict = results.filter((r) => r.outcome === 'NON_STRICT');
  if (flaky.length + nonStrict.length > 0) {
    const lines = [
      ...(flaky.length === 0 ? [] : [`FLAKY (failed, then passed when run once more): ${ids(flaky)}`]),
      ...(nonStrict.length === 0 ? [] : [`NON_STRICT (a documented alternative the spec did not choose): ${ids(nonStrict)}`]),
    ];
    out += annotation('warning', `${flaky.length} FLAKY, ${nonStrict.length} NON_STRICT`, lines.join('\n'));
  }
  const skipped = results.filter((r) => r.outcome === 'SKIPPED');
  if (skipped.length > 0) {
    const byKind = new Map<string, CheckResult[]>();
    for (const r of skipped) byKind.set(skipKind(r.skipReason), [...(byKind.get(skipKind(r.skipReason)) ?? []), r]);
    const groups = [...byKind.entries()].sort((a, b) => b[1].length - a[1].length);
    const count = `${skipped.length} check${skipped.length === 1 ? '' : 's'} SKIPPED`;
    out += annotation(
      'notice',
      count,
      [
        `${count}, each for a missing precondition (the reports name it):`,
        ...groups.map(([kind, list]) => `- ${kind} (${list.length}): ${ids(list)}`),
      ].join('\n'),
    );
  }
  out += annotation(
    'notice',
    'clause coverage',
    `${cov.exercised} of ${cov.checkable} checkable clauses exercised, ${cov.covered} covered by a check`,
  );
  return out;
}
