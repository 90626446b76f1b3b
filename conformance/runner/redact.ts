/**
 * Redaction of a run's results just before they are written or printed
 * (harness/secrets.ts says why it never happens earlier). Only the fields
 * that carry what the target or the operator sent are redacted: exchanges,
 * the Actual/Expected texts, notes, errors. The names the suite chose (check
 * ids, clause ids, outcomes, requirements) are left alone, so a short secret
 * such as `id` cannot rename a clause in the report.
 */
import type { Secrets } from '../harness/secrets.ts';
import type { CheckResult, Failure, Observation, RunReport } from './result.ts';

function failure(f: Failure, s: Secrets): Failure {
  return {
    ...f,
    what: s.redact(f.what),
    expected: f.expected.map((e) => s.redact(e)),
    actual: s.redact(f.actual),
    ...(f.curl === undefined ? {} : { curl: s.redact(f.curl) }),
    ...(f.property === undefined ? {} : { property: s.redactDeep(f.property) }),
    ...(f.exchanges === undefined ? {} : { exchanges: s.redactDeep(f.exchanges) }),
  };
}

function observation(o: Observation, s: Secrets): Observation {
  return { ...o, what: s.redact(o.what), actual: s.redact(o.actual), ...(o.curl === undefined ? {} : { curl: s.redact(o.curl) }) };
}

export function redactResult(r: CheckResult, s: Secrets): CheckResult {
  if (s.size === 0) return r;
  return {
    ...r,
    failures: r.failures.map((f) => failure(f, s)),
    observations: r.observations.map((o) => observation(o, s)),
    notes: r.notes.map((n) => s.redact(n)),
    ...(r.skipReason === undefined ? {} : { skipReason: s.redact(r.skipReason) }),
    ...(r.error === undefined ? {} : { error: s.redactDeep(r.error) }),
    properties: s.redactDeep(r.properties),
    exchanges: s.redactDeep(r.exchanges),
    deliveries: s.redactDeep(r.deliveries),
    ...(r.retry === undefined
      ? {}
      : {
          retry: {
            ...r.retry,
            failures: r.retry.failures.map((f) => failure(f, s)),
            ...(r.retry.error === undefined ? {} : { error: { message: s.redact(r.retry.error.message) } }),
          },
        }),
  };
}

export function redactReport(report: RunReport, s: Secrets): RunReport {
  if (s.size === 0) return report;
  return { ...report, results: report.results.map((r) => redactResult(r, s)) };
}
