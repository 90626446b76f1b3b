#!/usr/bin/env node
/**
 * The `mas` bin. In a checkout: `npm run mas -- <command>` (Node 24 runs this
 * file directly); installed from the package: dist/cli/mas.js, compiled like
 * the mas-conformance bin (docs/decisions/021-conformance-package.md).
 * Everything else is in program.ts.
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { main } from './program.ts';

/** The version of the package this file belongs to, found by walking up (the checkout and dist/ differ in depth). */
function packageVersion(): string {
  let dir = import.meta.dirname;
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'meeting-automation-service' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: keep walking up
    }
    const up = path.dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

const MIN_NODE = [24, 2] as const;

function nodeTooOld(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]);
}

function isEntryScript(argv1: string | undefined): boolean {
  if (argv1 === undefined) return false;
  try {
    return realpathSync(argv1) === realpathSync(import.meta.filename); // an npm bin is a symlink
  } catch {
    return false;
  }
}

// import.meta.main is undefined before Node 24.2, so an older Node would do nothing at all;
// the process.argv comparison catches that case and says why instead.
const invokedDirectly = (import.meta.main as boolean | undefined) ?? isEntryScript(process.argv[1]);

if (invokedDirectly && nodeTooOld(process.version)) {
  process.stderr.write(`mas: Node ${MIN_NODE.join('.')} or later is needed; this is ${process.version}\n`);
  process.exitCode = 3;
} else if (invokedDirectly) {
  // Ctrl+C aborts what is in flight (an upload stops and imports nothing); a second one ends at once.
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    interrupt.abort();
    process.once('SIGINT', () => process.exit(130));
  });
  main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: interrupt.signal,
    version: packageVersion(),
  }).then(
    (code) => {
      // Nothing is left to do: end once stdout has taken the last line, without waiting for idle sockets or stdin.
      process.stdout.write('', () => process.exit(code));
    },
    (err: unknown) => {
      process.stderr.write(`mas: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(3);
    },
  );
}
