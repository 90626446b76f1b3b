#!/usr/bin/env node
/**
 * The CI run of the conformance suite against the reference gateway: starts
 * `node server/main.ts` as a separate process (never imported: the suite
 * stays black-box; see reference.ts) on free loopback ports with a temporary
 * data folder, the Automation API switched on and a generated control
 * secret; waits for /health; runs every non-slow check with the Control API
 * and the loopback webhook receiver; writes JUnit, JSON, HTML and Markdown
 * into reports/conformance/; stops the gateway (by its pid, also on failure
 * or Ctrl-C) and exits 1 on any FAIL or ERROR.
 *
 *   node conformance/run-reference.ts [any cli.ts option, e.g. --seed 7 --only jobs/]
 */
import path from 'node:path';
import { main } from './cli.ts';
import { ROOT, startReference } from './reference.ts';

const OUT = path.join(ROOT, 'reports', 'conformance');

async function run(extra: string[]): Promise<number> {
  const started = Date.now();
  const ref = await startReference();
  try {
    process.stdout.write(
      `reference gateway pid ${ref.pid} at ${ref.baseUrl}, Control API ${ref.controlUrl.replace('http://', '')}, data ${ref.dataDir}\n`,
    );
    const code = await main([
      `--base-url=${ref.baseUrl}`,
      `--control-url=${ref.controlUrl}`,
      `--control-secret=${ref.controlSecret}`,
      `--json=${OUT}`,
      `--junit=${path.join(OUT, 'junit.xml')}`,
      `--html=${path.join(OUT, 'report.html')}`,
      `--md=${path.join(OUT, 'summary.md')}`,
      // Checks that touch only their own state run side by side (docs/decisions/041-conformance-jobs.md); a later --jobs wins.
      '--jobs',
      '4',
      ...extra,
    ]);
    return code;
  } finally {
    await ref.stop();
    process.stdout.write(`conformance against the reference: ${((Date.now() - started) / 1000).toFixed(1)} s (gateway stopped)\n`);
  }
}

if (import.meta.main) {
  run(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`run-reference: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
