/**
 * Markdown for a CI job summary: the verdict, counts, clause coverage per
 * area, every FAIL / ERROR / NON_STRICT / FLAKY with its clause, requirement,
 * expected, actual, curl and seed, the skip reasons, and the per-clause table
 * folded away.
 */
import type { Clause } from '../catalog.ts';
import type { CheckResult, Failure, RunReport } from '../runner/result.ts';
import { OUTCOMES, clauseRows, countOutcomes, coverage } from '../runner/result.ts';

const ICON: Record<string, string> = {
  PASS: '✅',
  FAIL: '❌',
  ERROR: '💥',
  NON_STRICT: '🟡',
  INFORMATIONAL: 'ℹ️',
  SKIPPED: '⏭️',
  FLAKY: '🔁',
  NOT_RUN: '·',
  NOT_COVERED: '⚠️',
  NOT_CHECKABLE: '—',
};

/** Text inside a table cell: no pipes or line breaks. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').replace(/</g, '&lt;');
}

/** A fenced code block whose fence the content cannot close. */
function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${text}\n${f}`;
}

function failureMd(f: Failure): string {
  const lines = [
    `- **Clause** \`${f.clause}\`${f.severity === 'non_strict' ? ' (non-strict)' : ''}`,
    `  > ${f.requirement}`,
    `- **What**: ${cell(f.what)}`,
    `- **Expected**: ${f.expected.map((e) => cell(e)).join(' *or* ')}`,
    `- **Actual**: ${cell(f.actual)}`,
  ];
  if (f.alternative !== undefined) lines.push(`- **Alternative observed**: ${cell(f.alternative)}`);
  if (f.property !== undefined) {
    const p = f.property;
    lines.push(
      `- **Property** \`${p.name}\`: seed \`${p.seed}\`${p.path === undefined ? '' : `, path \`${p.path}\``}${p.counterexample === undefined ? '' : `, counterexample \`${cell(p.counterexample.slice(0, 300))}\``}`,
    );
    if (p.replay !== undefined) lines.push(`- **Replay**: \`${cell(p.replay)}\``);
  }
  if (f.curl !== undefined) lines.push('', fence(f.curl, 'sh'));
  return lines.join('\n');
}

function resultMd(r: CheckResult): string {
  const out = [`### ${ICON[r.outcome]} ${r.outcome} \`${r.id}\``, '', cell(r.description), ''];
  if (r.error !== undefined) {
    out.push(`**Error**: ${cell(r.error.message)}`, '');
    if (r.error.curl !== undefined) out.push(fence(r.error.curl, 'sh'), '');
  }
  for (const f of r.failures) out.push(failureMd(f), '');
  if (r.retry !== undefined) out.push(`Second run: **${r.retry.outcome}**`, '');
  return out.join('\n');
}

