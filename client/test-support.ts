/**
 * Shared setup of the client's and the command line's tests: the reference
 * gateway started for real as its own process (conformance/reference.ts:
 * loopback, free ports, a temporary data folder, the Control API on), tokens
 * minted through the Control API, and one small real recording rendered by
 * the simulator. Imported by *.test.ts files only.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
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
  const rendered = spawnSync(
    process.execPath,
    [path.join(ROOT, 'simulator', 'cli.ts'), 'render', 'tiny', '--format', 'mp3', `--out=${audio}`],
    { encoding: 'utf8' },
  );
  if (rendered.status !== 0) throw new Error(`simulator render failed: ${rendered.stderr}`);
  const ref = await startReference();
  const control: Stage['control'] = (method, route, body) => httpJson(method, `${ref.controlUrl}${route}`, ref.controlSecret, body);
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

/**
 * One request on a connection of its own. The tests wait seconds between
 * calls (child processes run in between), longer than the gateway keeps an
 * idle connection, so a pooled connection could be closed under a request.
 */
export function httpJson(method: string, url: string, bearer?: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(url, {
      method,
      agent: false,
      headers: {
        ...(bearer !== undefined ? { Authorization: `Bearer ${bearer}` } : {}),
        ...(payload !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}),
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text === '' ? null : (JSON.parse(text) as unknown) });
      });
    });
    req.end(payload);
  });
}

/** Polls /health until the gateway answers again (after a Control API restart). */
export async function healthy(baseUrl: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    try {
      if ((await httpJson('GET', `${baseUrl}/health`)).status === 200) return;
    } catch {
      // restarting
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the gateway did not come back after the restart');
}
