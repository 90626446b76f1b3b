/**
 * Request bodies beside a JSON report: a failure whose curl line leaves its
 * body out (a binary body too large to carry inline, harness/curl.ts) gets the
 * bytes written to DIR/bodies/<area>/<behaviour>-<exchange seq>.bin and its
 * curl line reading that file, so the line works as printed. The bytes then
 * leave the result (they are in the file).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { withBodyFile } from '../harness/curl.ts';
import type { Failure, RunReport } from '../runner/result.ts';

/** Where the body of a check's exchange goes, under a JSON report's folder. */
function bodyPath(dir: string, checkId: string, seq: number): string {
  return join(dir, 'bodies', `${checkId}-${seq}.bin`);
}

/** Writes the bodies the failures hold; returns the report with their curl lines naming the files. */
export function writeRequestBodies(dir: string, report: RunReport): RunReport {
  const results = report.results.map((r) => {
    const place = (f: Failure): Failure => {
      const { requestBody, ...rest } = f;
      if (requestBody === undefined || f.exchange === undefined || f.curl === undefined) return rest;
      const file = bodyPath(dir, r.id, f.exchange);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, Buffer.from(requestBody, 'base64'));
      return { ...rest, curl: withBodyFile(f.curl, file) };
    };
    const failures = r.failures.map(place);
    return { ...r, failures, ...(r.retry === undefined ? {} : { retry: { ...r.retry, failures: r.retry.failures.map(place) } }) };
  });
  return { ...report, results };
}

/** Drops the bodies held for files (no JSON report is written: the curl lines say the body is omitted). */
export function dropRequestBodies(report: RunReport): RunReport {
  const drop = (f: Failure): Failure => {
    const { requestBody: _body, ...rest } = f;
    return rest;
  };
  return {
    ...report,
    results: report.results.map((r) => ({
      ...r,
      failures: r.failures.map(drop),
      ...(r.retry === undefined ? {} : { retry: { ...r.retry, failures: r.retry.failures.map(drop) } }),
    })),
  };
}