export function markdownReport(report: RunReport, catalog: readonly Clause[]): string {
  const counts = countOutcomes(report.results);
  const rows = clauseRows(catalog, report);
  const cov = coverage(rows);
  // --expected-failures: the listed failures are shown apart and do not make the report red; a stale entry does.
  const listed = report.meta.expectedFailures;
  const expectedIds = new Set(listed?.expected.map((e) => e.id) ?? []);
  const failing = counts.FAIL + counts.ERROR - expectedIds.size + (listed?.stale.length ?? 0);
  const ms = Date.parse(report.meta.finishedAt) - Date.parse(report.meta.startedAt);
  const out: string[] = [];
  out.push(
    `# ${failing === 0 ? '✅' : '❌'} Conformance: ${
      OUTCOMES.filter((o) => counts[o] > 0)
        .map((o) => `${counts[o]} ${o}`)
        .join(' · ') || 'no checks'
    }`,
  );
  out.push('');
  out.push(
    `Target \`${report.meta.target.baseUrl}\`${report.meta.target.controlUrl === undefined ? ' (no Control API)' : ` · Control API \`${report.meta.target.controlUrl}\``} · seed \`${report.meta.seed}\` · ${report.meta.runs} runs per property${report.meta.shard === undefined ? '' : ` · shard ${report.meta.shard}`} · ${(ms / 1000).toFixed(1)} s · ${report.meta.startedAt}`,
  );
  if (report.meta.placeholders.length > 0)
    out.push(
      '',
      `curl lines use ${report.meta.placeholders.map((p) => `\`${p}\``).join(', ')} in place of the secrets given on the command line.`,
    );
  const cleanup = report.meta.cleanup;
  if (cleanup !== undefined && cleanup.kinds.length > 0) {
    // What the run made on the target and what it could not remove (runner/cleanup.ts; decision 075).
    out.push(
      '',
      `**On the target**${cleanup.kept ? ' (kept: --keep)' : ''}${cleanup.interrupted === true ? ' (interrupted run)' : ''}:`,
      '',
    );
    out.push('| Kind | Created | Removed | Left | Why left |', '|---|---:|---:|---:|---|');
    for (const k of cleanup.kinds)
      out.push(`| ${k.kind} | ${k.created} | ${k.removed} | ${k.left} | ${k.leftWhy.map((w) => `${w.count}: ${w.reason}`).join('; ')} |`);
  }
  out.push('', '| Outcome | Checks |', '|---|---:|');
  for (const o of OUTCOMES) out.push(`| ${ICON[o]} ${o} | ${counts[o]} |`);
  out.push('', '## Clause coverage', '');
  out.push(
    `**${cov.covered}/${cov.checkable}** checkable clauses have checks (${((100 * cov.covered) / Math.max(1, cov.checkable)).toFixed(0)} %); **${cov.exercised}/${cov.checkable}** were exercised in this run; ${cov.internal} clauses cannot be observed over HTTP (conformance/not-checkable.ts).`,
  );
  out.push('', '| Area | Checkable | Covered | Exercised | Pass | Fail |', '|---|---:|---:|---:|---:|---:|');
  for (const a of cov.byArea) out.push(`| ${a.area} | ${a.checkable} | ${a.covered} | ${a.exercised} | ${a.pass} | ${a.fail} |`);
  const shown = report.results.filter(
    (r) => (r.outcome === 'FAIL' || r.outcome === 'ERROR' || r.outcome === 'NON_STRICT' || r.outcome === 'FLAKY') && !expectedIds.has(r.id),
  );
  if (shown.length > 0) {
    out.push('', '## Failures and remarks', '');
    for (const o of ['FAIL', 'ERROR', 'NON_STRICT', 'FLAKY'] as const)
      for (const r of shown.filter((x) => x.outcome === o)) out.push(resultMd(r));
  }
  if (listed !== undefined && (listed.expected.length > 0 || listed.stale.length > 0)) {
    out.push('', `## Expected failures (\`${listed.file}\`)`, '');
    if (listed.expected.length > 0)
      out.push('Listed, so they do not fail the run:', '', '| Check | Outcome | Line | Reason |', '|---|---|---:|---|');
    const byId = new Map(report.results.map((r) => [r.id, r]));
    for (const e of listed.expected) out.push(`| \`${e.id}\` | ${byId.get(e.id)?.outcome ?? '?'} | ${e.line} | ${cell(e.reason ?? '')} |`);
    for (const e of listed.stale) out.push('', `**Stale:** line ${e.line} (\`${e.id}\`) now passes; delete it.`);
  }
  const skipped = report.results.filter((r) => r.outcome === 'SKIPPED');
  if (skipped.length > 0) {
    const reasons = new Map<string, string[]>();
    for (const r of skipped) reasons.set(r.skipReason ?? '?', [...(reasons.get(r.skipReason ?? '?') ?? []), r.id]);
    out.push('', '## Skipped', '', '| Reason | Checks |', '|---|---|');
    for (const [reason, ids] of reasons) out.push(`| ${cell(reason)} | ${ids.map((i) => `\`${i}\``).join(', ')} |`);
  }
  const infos = report.results.filter((r) => r.outcome === 'INFORMATIONAL' || r.observations.length > 0);
  if (infos.length > 0) {
    out.push(
      '',
      '<details><summary>Observations (gaps and remarks)</summary>',
      '',
      '| Check | Clause | What | Target did |',
      '|---|---|---|---|',
    );
    for (const r of infos)
      for (const o of r.observations) out.push(`| \`${r.id}\` | \`${o.clause}\` | ${cell(o.what)} | ${cell(o.actual.slice(0, 400))} |`);
    out.push('', '</details>');
  }
  out.push('', '<details><summary>Every clause</summary>', '', '| Status | Clause | Kind | Observe | Checks |', '|---|---|---|---|---|');
  for (const r of rows)
    out.push(
      `| ${ICON[r.status] ?? ''} ${r.status} | \`${r.id}\` | ${r.kind} | ${r.observe} | ${r.checks.map((c) => `\`${c}\``).join(' ')} |`,
    );
  out.push('', '</details>', '');
  return out.join('\n');
}
