/**
 * Shared setup of the client's and the command line's tests: the reference
 * gateway started for real as its own process (conformance/reference.ts:
 * loopback, free ports, a temporary data folder, the Control API on), tokens
 * minted through the Control API, and one small real recording rendered by
 * the simulator. Imported by *.test.ts files only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startReference, ROOT, type Reference } from '../conformance/reference.ts';

export { ROOT };

export interface Stage {
  ref: Reference;
  tmp: string;
  /** A 5-second two-speaker meeting rendered by the simulator (fixtures/meetings/tiny.json). */
  audio: string;
  control(method: string, route: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  token(scopes: readonly string[], extra?: { kind?: string; origin?: string }): Promise<string>;
  stop(): Promise<void>;
}

export async function startStage(): Promise<Stage> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'mas-client-'));
  const audio = path.join(tmp, 'tiny.mp3');
  const rendered = spawnSync(process.execPath, [path.join(ROOT, 'simulator', 'cli.ts'), 'render', 'tiny', '--format', 'mp3', '--out', audio], { encoding: 'utf8' });
  if (rendered.status !== 0) throw new Error(`simulator render failed: ${rendered.stderr}`);
  const ref = await startReference();
  const control: Stage['control'] = async (method, route, body) => {
    const res = await fetch(`${ref.controlUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${ref.controlSecret}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  return {
    ref,
    tmp,
    audio,
    control,
    async token(scopes, extra = {}) {
      const r = await control('POST', '/control/tokens', { scopes, name: 'client-test', ...extra });
      if (r.status !== 201) throw new Error(`token mint failed: ${r.status} ${JSON.stringify(r.json)}`);
      return (r.json as { token: string }).token;
    },
    async stop() {
      await ref.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Polls /health until the gateway answers again (after a Control API restart). */
export async function healthy(baseUrl: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    try {
      if ((await fetch(`${baseUrl}/health`)).status === 200) return;
    } catch {
      // restarting
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the gateway did not come back after the restart');
}
