#!/usr/bin/env node
/**
 * Mutation testing of the suite: runs each mutant (a proxy that breaks one
 * rule in front of a conforming target) and the checks that must catch it.
 * A mutant is KILLED when every named check gives the named outcome, and
 * SURVIVED otherwise: a hole in the suite. The identity mutant runs every
 * check through the proxy and must change no outcome.
 *
 *   node conformance/mutants/run.ts --base-url URL --control-url URL --control-secret S [--only NAME,...] [--shard K/N]
 *
 * --shard K/N keeps the K-th of N deterministic parts of the mutants (by a
 * hash of the mutant's name). Exit 1 when a mutant survived.
 */
import { parseArgs } from 'node:util';
import { loadChecks } from '../runner/registry.ts';
import { runChecks } from '../runner/run.ts';
import { openSession } from '../runner/session.ts';
import type { Outcome } from '../runner/result.ts';
import { inShard, parseShard } from '../runner/shard.ts';
import type { Shard } from '../runner/shard.ts';
import { MUTANTS } from './catalog.ts';
import type { Mutant } from './proxy.ts';
import { judge } from '../cli/expected-failures.ts';
import type { ExpectedFailures } from '../cli/expected-failures.ts';
import { startProxy } from './proxy.ts';

/** An --expected-failures file with no entry: a mutant's FAILs must fail the run all the same. */
const NO_EXPECTED_FAILURES: ExpectedFailures = { file: '(an empty file)', entries: [] };

export interface MutantTarget {
  baseUrl: string;
  controlUrl?: string;
  controlSecret?: string;
  seed?: number;
  runs?: number;
}

export interface MutantVerdict {
  name: string;
  killed: boolean;
  /** Why it survived: a check that gave another outcome than the named one. */
  wrong: string[];
  durationMs: number;
}

/** The mutants named in `only` (all when empty), then the K-th of N parts by a hash of the name. */
export function selectMutants(only: readonly string[], shard?: Shard, includeIdentity = true): Mutant[] {
  const unknown = only.filter((n) => !MUTANTS.some((m) => m.name === n));
  if (unknown.length > 0) throw new Error(`no such mutant: ${unknown.join(', ')}`);
  const picked = MUTANTS.filter((m) => (only.length === 0 ? includeIdentity || Object.keys(m.expect).length > 0 : only.includes(m.name)));
  return inShard(
    picked.map((m) => ({ id: m.name, m })),
    shard,
  ).map((x) => x.m);
}

/** Runs each mutant's named checks through its proxy; writes one line per mutant. */
export async function runMutants(
  target: MutantTarget,
  mutants: readonly Mutant[],
  write: (line: string) => void = (l) => process.stdout.write(l),
): Promise<MutantVerdict[]> {
  const loaded = await loadChecks();
  const baseline = new Map<string, Outcome>();
  const verdicts: MutantVerdict[] = [];
  for (const mutant of mutants) {
    const started = Date.now();
    const control =
      target.controlUrl !== undefined && target.controlSecret !== undefined
        ? { url: target.controlUrl, secret: target.controlSecret }
        : undefined;
    const proxy = await startProxy(target.baseUrl, mutant, control);
    try {
      const session = await openSession({
        baseUrl: proxy.url,
        ...(target.controlUrl === undefined ? {} : { controlUrl: target.controlUrl }),
        ...(target.controlSecret === undefined ? {} : { controlSecret: target.controlSecret }),
        seed: target.seed ?? 1,
        runs: target.runs ?? 20,
        slow: false,
        fresh: false,
        requestTimeoutMs: 15_000,
      });
      const ids = Object.keys(mutant.expect);
      const checks = ids.length === 0 ? loaded.checks.filter((c) => c.order !== 'first') : loaded.checks.filter((c) => ids.includes(c.id));
      const missing = ids.filter((id) => !loaded.checks.some((c) => c.id === id));
      const results = await runChecks(checks, session, { retry: false });
      await session.close();
      const wrong: string[] = missing.map((id) => `${id}: no such check`);
      if (ids.length === 0) {
        for (const r of results) {
          const before = baseline.get(r.id);
          if (r.outcome === 'FAIL' || r.outcome === 'ERROR')
            wrong.push(`${r.id}: ${r.outcome} through the transparent proxy (${r.failures[0]?.what ?? r.error?.message ?? ''})`);
          if (before !== undefined && before !== r.outcome) wrong.push(`${r.id}: ${before} → ${r.outcome}`);
        }
      } else {
        for (const r of results) {
          const want = mutant.expect[r.id]!;
          if (r.outcome !== want) wrong.push(`${r.id}: ${r.outcome}, expected ${want}`);
        }
        // Killed also under --expected-failures with an empty file: each FAIL must fail the run there too.
        const unexpected = new Set(judge(NO_EXPECTED_FAILURES, results).unexpected.map((r) => r.id));
        for (const r of results)
          if (mutant.expect[r.id] === 'FAIL' && r.outcome === 'FAIL' && !unexpected.has(r.id))
            wrong.push(`${r.id}: its FAIL does not fail a run with an empty --expected-failures file`);
      }
      const killed = wrong.length === 0;
      const durationMs = Date.now() - started;
      verdicts.push({ name: mutant.name, killed, wrong, durationMs });
      write(
        `${killed ? 'KILLED  ' : 'SURVIVED'} ${mutant.name.padEnd(32)} ${`${(durationMs / 1000).toFixed(1)} s`.padStart(7)}  ${mutant.description}${killed ? '' : `\n         ${wrong.join('\n         ')}`}\n`,
      );
    } finally {
      await proxy.close();
    }
  }
  return verdicts;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      'control-url': { type: 'string' },
      'control-secret': { type: 'string' },
      only: { type: 'string' },
      shard: { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
    },
  });
  if (values['base-url'] === undefined) {
    process.stderr.write(
      'usage: node conformance/mutants/run.ts --base-url URL [--control-url URL --control-secret S] [--only NAME,...] [--shard K/N]\n',
    );
    return 2;
  }
  const only =
    values.only
      ?.split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '') ?? [];
  const mutants = selectMutants(only, values.shard === undefined ? undefined : parseShard(values.shard));
  const verdicts = await runMutants(
    {
      baseUrl: values['base-url'],
      ...(values['control-url'] === undefined ? {} : { controlUrl: values['control-url'] }),
      ...(values['control-secret'] === undefined ? {} : { controlSecret: values['control-secret'] }),
      seed: Number(values.seed ?? 1),
      runs: Number(values.runs ?? 20),
    },
    mutants,
  );
  const killed = verdicts.filter((v) => v.killed).length;
  process.stdout.write(`\n${killed}/${verdicts.length} mutants killed\n`);
  return killed < verdicts.length ? 1 : 0;
}

if (import.meta.main) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`mutants: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
