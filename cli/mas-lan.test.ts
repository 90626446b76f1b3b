/**
 * `mas` against the LAN listener: HTTPS with the installation's self-signed
 * certificate. The gateway runs in this process (its LAN listener bound to
 * 127.0.0.1, port 0, as server/lan/lan-gateway.test.ts does), so mas runs as
 * an asynchronous child: a synchronous one would stall the gateway it calls.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Gateway } from '../server/gateway.ts';
import { listenerTestOptions } from '../server/testing/gateway.ts';
import { tlsPaths } from '../server/lan/self-signed-cert.ts';
import { httpJson } from '../client/test-support.ts';

const MAS = path.join(import.meta.dirname, 'mas.ts');
const SECRET = 'mas-lan-test-control-secret-0123456789';

function mas(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAS, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('the LAN listener: an untrusted certificate is exit 3 with a hint; --ca with its certificate or --insecure connect', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mas-cli-lan-'));
  const g = await Gateway.start(
    listenerTestOptions(dataDir, { control: { host: '127.0.0.1', port: 0, secret: SECRET }, lanHost: '127.0.0.1', lanPort: 0 }),
  );
  try {
    assert.equal((await httpJson('PATCH', `${g.control!.url}/control/settings`, SECRET, { lan_enabled: true })).status, 200);
    assert.equal((await httpJson('POST', `${g.control!.url}/control/restart`, SECRET)).status, 204);
    await g.lanSettled();
    const lan = g.lan!.url;
    const env = {
      PATH: process.env['PATH'],
      HOME: dataDir,
      XDG_CONFIG_HOME: path.join(dataDir, 'xdg'),
      MAS_BASE_URL: lan,
      MAS_TOKEN: g.startupToken,
    };

    const untrusted = await mas(['whoami'], env);
    assert.equal(untrusted.code, 3, untrusted.stderr);
    assert.match(untrusted.stderr, /certificate this client does not trust .*--ca/);

    const pinned = await mas([`--ca=${tlsPaths(dataDir).cert}`, '--json', 'whoami'], env);
    assert.equal(pinned.code, 0, pinned.stderr);
    assert.deepEqual(JSON.parse(pinned.stdout).scopes, ['read', 'record', 'write', 'delete']);

    const insecure = await mas(['--insecure', 'health'], env);
    assert.equal(insecure.code, 0, insecure.stderr);
    assert.match(insecure.stdout, /^status: +ok$/m);
  } finally {
    await g.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
