/**
 * The release bundle's program, loaded by entry.ts once the Node version is
 * known to be supported: hands the bundled checks and data to the suite
 * (bundled.ts is filled in by build.ts), says how the suite was started for
 * the hints it prints, and runs the same command line as conformance/cli.ts.
 */
import path from 'node:path';
import { runCommandLine } from '../cli.ts';
import { setInvocation } from '../gate.ts';
import { useBundledChecks } from '../runner/registry.ts';
import { embedShippedFiles } from '../shipped.ts';
import { bundledChecks, bundledFiles } from './bundled.ts';

/** How a user started this copy, for the "Replay one check:" and usage lines. */
async function howStarted(): Promise<string> {
  try {
    // node:sea is imported here, not at the top: the module is newer than some Node lines the bundle must load on.
    const sea = await import('node:sea');
    if (sea.isSea()) return process.argv0;
  } catch {
    // No node:sea: not a single executable.
  }
  if (process.env.npm_command === 'exec' || process.env.npm_lifecycle_event === 'npx') return 'npx mas-conformance';
  const script = process.argv[1];
  return script === undefined ? 'mas-conformance' : `node ${path.relative(process.cwd(), script) || script}`;
}

export async function start(): Promise<void> {
  embedShippedFiles(bundledFiles);
  useBundledChecks(bundledChecks);
  setInvocation(await howStarted());
  runCommandLine(process.argv.slice(2));
}
