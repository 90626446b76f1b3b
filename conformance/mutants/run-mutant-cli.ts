#!/usr/bin/env node
/**
 * What an implementer sees when a rule is broken: starts the reference
 * gateway (reference.ts), puts one mutant's proxy in front of it and runs the
 * suite's command line against the proxy with the checks the mutant names
 * and any further options (reports, --reporter github, ...). Exits with the
 * command line's status (1 when the mutant is caught).
 *
 *   node conformance/mutants/run-mutant-cli.ts --mutant=NAME [cli options...]
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startReference } from '../reference.ts';
import { MUTANTS } from './catalog.ts';
import { startProxy } from './proxy.ts';

async function main(argv: string[]): Promise<number> {
  const name = argv.find((a) => a.startsWith('--mutant='))?.slice('--mutant='.length);
  const mutant = MUTANTS.find((m) => m.name === name);
  if (mutant === undefined) {
    process.stderr.write(
      `usage: node conformance/mutants/run-mutant-cli.ts --mutant=NAME [cli options...] (NAME from mutants/catalog.ts)\n`,
    );
    return 2;
  }
  const ref = await startReference();
  const proxy = await startProxy(ref.baseUrl, mutant, { url: ref.controlUrl, secret: ref.controlSecret });
  try {
    const args = [
      join(import.meta.dirname, '..', 'cli.ts'),
      `--base-url=${proxy.url}`,
      `--control-url=${ref.controlUrl}`,
      // The secret is generated and may begin with '-': one argument with its name.
      `--control-secret=${ref.controlSecret}`,
      `--only=${Object.keys(mutant.expect).join(',')}`,
      ...argv.filter((a) => !a.startsWith('--mutant=')),
    ];
    process.stdout.write(`mutant ${mutant.name}: ${mutant.description}\n`);
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    await proxy.close();
    await ref.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
