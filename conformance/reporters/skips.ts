/**
 * The skip table printed after a run: the SKIPPED checks grouped by their
 * reason, which names what would unlock them (a Control API capability and
 * what it brings, a token of a description, an input device, an option such
 * as --slow or --fresh, or a premise the target did not give), the reasons
 * holding the most checks first. conformance/README.md ("Without a Control
 * API") lists what remains for a run with one token.
 */
import type { CheckResult } from '../runner/result.ts';

export function skipTable(results: readonly CheckResult[]): string {
  const byReason = new Map<string, string[]>();
  for (const r of results) {
    if (r.outcome !== 'SKIPPED') continue;
    const reason = r.skipReason ?? 'no reason given';
    byReason.set(reason, [...(byReason.get(reason) ?? []), r.id]);
  }
  if (byReason.size === 0) return '';
  const skipped = [...byReason.values()].reduce((n, ids) => n + ids.length, 0);
  const rows = [...byReason].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  return [
    `Skipped ${skipped} check${skipped === 1 ? '' : 's'}, by what would unlock them:`,
    ...rows.flatMap(([reason, ids]) => [`  ${reason}`, `      ${ids.length}: ${ids.join(' ')}`]),
  ].join('\n');
}
