/**
 * GitHub Actions workflow commands: one annotation per check that did not
 * pass cleanly, on the check's source file, so a pull request shows them
 * inline (`--reporter github`). FAIL and ERROR are errors; FLAKY and
 * NON_STRICT warnings; SKIPPED a notice with the missing precondition.
 */
import type { CheckResult, Coverage } from '../runner/result.ts';

/** Escapes the message part of a workflow command. */
function data(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a property value (file, title) of a workflow command. */
function property(text: string): string {
  return data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function annotation(level: 'error' | 'warning' | 'notice', file: string, title: string, message: string): string {
  return `::${level} file=${property(file)},title=${property(title)}::${data(message)}\n`;
}

export function githubAnnotations(results: readonly CheckResult[], cov: Coverage, checksRoot = 'conformance/checks'): string {
  let out = '';
  for (const r of results) {
    const file = `${checksRoot}/${r.id}.check.ts`;
    const first = r.failures[0];
    const detail =
      first === undefined
        ? ''
        : `${first.clause}: ${first.what}\nExpected: ${first.expected.join(' or ')}\nActual: ${first.actual}${first.curl === undefined ? '' : `\n${first.curl}`}`;
    if (r.outcome === 'FAIL') out += annotation('error', file, `FAIL ${r.id}`, detail || r.description);
    else if (r.outcome === 'ERROR')
      out += annotation('error', file, `ERROR ${r.id}`, r.error?.message ?? 'the harness could not carry the check out');
    else if (r.outcome === 'FLAKY')
      out += annotation('warning', file, `FLAKY ${r.id}`, `failed, then passed when run once more\n${detail}`);
    else if (r.outcome === 'NON_STRICT') out += annotation('warning', file, `NON_STRICT ${r.id}`, detail);
    else if (r.outcome === 'SKIPPED') out += annotation('notice', file, `SKIPPED ${r.id}`, r.skipReason ?? '');
  }
  out += `::notice title=${property('clause coverage')}::${data(`${cov.exercised} of ${cov.checkable} checkable clauses exercised, ${cov.covered} covered by a check`)}\n`;
  return out;
}
