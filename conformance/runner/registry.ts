/**
 * Finds the checks: every checks/<area>/<behaviour>.check.ts exports `check`
 * (.check.js in the compiled copy an installed package runs, dist/conformance/).
 * Adding a behaviour is adding a file; nothing else lists them. A file that
 * fails to load becomes an ERROR result of its own, so one broken check does
 * not take the suite down.
 *
 * The release bundle (conformance/release/build.ts) has no check files to
 * list: its entry imports every one of them and hands the modules over with
 * `useBundledChecks` before the command line runs.
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Check } from '../harness/check.ts';

const CHECKS_DIR = join(import.meta.dirname, '..', 'checks');
/** A check file: TypeScript in the checkout, JavaScript in the built package (docs/decisions/021-conformance-package.md). */
const CHECK_FILE = /\.check\.[tj]s$/;

export interface LoadedChecks {
  checks: Check[];
  /** Files that did not load or export a check. */
  broken: Array<{ id: string; file: string; error: string }>;
  /** check id → file (relative to the repository's conformance/ folder). */
  files: Map<string, string>;
}

export function checkFiles(dir = CHECKS_DIR): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => CHECK_FILE.test(f))
    .map((f) => join(dir, f))
    .sort();
}

function looksLikeCheck(value: unknown): value is Check {
  const c = value as Partial<Check> | undefined;
  return c !== undefined && typeof c.id === 'string' && Array.isArray(c.clauses) && typeof c.run === 'function';
}

/** A check module the bundle imported, with its file relative to conformance/ (checks/health/no-auth.check.ts). */
export interface BundledCheck {
  file: string;
  module: { check?: unknown };
}

let bundled: readonly BundledCheck[] | undefined;

/** Called by the release bundle's entry: loadChecks then takes these modules instead of reading checks/. */
export function useBundledChecks(modules: readonly BundledCheck[]): void {
  bundled = modules;
}

export async function loadChecks(dir = CHECKS_DIR): Promise<LoadedChecks> {
  const checks: Check[] = [];
  const broken: LoadedChecks['broken'] = [];
  const files = new Map<string, string>();
  const sources = bundled ?? checkFiles(dir).map((file) => ({ file: relative(join(dir, '..'), file).split(sep).join('/'), path: file }));
  for (const source of sources) {
    const rel = source.file;
    const id = rel.replace(/^checks\//, '').replace(CHECK_FILE, '');
    try {
      const mod = 'module' in source ? source.module : ((await import(pathToFileURL(source.path).href)) as { check?: unknown });
      if (!looksLikeCheck(mod.check)) throw new Error('the file does not export `check` (use defineCheck)');
      checks.push(mod.check);
      files.set(mod.check.id, rel);
    } catch (err) {
      broken.push({ id, file: rel, error: (err as Error).stack ?? String(err) });
    }
  }
  checks.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { checks, broken, files };
}
