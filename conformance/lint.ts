#!/usr/bin/env node
/**
 * The suite's registry lint (test262's tools/lint): the closed catalog of
 * clause ids is enforced on the checks.
 *
 * Errors (exit 1):
 * - a check names a clause id that is not in conformance/clauses.json;
 * - a check's id differs from its file path, or two checks share an id;
 * - a check's requirement is not the verbatim statement of its first clause;
 * - a check's level does not match the kind of its clauses (gap checks cover
 *   gaps only, conflict checks a conflict, requirement checks requirements);
 * - an unknown need, an empty clause list or description;
 * - an internal clause is missing from not-checkable.ts, or a check claims one,
 *   or not-checkable.ts lists a clause that is not internal;
 * - a checkable clause (observe http, control, receiver or slow) has no check:
 *   these are printed as the uncovered list.
 *
 * `node conformance/lint.ts` prints the findings and exits 1 when any remain.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clause } from './catalog.ts';
import { CLAUSES_FILE, isCheckable, loadClauses } from './catalog.ts';
import type { Check } from './harness/check.ts';
import { CONTROL_CAPABILITIES } from './harness/check.ts';
import { NOT_CHECKABLE } from './not-checkable.ts';
import { loadChecks } from './runner/registry.ts';

const OTHER_NEEDS = ['token', 'receiver', 'slow', 'fresh', 'local', 'meeting'];

export interface LintInput {
  checks: ReadonlyArray<Pick<Check, 'id' | 'clauses' | 'level' | 'needs' | 'description' | 'requirement'>>;
  catalog: readonly Clause[];
  notCheckable: Readonly<Record<string, string>>;
  /** check id → the id its file path implies. */
  pathIds?: ReadonlyMap<string, string>;
  broken?: ReadonlyArray<{ id: string; file: string; error: string }>;
}

export interface LintResult {
  errors: string[];
  /** Checkable clauses that no check covers. */
  uncovered: string[];
}

export function lintSuite(input: LintInput): LintResult {
  const errors: string[] = [];
  const byId = new Map(input.catalog.map((c) => [c.id, c]));
  const seen = new Set<string>();
  for (const b of input.broken ?? []) errors.push(`${b.file}: does not load: ${b.error.split('\n')[0]}`);
  for (const check of input.checks) {
    const where = `check ${check.id}`;
    if (seen.has(check.id)) errors.push(`${where}: the id is used twice`);
    seen.add(check.id);
    const pathId = input.pathIds?.get(check.id);
    if (pathId !== undefined && pathId !== check.id) errors.push(`${where}: the id must be its path under checks/ (${pathId})`);
    if (!/^[a-z0-9-]+\/[a-z0-9-]+$/.test(check.id))
      errors.push(`${where}: the id must look like <area>/<behaviour> (lower case, digits, dashes)`);
    if (check.clauses.length === 0) errors.push(`${where}: names no clause`);
    if (check.description.trim().length === 0) errors.push(`${where}: has no description`);
    const clauses: Clause[] = [];
    for (const id of check.clauses) {
      const c = byId.get(id);
      if (c === undefined) errors.push(`${where}: unknown clause id "${id}" (not in conformance/clauses.json)`);
      else clauses.push(c);
      if (input.notCheckable[id] !== undefined)
        errors.push(`${where}: claims "${id}", which not-checkable.ts lists as not observable over HTTP`);
    }
    if (new Set(check.clauses).size !== check.clauses.length) errors.push(`${where}: names a clause twice`);
    const first = byId.get(check.clauses[0] ?? '');
    if (first !== undefined && check.requirement !== first.statement) {
      errors.push(`${where}: requirement must quote the statement of ${first.id} verbatim:\n    "${first.statement}"`);
    }
    const kinds = new Set(clauses.map((c) => c.kind));
    if (check.level === 'gap' && [...kinds].some((k) => k !== 'gap'))
      errors.push(
        `${where}: level gap, but covers non-gap clauses (${clauses
          .filter((c) => c.kind !== 'gap')
          .map((c) => c.id)
          .join(', ')})`,
      );
    if (check.level === 'conflict' && (!kinds.has('conflict') || kinds.has('gap')))
      errors.push(`${where}: level conflict needs a conflict clause and no gap clause`);
    if (check.level === 'requirement' && (kinds.has('gap') || kinds.has('conflict'))) {
      errors.push(
        `${where}: level requirement, but covers ${clauses
          .filter((c) => c.kind !== 'requirement')
          .map((c) => `${c.id} (${c.kind})`)
          .join(', ')}; give gaps and conflicts their own check`,
      );
    }
    for (const need of check.needs) {
      if (!(CONTROL_CAPABILITIES as readonly string[]).includes(need) && !OTHER_NEEDS.includes(need))
        errors.push(`${where}: unknown need "${need}"`);
    }
  }
  for (const [id, reason] of Object.entries(input.notCheckable)) {
    const c = byId.get(id);
    if (c === undefined) errors.push(`not-checkable.ts: unknown clause id "${id}"`);
    else if (c.observe !== 'internal') errors.push(`not-checkable.ts: "${id}" is observe=${c.observe}, so it needs a check, not an excuse`);
    if (reason.trim().length < 20) errors.push(`not-checkable.ts: "${id}" needs a real reason`);
  }
  for (const c of input.catalog) {
    if (c.observe === 'internal' && input.notCheckable[c.id] === undefined)
      errors.push(`not-checkable.ts: internal clause "${c.id}" is not listed with its reason`);
  }
  const covered = new Set(input.checks.flatMap((c) => c.clauses));
  const uncovered = input.catalog.filter((c) => isCheckable(c) && !covered.has(c.id)).map((c) => c.id);
  return { errors, uncovered };
}

/** The catalog must stay a verbatim copy of the spec's (when the spec folder is beside the clone). */
export function catalogDrift(): string | null {
  const shared = join(import.meta.dirname, '..', '..', 'shared', 'spec', 'clauses.json');
  if (!existsSync(shared)) return null;
  return readFileSync(shared, 'utf8') === readFileSync(CLAUSES_FILE, 'utf8')
    ? null
    : `conformance/clauses.json differs from ${shared}: copy it again, verbatim`;
}

async function main(): Promise<number> {
  const loaded = await loadChecks();
  const catalog = loadClauses();
  const pathIds = new Map<string, string>();
  for (const [id, file] of loaded.files) pathIds.set(id, file.replace(/^checks\//, '').replace(/\.check\.ts$/, ''));
  const result = lintSuite({ checks: loaded.checks, catalog, notCheckable: NOT_CHECKABLE, pathIds, broken: loaded.broken });
  const drift = catalogDrift();
  if (drift !== null) result.errors.push(drift);
  for (const e of result.errors) process.stdout.write(`error: ${e}\n`);
  const checkable = catalog.filter(isCheckable).length;
  if (result.uncovered.length > 0) {
    process.stdout.write(`\n${result.uncovered.length} checkable clauses have no check yet:\n`);
    for (const id of result.uncovered) {
      const c = catalog.find((x) => x.id === id)!;
      process.stdout.write(`  ${id.padEnd(58)} ${c.observe}\n`);
    }
  }
  process.stdout.write(
    `\n${loaded.checks.length} checks; ${checkable - result.uncovered.length}/${checkable} checkable clauses covered; ${Object.keys(NOT_CHECKABLE).length} not checkable; ${result.errors.length} errors.\n`,
  );
  return result.errors.length > 0 || result.uncovered.length > 0 ? 1 : 0;
}

if (import.meta.main) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`lint: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
