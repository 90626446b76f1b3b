/**
 * Builds the installable copy of the conformance suite into conformance/dist/,
 * the folder the workspace package `mas-conformance` (conformance/package.json)
 * ships. Run by `npm run build:conformance` at the root and by `npm pack -w
 * mas-conformance` through the package's prepack.
 *
 * Node does not strip types from files under node_modules, so an installed
 * package cannot run conformance/cli.ts; it runs dist/conformance/cli.js.
 * conformance/dist/ mirrors the repository's layout for everything the suite
 * touches at run time: tsc emits conformance/ and the simulator modules it
 * imports, and this script copies the data files next to them. Every lookup
 * relative to import.meta (catalog.ts → clauses.json, runner/registry.ts →
 * checks/, simulator/scripts/load-script.ts → fixtures/meetings/) then finds
 * the same relative path in both layouts, with no "am I installed?" logic
 * (docs/decisions/021-conformance-package.md, 056-conformance-workspace-package.md).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
/** The package's own folder (conformance/, a workspace of the root package.json). */
export const PACKAGE_DIR = path.join(ROOT, 'conformance');
export const DIST = path.join(PACKAGE_DIR, 'dist');

/** Data the suite reads at run time, relative to the repository root; copied to the same place under dist/. */
export const RUNTIME_DATA = ['conformance/clauses.json', 'conformance/audio', 'fixtures/meetings'] as const;

export function buildPackage(): void {
  // A clean folder: a check deleted from the sources must not linger as a stale .check.js the registry would load.
  rmSync(DIST, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(PACKAGE_DIR, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`tsc -p conformance/tsconfig.build.json failed (exit ${result.status ?? result.signal})`);
  for (const rel of RUNTIME_DATA) {
    const to = path.join(DIST, rel);
    mkdirSync(path.dirname(to), { recursive: true });
    // Folders, .json and audio files only: the data, not the scripts or anything a local run left beside them.
    cpSync(path.join(ROOT, rel), to, { recursive: true, filter: (src) => path.extname(src) === '' || /\.(json|wav|mp3)$/.test(src) });
  }
  // npm packs a LICENSE only from the package's own folder; the repository's one lives at the root.
  cpSync(path.join(ROOT, 'LICENSE'), path.join(DIST, 'LICENSE'));
}

if (import.meta.main) {
  buildPackage();
  const checks = (readdirSync(path.join(DIST, 'conformance', 'checks'), { recursive: true }) as string[]).filter((f) =>
    f.endsWith('.check.js'),
  );
  process.stdout.write(`conformance/dist/: ${checks.length} checks built, data copied: ${RUNTIME_DATA.join(', ')}\n`);
}
