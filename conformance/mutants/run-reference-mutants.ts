#!/usr/bin/env node
/**
 * The CI self-test of the suite: starts the reference gateway as a process
 * (reference.ts: free loopback ports, a temporary data folder, the
 * Automation API on, a generated control secret; never imported) and runs
 * every mutant of the catalog in front of it, each with only the checks it
 * names. Prints one line per mutant and "mutants: N killed of M"; exits 1
 * unless every mutant is killed and the catalog holds at least 40 of them.
 *
 *   node conformance/mutants/run-reference-mutants.ts [--shard K/N] [--only NAME,...] [--identity] [--seed N]
 *
 * --shard K/N: the K-th of N deterministic parts (by a hash of the mutant's
 *   name), for parallel CI jobs; the N parts together hold every mutant once.
 * --identity: also run the identity mutant (every check through a proxy
 *   that changes nothing; as long as a full conformance run).
 */
import { parseArgs } from 'node:util';
import { startReference } from '../reference.ts';
import { inShard, parseShard } from '../runner/shard.ts';
import { MUTANTS } from './catalog.ts';
import { runMutants, selectMutants } from './run.ts';

/** The least number of mutants (the identity one aside) the catalog must hold. */
const MIN_MUTANTS = 40;

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      shard: { type: 'string' },
      only: { type: 'string' },
      identity: { type: 'boolean', default: false },
      seed: { type: 'string' },
      runs: { type: 'string' },
    },
  });
  const started = Date.now();
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  const only =
    values.only
      ?.split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '') ?? [];
  const mutants = selectMutants(only, shard, values.identity);
  const catalogSize = MUTANTS.filter((m) => Object.keys(m.expect).length > 0).length;
  const ref = await startReference();
  let verdicts;
  try {
    process.stdout.write(
      `reference gateway pid ${ref.pid} at ${ref.baseUrl}; ${mutants.length} mutants${shard === undefined ? '' : ` (shard ${shard.index}/${shard.count})`} of ${catalogSize} in the catalog\n`,
    );
    verdicts = await runMutants(
      {
        baseUrl: ref.baseUrl,
        controlUrl: ref.controlUrl,
        controlSecret: ref.controlSecret,
        seed: Number(values.seed ?? 1),
        runs: Number(values.runs ?? 20),
      },
      mutants,
    );
  } finally {
    await ref.stop();
  }
  const killed = verdicts.filter((v) => v.killed);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `\nmutants: ${killed.length} killed of ${verdicts.length}${shard === undefined ? '' : ` (shard ${shard.index}/${shard.count})`} in ${seconds} s (gateway stopped)\n`,
  );
  const problems: string[] = [];
  for (const v of verdicts.filter((x) => !x.killed)) problems.push(`survived: ${v.name}`);
  if (catalogSize < MIN_MUTANTS) problems.push(`the catalog holds ${catalogSize} mutants, fewer than ${MIN_MUTANTS}`);
  // A full (unfiltered, unsharded) run must have run the whole catalog.
  if (only.length === 0 && shard === undefined && verdicts.filter((v) => v.name !== 'identity').length < MIN_MUTANTS)
    problems.push(`only ${verdicts.length} mutants ran, fewer than ${MIN_MUTANTS}`);
  if (
    only.length === 0 &&
    shard !== undefined &&
    inShard(
      MUTANTS.map((m) => ({ id: m.name })),
      shard,
    ).length === 0
  )
    problems.push(`shard ${shard.index}/${shard.count} holds no mutant`);
  for (const p of problems) process.stdout.write(`mutants: ${p}\n`);
  return problems.length > 0 ? 1 : 0;
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`run-reference-mutants: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
