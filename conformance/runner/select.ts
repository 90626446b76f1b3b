/**
 * --only / --skip: a selector matches a check when it is a prefix of the
 * check id ('meetings/', 'meetings/rename-applies') or of one of its clause
 * ids ('meetings.rename', 'auth.'). A bare area name ('meetings') matches
 * both spellings. A selector also names the section of API.md a clause sits
 * in (clauses.json's `section`, "Endpoints > Jobs > Import"), in any case:
 * one heading of it ("Import", "Job states") or consecutive headings
 * ("Endpoints > Jobs"), a heading taking its subsections along
 * (docs/decisions/076-ci-reports.md). --skip wins over --only.
 */
import { clauseById, loadClauses } from '../catalog.ts';
import type { Check } from '../harness/check.ts';

type Selectable = Pick<Check, 'id' | 'clauses'>;
/** The section heading path of a clause id, or undefined for one not in the catalog. */
export type SectionOf = (clauseId: string) => string | undefined;

const catalogSection: SectionOf = (id) => clauseById(id)?.section;

/** A heading path as lower-case headings: "Endpoints >Jobs" → ['endpoints', 'jobs']. */
function headings(text: string): string[] {
  return text
    .toLowerCase()
    .split('>')
    .map((h) => h.trim().replace(/\s+/g, ' '))
    .filter((h) => h !== '');
}

/** The selector's headings appear, consecutive, among the section's. */
function namesSection(selector: string, section: string): boolean {
  const want = headings(selector);
  const path = headings(section);
  if (want.length === 0) return false;
  for (let i = 0; i + want.length <= path.length; i++) if (want.every((h, k) => path[i + k] === h)) return true;
  return false;
}

function byId(check: Selectable, s: string): boolean {
  if (check.id === s || check.id.startsWith(s)) return true;
  // A bare area name: 'meetings' selects checks/meetings/*.
  return !s.includes('/') && !s.includes('.') && check.id.startsWith(`${s}/`);
}

function byClause(check: Selectable, s: string): boolean {
  if (check.clauses.some((c) => c === s || c.startsWith(s))) return true;
  return !s.includes('/') && !s.includes('.') && check.clauses.some((c) => c.startsWith(`${s}.`));
}

/** The sections of the check's clauses this selector names. */
function bySection(check: Selectable, s: string, sectionOf: SectionOf): string[] {
  return check.clauses.map(sectionOf).filter((x): x is string => x !== undefined && namesSection(s, x));
}

export function matches(check: Selectable, selector: string, sectionOf: SectionOf = catalogSection): boolean {
  const s = selector.trim();
  if (s.length === 0) return false;
  return byId(check, s) || byClause(check, s) || bySection(check, s, sectionOf).length > 0;
}

/** Every section path of the catalog, for the comma-separated lists (a heading may hold commas). */
function catalogSections(): string[] {
  return [...new Set(loadClauses().map((c) => c.section))];
}

/**
 * Splits comma-separated selectors; pieces that together name a section of `sections`
 * ("Health, identity, search, devices, models") stay one selector.
 */
export function parseSelectors(values: readonly string[] | undefined, sections: readonly string[] = catalogSections()): string[] {
  const out: string[] = [];
  for (const value of values ?? []) {
    const pieces = value.split(',');
    for (let i = 0; i < pieces.length; i++) {
      let j = pieces.length - 1;
      while (j > i && !sections.some((s) => namesSection(pieces.slice(i, j + 1).join(','), s))) j--;
      out.push(
        pieces
          .slice(i, j + 1)
          .join(',')
          .trim(),
      );
      i = j;
    }
  }
  return out.filter((v) => v.length > 0);
}

export function select<T extends Selectable>(
  checks: readonly T[],
  only: readonly string[],
  skip: readonly string[],
  sectionOf: SectionOf = catalogSection,
): T[] {
  return checks.filter(
    (c) => (only.length === 0 || only.some((s) => matches(c, s, sectionOf))) && !skip.some((s) => matches(c, s, sectionOf)),
  );
}

/** What one selector selects among these checks, by each reading of it (for --list). */
export function describeSelector(selector: string, checks: readonly Selectable[], sectionOf: SectionOf = catalogSection): string {
  const s = selector.trim();
  const ids = checks.filter((c) => byId(c, s)).length;
  const clauses = checks.filter((c) => byClause(c, s)).length;
  const sections = [...new Set(checks.flatMap((c) => bySection(c, s, sectionOf)))].sort();
  const total = checks.filter((c) => matches(c, s, sectionOf)).length;
  const how = [
    ...(ids > 0 ? [`${ids} by check id`] : []),
    ...(clauses > 0 ? [`${clauses} by clause id`] : []),
    ...(sections.length > 0 ? [`section ${sections.map((x) => JSON.stringify(x)).join(', ')}`] : []),
  ];
  return `${JSON.stringify(s)}: ${total} check${total === 1 ? '' : 's'}${how.length > 0 ? ` (${how.join('; ')})` : ''}`;
}
