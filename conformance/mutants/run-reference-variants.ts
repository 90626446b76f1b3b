#!/usr/bin/env node
/**
 * The other half of the suite's self-test: starts the reference gateway as a
 * process (reference.ts) and runs the WHOLE non-slow suite through each
 * conforming variant (variants.ts: a proxy in front of it, or a setting of the
 * suite's receiver), --jobs 4 like the CI run. A variant is a target that
 * conforms differently; any FAIL or ERROR against one is a false verdict of
 * the suite. Prints one line per variant with its outcome counts and the
 * checks that failed; exits 1 when any check FAILed or ERRORed.
 *
 *   node conformance/mutants/run-reference-variants.ts [--only NAME,...] [--slow] [--jobs N] [--parallel N] [--seed N] [--checks ID,...]
 *
 * --slow: also the variants marked slow (npm test runs them all). --parallel N:
 * N gateways side by side, the variants shared among them (default 2).
 * --checks: only these checks (ids or prefixes), to look at one verdict again,
 * with the reason of every SKIPPED one; CI runs them all.
 */
import { parseArgs } from 'node:util';
import { startReference } from '../reference.ts';
import { loadChecks } from '../runner/registry.ts';
import type { CheckResult } from '../runner/result.ts';
import { runChecks } from '../runner/run.ts';
import { openSession } from '../runner/session.ts';
import { startProxy } from './proxy.ts';
import { VARIANTS } from './variants.ts';
import type { Variant } from './variants.ts';

export interface VariantVerdict {
  name: string;
  counts: Record<string, number>;
  /** "check-id OUTCOME: what" of every FAIL and ERROR. */
  wrong: string[];
  /** "check-id: why" of every SKIPPED check (printed for a run of chosen --checks). */
  skipped: string[];
  /** "check-id: what" of every FLAKY check (its first attempt FAILed or ERRORed, its retry did not): always printed. */
  flaky: string[];
  durationMs: number;
}

function countOutcomes(results: readonly CheckResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  return counts;
}

async function runVariant(
  target: { baseUrl: string; controlUrl: string; controlSecret: string },
  variant: Variant,
  options: { seed: number; runs: number; jobs: number; checks: readonly string[] },
): Promise<VariantVerdict> {
  const started = Date.now();
  const loaded = await loadChecks();
  const control = { url: target.controlUrl, secret: target.controlSecret };
  const proxy = await startProxy(target.baseUrl, { ...variant, expect: {} }, control);
  try {
    const session = await openSession({
      baseUrl: proxy.url,
      controlUrl: target.controlUrl,
      controlSecret: target.controlSecret,
      seed: options.seed,
      runs: options.runs,
      slow: false,
      fresh: false,
      requestTimeoutMs: 15_000,
      ...(variant.session?.receiverAnswerDelayMs === undefined ? {} : { receiverAnswerDelayMs: variant.session.receiverAnswerDelayMs }),
      ...(variant.session?.receiverArrivalDelayMs === undefined ? {} : { receiverArrivalDelayMs: variant.session.receiverArrivalDelayMs }),
    });
    const chosen =
      options.checks.length === 0
        ? loaded.checks
        : loaded.checks.filter((c) => options.checks.some((p) => c.id === p || (p.endsWith('/') && c.id.startsWith(p))));
    let results: CheckResult[];
    try {
      // A retry as in a normal run: a false verdict that a second attempt would not repeat is FLAKY, not FAIL.
      results = await runChecks(chosen, session, { retry: true, jobs: options.jobs });
    } finally {
      await session.close();
    }
    const firstFailure = (r: CheckResult): string =>
      `${r.id} ${r.outcome}: ${r.failures[0]?.what ?? r.error?.message ?? ''} ${r.failures[0] === undefined ? '' : JSON.stringify(r.failures[0].actual ?? '')}`.slice(
        0,
        400,
      );
    const wrong = results.filter((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR').map(firstFailure);
    const skipped = results.filter((r) => r.outcome === 'SKIPPED').map((r) => `${r.id}: ${r.skipReason ?? ''}`);
    const flaky = results.filter((r) => r.outcome === 'FLAKY').map(firstFailure);
    return { name: variant.name, counts: countOutcomes(results), wrong, skipped, flaky, durationMs: Date.now() - started };
  } finally {
    await proxy.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      slow: { type: 'boolean', default: false },
      jobs: { type: 'string' },
      seed: { type: 'string' },
      runs: { type: 'string' },
      checks: { type: 'string' },
      parallel: { type: 'string' },
    },
  });
  const list = (s: string | undefined): string[] =>
    s
      ?.split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '') ?? [];
  const only = list(values.only);
  const unknown = only.filter((n) => !VARIANTS.some((v) => v.name === n));
  if (unknown.length > 0) throw new Error(`no such variant: ${unknown.join(', ')}`);
  const variants = VARIANTS.filter((v) => (only.length > 0 ? only.includes(v.name) : values.slow || !v.slow));
  const started = Date.now();
  // --parallel N: N reference gateways, each running variants one after the other (a
  // suite run mostly waits on the target, so two share 2 cores well; each variant keeps its own gateway).
  const lanes = Math.max(1, Math.min(variants.length, Number(values.parallel ?? 2)));
  const verdicts: VariantVerdict[] = [];
  // The slow variants first, so the longest run starts at once; each lane takes the next variant when it is
  // free (a shared queue, not a fixed share: the slow variant takes as long as several others).
  const queue = [...variants.filter((v) => v.slow), ...variants.filter((v) => !v.slow)];
  const lane = async (): Promise<void> => {
    const ref = await startReference();
    try {
      process.stdout.write(`reference gateway pid ${ref.pid} at ${ref.baseUrl} (the whole non-slow suite through each variant)\n`);
      for (let variant = queue.shift(); variant !== undefined; variant = queue.shift()) {
        const v = await runVariant(ref, variant, {
          seed: Number(values.seed ?? 1),
          runs: Number(values.runs ?? 20),
          jobs: Number(values.jobs ?? 4),
          checks: list(values.checks),
        });
        verdicts.push(v);
        const counts = Object.entries(v.counts)
          .map(([o, n]) => `${n} ${o}`)
          .join(', ');
        let line = `${v.wrong.length === 0 ? 'CONFORMS' : 'FALSE   '} ${v.name.padEnd(26)} ${`${(v.durationMs / 1000).toFixed(1)} s`.padStart(7)}  ${counts}`;
        if (v.wrong.length > 0) line += `\n         ${v.wrong.join('\n         ')}`;
        // A first attempt's false verdict that the retry did not repeat: not counted against the variant, but shown.
        for (const x of v.flaky) line += `\n         first attempt: ${x}`;
        if (list(values.checks).length > 0) for (const x of v.skipped) line += `\n         SKIPPED ${x}`;
        process.stdout.write(`${line}\n`);
      }
    } finally {
      await ref.stop();
    }
  };
  await Promise.all(Array.from({ length: lanes }, () => lane()));
  const bad = verdicts.filter((v) => v.wrong.length > 0);
  process.stdout.write(
    `\nvariants: ${verdicts.length - bad.length} of ${verdicts.length} with no FAIL and no ERROR in ${((Date.now() - started) / 1000).toFixed(1)} s (gateway stopped)\n`,
  );
  return bad.length > 0 ? 1 : 0;
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`run-reference-variants: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
