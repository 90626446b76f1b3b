/** Plain-text pieces shared by the reporters: a failure as h2spec prints it. */
import type { CheckResult, Failure, Observation } from '../runner/result.ts';

/** Long values are cut in text reports (the JSON report keeps them whole). */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters in all)`;
}

export function failureText(f: Failure, indent = ''): string {
  const lines = [
    `Clause: ${f.clause}${f.severity === 'non_strict' ? ' (NON_STRICT: a documented alternative the spec did not choose)' : ''}`,
    `Requirement: "${f.requirement}"`,
    `What: ${clip(f.what, 400)}`,
    'Expected:',
    ...f.expected.map((e) => `  - ${e}`),
    'Actual:',
    `  ${f.actual}`,
  ];
  if (f.alternative !== undefined) lines.push(`Alternative observed: ${f.alternative}`);
  if (f.property !== undefined) {
    const p = f.property;
    lines.push(
      `Property: "${p.name}" seed ${p.seed}${p.path === undefined ? '' : ` path "${clip(p.path, 120)}"`} after ${p.numRuns} runs, ${p.shrinks ?? 0} shrinks`,
    );
    if (p.counterexample !== undefined) lines.push(`Counterexample: ${clip(p.counterexample, 400)}`);
    if (p.replay !== undefined) lines.push(`Replay: ${p.replay}`);
  }
  if (f.curl !== undefined)
    lines.push(`curl${f.lastExchange === true ? " (the check's last request: the verdict names none)" : ''}: ${f.curl}`);
  return lines.map((l) => indent + l).join('\n');
}

export function observationText(o: Observation): string {
  return `[${o.clause}] ${o.what}: ${o.actual}${o.curl === undefined ? '' : `\n    curl: ${o.curl}`}`;
}

export function resultText(r: CheckResult): string {
  const parts: string[] = [];
  if (r.skipReason !== undefined) parts.push(`Skipped: ${r.skipReason}`);
  if (r.error !== undefined) {
    parts.push(`Error: ${r.error.message}`);
    if (r.error.curl !== undefined) parts.push(`curl: ${r.error.curl}`);
    if (r.error.stack !== undefined) parts.push(r.error.stack);
  }
  for (const f of r.failures) parts.push(failureText(f));
  if (r.retry !== undefined)
    parts.push(`Second run: ${r.retry.outcome}${r.retry.error === undefined ? '' : ` (${r.retry.error.message})`}`);
  if (r.observations.length > 0) parts.push(['Observations:', ...r.observations.map((o) => `  ${observationText(o)}`)].join('\n'));
  if (r.notes.length > 0) parts.push(['Notes:', ...r.notes.map((n) => `  ${n}`)].join('\n'));
  return parts.join('\n\n');
}
