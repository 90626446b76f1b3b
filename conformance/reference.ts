/**
 * Starts the reference gateway for the suite's own CI runs: `node
 * server/main.ts` as a separate process (never imported: the suite stays
 * black-box) on free loopback ports, with a temporary data folder, the
 * Automation API switched on and a generated control secret; waits for
 * /health. `stop()` ends it by its pid (SIGTERM, then SIGKILL after 5 s) and
 * removes the data folder; Ctrl-C and SIGTERM stop it too.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

export interface Reference {
  pid: number;
  baseUrl: string;
  controlUrl: string;
  controlSecret: string;
  dataDir: string;
  /** The gateway's last output, the secret masked. */
  log(): string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
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

function stopChild(child: ChildProcess): Promise<void> {
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

/** `controlSecret`: a chosen secret instead of a generated one (the redaction tests use short ones). */
export async function startReference(options: { controlSecret?: string } = {}): Promise<Reference> {
  const [port, controlPort] = [await freePort(), await freePort()];
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mas-conformance-'));
  const secret = options.controlSecret ?? randomBytes(24).toString('base64url');
  let output = '';
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'server', 'main.ts'),
      '--port',
      String(port),
      '--control-port',
      String(controlPort),
      `--control-secret=${secret}`,
      `--data-dir=${dataDir}`,
      '--enable-api',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const keep = (b: Buffer): void => {
    output = (output + b.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const log = (): string => output.split(secret).join('$MAS_CONTROL_SECRET');
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await stopChild(child);
      await rm(dataDir, { recursive: true, force: true });
    })();
    return stopped;
  };
  const onSignal = (): void => {
    void stop().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(baseUrl, child, log);
  } catch (err) {
    await stop();
    throw err;
  }
  return { pid: child.pid!, baseUrl, controlUrl: `http://127.0.0.1:${controlPort}`, controlSecret: secret, dataDir, log, stop };
}
