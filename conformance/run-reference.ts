#!/usr/bin/env node
/**
 * The CI run of the conformance suite against the reference gateway: starts
 * `node server/main.ts` as a separate process (never imported: the suite
 * stays black-box) on free loopback ports with a temporary data folder, the
 * Automation API switched on and a generated control secret; waits for
 * /health; runs every non-slow check with the Control API and the loopback
 * webhook receiver; writes JUnit, JSON, HTML and Markdown into
 * reports/conformance/; stops the gateway (by its pid, also on failure or
 * Ctrl-C) and exits 1 on any FAIL or ERROR.
 *
 *   node conformance/run-reference.ts [any cli.ts option, e.g. --seed 7 --only jobs/]
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from './cli.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'reports', 'conformance');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess, log: () => string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the reference gateway exited with ${child.exitCode} before answering /health:\n${log()}`);
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the reference gateway did not answer /health within ${timeoutMs / 1000} s:\n${log()}`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
    }, 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    process.kill(child.pid!, 'SIGTERM');
  });
}

async function run(extra: string[]): Promise<number> {
  const started = Date.now();
  const [port, controlPort] = [await freePort(), await freePort()];
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mas-conformance-'));
  const secret = randomBytes(24).toString('base64url');
  let output = '';
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'server', 'main.ts'), '--port', String(port), '--control-port', String(controlPort), '--control-secret', secret, '--data-dir', dataDir, '--enable-api'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const keep = (b: Buffer): void => {
    output = (output + b.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const onSignal = (): void => {
    void stop(child).then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(base, child, () => output.split(secret).join('$MAS_CONTROL_SECRET'));
    process.stdout.write(`reference gateway pid ${child.pid} at ${base}, Control API 127.0.0.1:${controlPort}, data ${dataDir}\n`);
    const code = await main([
      '--base-url', base,
      '--control-url', `http://127.0.0.1:${controlPort}`,
      '--control-secret', secret,
      '--json', OUT,
      '--junit', path.join(OUT, 'junit.xml'),
      '--html', path.join(OUT, 'report.html'),
      '--md', path.join(OUT, 'summary.md'),
      ...extra,
    ]);
    return code;
  } finally {
    await stop(child);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await rm(dataDir, { recursive: true, force: true });
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
