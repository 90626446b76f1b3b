/**
 * Generated values on command lines: the reference gateway started for the
 * suite's own runs (reference.ts) with a control secret that begins with `-`,
 * as a random base64url one does about one time in 64, and the suite's
 * command line given that secret and a negative seed (`--seed` is random in
 * [-2^31, 2^31)). Both go as `--name=value`; as arguments of their own, the
 * gateway and the suite read them as options and refused to start ("argument
 * is ambiguous"). The start below failed before that.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, startReference } from './reference.ts';

function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'conformance', 'cli.ts'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('the reference starts with a control secret beginning with "-", and a suite run with it and a negative seed passes', async () => {
  const controlSecret = `-${randomBytes(24).toString('base64url')}`;
  const ref = await startReference({ controlSecret });
  try {
    const r = await cli([
      `--base-url=${ref.baseUrl}`,
      `--control-url=${ref.controlUrl}`,
      `--control-secret=${ref.controlSecret}`,
      '--only=health/no-auth',
      '--seed=-12345',
      '--no-retry',
    ]);
    assert.equal(r.code, 0, `exit ${r.code}\n${r.out}\n${r.err}`);
    assert.match(r.out, /^PASS +health\/no-auth /m);
    assert.match(r.out, /seed -12345/);
  } finally {
    await ref.stop();
  }
});
