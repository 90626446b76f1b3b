/**
 * --only / --skip: a selector matches a check when it is a prefix of the
 * check id ('meetings/', 'meetings/rename-applies') or of one of its clause
 * ids ('meetings.rename', 'auth.'). A bare area name ('meetings') matches
 * both spellings. --skip wins over --only.
 */
import type { Check } from '../harness/check.ts';

export function matches(check: Pick<Check, 'id' | 'clauses'>, selector: string): boolean {
  const s = selector.trim();
  if (s.length === 0) return false;
  if (check.id === s || check.id.startsWith(s)) return true;
  if (check.clauses.some((c) => c === s || c.startsWith(s))) return true;
  // A bare area name: 'meetings' selects checks/meetings/* and clauses meetings.*.
  if (!s.includes('/') && !s.includes('.')) {
    return check.id.startsWith(`${s}/`) || check.clauses.some((c) => c.startsWith(`${s}.`));
  }
  return false;
}

export function parseSelectors(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

export function select<T extends Pick<Check, 'id' | 'clauses'>>(
  checks: readonly T[],
  only: readonly string[],
  skip: readonly string[],
): T[] {
  return checks.filter((c) => (only.length === 0 || only.some((s) => matches(c, s))) && !skip.some((s) => matches(c, s)));
}
