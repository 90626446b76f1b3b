/**
 * JUnit XML: a testsuite per area, a testcase per check named by its id
 * (classname: the area; description and clause ids as properties). FAIL → <failure>,
 * ERROR → <error>, SKIPPED → <skipped>; NON_STRICT, INFORMATIONAL and FLAKY
 * pass, with the outcome as a property and the details in <system-out>.
 * A last testsuite "clause-coverage" (no testcases) carries the coverage
 * table as properties and text.
 */
import type { Clause } from '../catalog.ts';
import type { CheckResult, RunReport } from '../runner/result.ts';
import { clauseRows, coverage } from '../runner/result.ts';
import { failureText, observationText, resultText } from './text.ts';

/** Text safe inside XML: escaped, and without characters XML 1.0 cannot hold. */
function xmlEscape(text: string): string {
  return text
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const secs = (ms: number): string => (ms / 1000).toFixed(3);

/** A failure or error message is a title: one short line (the element's body holds the details). */
const MESSAGE_MAX = 160;
function shortMessage(text: string): string {
  const line = text.split('\n')[0]!.replace(/\s+/g, ' ').trim();
  return line.length <= MESSAGE_MAX ? line : `${line.slice(0, MESSAGE_MAX - 1)}…`;
}

function testcase(r: CheckResult): string {
  // CI test-report tools (GitLab, the GitHub test-report actions) key a test's history on its name:
  // the check id alone, so rewording a description keeps the history (docs/decisions/076-ci-reports.md).
  const attrs = `classname="${xmlEscape(r.area)}" name="${xmlEscape(r.id)}" time="${secs(r.durationMs)}"`;
  const props = [
    `<property name="description" value="${xmlEscape(r.description)}"/>`,
    ...r.clauses.map((c) => `<property name="clause" value="${xmlEscape(c)}"/>`),
    `<property name="outcome" value="${r.outcome}"/>`,
    `<property name="level" value="${r.level}"/>`,
    ...r.properties.map(
      (p) =>
        `<property name="fast-check:${xmlEscape(p.name)}" value="${xmlEscape(`seed=${p.seed}${p.path === undefined ? '' : ` path=${p.path}`}`)}"/>`,
    ),
  ];
  const body: string[] = [`<properties>${props.join('')}</properties>`];
  const failed = r.failures.filter((x) => x.severity === 'fail');
  const first = failed[0];
  if (r.outcome === 'FAIL' && first !== undefined) {
    // One <failure> per testcase (the JUnit schema allows one): the first failed clause as its message, all in its body.
    const more = failed.length > 1 ? ` (+${failed.length - 1} more)` : '';
    body.push(
      `<failure type="${xmlEscape(first.clause)}" message="${xmlEscape(shortMessage(`${first.clause}: ${first.what}`) + more)}">${xmlEscape(failed.map((f) => failureText(f)).join('\n\n'))}</failure>`,
    );
  } else if (r.outcome === 'ERROR') {
    body.push(
      `<error type="harness" message="${xmlEscape(shortMessage(r.error?.message ?? 'error'))}">${xmlEscape(resultText(r))}</error>`,
    );
  } else if (r.outcome === 'SKIPPED') {
    body.push(`<skipped message="${xmlEscape(shortMessage(r.skipReason ?? ''))}">${xmlEscape(r.skipReason ?? '')}</skipped>`);
  }
  const out: string[] = [];
  if (r.outcome !== 'PASS' && r.outcome !== 'FAIL' && r.outcome !== 'ERROR' && r.outcome !== 'SKIPPED') out.push(`Outcome: ${r.outcome}`);
  if (r.outcome !== 'FAIL' && r.outcome !== 'ERROR') {
    for (const f of r.failures) out.push(failureText(f));
    if (r.retry !== undefined) out.push(`First run failed; second run: ${r.retry.outcome}`);
  }
  if (r.observations.length > 0) out.push(r.observations.map(observationText).join('\n'));
  if (r.notes.length > 0) out.push(r.notes.join('\n'));
  if (out.length > 0) body.push(`<system-out>${xmlEscape(out.join('\n\n'))}</system-out>`);
  return `    <testcase ${attrs}>\n      ${body.join('\n      ')}\n    </testcase>`;
}

export function junitReport(report: RunReport, catalog: readonly Clause[]): string {
  const areas = new Map<string, CheckResult[]>();
  for (const r of report.results) areas.set(r.area, [...(areas.get(r.area) ?? []), r]);
  const count = (list: CheckResult[], o: CheckResult['outcome']): number => list.filter((r) => r.outcome === o).length;
  const timestamp = report.meta.startedAt.replace(/\.\d+Z$/, '');
  const suites = [...areas.entries()].map(([area, list]) => {
    const time = list.reduce((s, r) => s + r.durationMs, 0);
    return [
      `  <testsuite name="${xmlEscape(area)}" tests="${list.length}" failures="${count(list, 'FAIL')}" errors="${count(list, 'ERROR')}" skipped="${count(list, 'SKIPPED')}" time="${secs(time)}" timestamp="${timestamp}">`,
      ...list.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  const rows = clauseRows(catalog, report);
  const cov = coverage(rows);
  const table = [
    `Clause coverage: ${cov.covered}/${cov.checkable} checkable clauses have checks; ${cov.exercised}/${cov.checkable} exercised in this run; ${cov.internal} not checkable over HTTP.`,
    '',
    ...cov.byArea.map(
      (a) => `${a.area.padEnd(14)} covered ${a.covered}/${a.checkable}  exercised ${a.exercised}  pass ${a.pass}  fail ${a.fail}`,
    ),
    '',
    ...rows.map((r) => `${r.status.padEnd(13)} ${r.id}`),
  ].join('\n');
  suites.push(
    [
      `  <testsuite name="clause-coverage" tests="0" failures="0" errors="0" skipped="0" time="0" timestamp="${timestamp}">`,
      '    <properties>',
      `      <property name="coverage.checkable" value="${cov.checkable}"/>`,
      `      <property name="coverage.covered" value="${cov.covered}"/>`,
      `      <property name="coverage.exercised" value="${cov.exercised}"/>`,
      ...rows.map((r) => `      <property name="clause:${xmlEscape(r.id)}" value="${r.status}"/>`),
      '    </properties>',
      `    <system-out>${xmlEscape(table)}</system-out>`,
      '  </testsuite>',
    ].join('\n'),
  );
  const all = report.results;
  const total = all.reduce((s, r) => s + r.durationMs, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(`${report.meta.suite} ${report.meta.suiteVersion} against ${report.meta.target.baseUrl}`)}" tests="${all.length}" failures="${count(all, 'FAIL')}" errors="${count(all, 'ERROR')}" skipped="${count(all, 'SKIPPED')}" time="${secs(total)}" timestamp="${timestamp}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
