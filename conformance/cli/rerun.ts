/**
 * --rerun-failed REPORT: exactly the checks that FAILed or ERRORed in an
 * earlier JSON report (its folder or its index.json), with that run's seed,
 * runs and target, so a fix is confirmed without the whole suite again.
 */
import { basename, dirname } from 'node:path';
import { UsageError } from '../gate.ts';
import { readJsonReport } from '../reporters/json.ts';
import { isFailing } from '../runner/result.ts';

export interface Rerun {
  /** The ids of the checks that FAILed or ERRORed (exact ids, never prefixes). */
  ids: string[];
  seed: number;
  runs: number;
  baseUrl: string;
}

export function readRerun(path: string): Rerun {
  const dir = basename(path) === 'index.json' ? dirname(path) : path;
  let report;
  try {
    report = readJsonReport(dir);
  } catch (err) {
    throw new UsageError(`--rerun-failed: ${dir} is not a report written with --json: ${(err as Error).message}`);
  }
  return {
    ids: report.results.filter((r) => isFailing(r.outcome)).map((r) => r.id),
    seed: report.meta.seed,
    runs: report.meta.runs,
    baseUrl: report.meta.target.baseUrl,
  };
}
