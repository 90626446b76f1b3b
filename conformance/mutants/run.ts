#!/usr/bin/env node
/**
 * Mutation testing of the suite: runs each mutant (a proxy that breaks one
 * rule in front of a conforming target) and the checks that must catch it.
 * A mutant is KILLED when every named check gives the named outcome, and
 * SURVIVED otherwise: a hole in the suite. The identity mutant runs every
 * check through the proxy and must change no outcome.
 *
 *   node conformance/mutants/run.ts --base-url URL --control-url URL --control-secret S [--only NAME,...]
 *
 * Exit 1 when a mutant survived.
 */
import { parseArgs } from 'node:util';
import { loadChecks } from '../runner/registry.ts';
import { openSession, runChecks } from '../runner/run.ts';
import type { Outcome } from '../runner/result.ts';
import { MUTANTS } from './catalog.ts';
import { startProxy } from './proxy.ts';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      'control-url': { type: 'string' },
      'control-secret': { type: 'string' },
      only: { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
    },
  });
  if (values['base-url'] === undefined) {
    process.stderr.write('usage: node conformance/mutants/run.ts --base-url URL [--control-url URL --control-secret S] [--only NAME,...]\n');
    return 2;
  }
  const loaded = await loadChecks();
  const only = values.only?.split(',').map((s) => s.trim()) ?? [];
  const mutants = MUTANTS.filter((m) => only.length === 0 || only.includes(m.name));
  const baseline = new Map<string, Outcome>();
  let survived = 0;
  for (const mutant of mutants) {
    const proxy = await startProxy(values['base-url'], mutant);
    try {
      const session = await openSession({
        baseUrl: proxy.url,
        ...(values['control-url'] === undefined ? {} : { controlUrl: values['control-url'] }),
        ...(values['control-secret'] === undefined ? {} : { controlSecret: values['control-secret'] }),
        seed: Number(values.seed ?? 1),
        runs: Number(values.runs ?? 20),
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
          if (r.outcome === 'FAIL' || r.outcome === 'ERROR') wrong.push(`${r.id}: ${r.outcome} through the transparent proxy (${r.failures[0]?.what ?? r.error?.message ?? ''})`);
          if (before !== undefined && before !== r.outcome) wrong.push(`${r.id}: ${before} → ${r.outcome}`);
        }
      } else {
        for (const r of results) {
          const want = mutant.expect[r.id]!;
          if (r.outcome !== want) wrong.push(`${r.id}: ${r.outcome}, expected ${want}`);
        }
      }
      const killed = wrong.length === 0;
      if (!killed) survived += 1;
      process.stdout.write(`${killed ? 'KILLED  ' : 'SURVIVED'} ${mutant.name.padEnd(32)} ${mutant.description}${killed ? '' : `\n         ${wrong.join('\n         ')}`}\n`);
    } finally {
      await proxy.close();
    }
  }
  process.stdout.write(`\n${mutants.length - survived}/${mutants.length} mutants killed\n`);
  return survived > 0 ? 1 : 0;
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
