/**
 * Files that hold secrets are the owner's only, whatever the umask of the
 * process that starts the gateway (docs/decisions/022-host-origin-and-secrets.md):
 * the data folder 0700; the database (token hashes, webhook signing secrets)
 * and its -wal/-shm 0600; the control secret 0600; the LAN TLS folder 0700
 * and its key and certificate 0600.
 *
 * main.ts sets umask 077 itself (secrets-in-logs.test.ts checks a real
 * process), so this test starts the Gateway in-process under umask 000 and
 * 022, from a fresh folder and from one left loose by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gateway } from '../gateway.ts';
import { tlsPaths } from '../lan/self-signed-cert.ts';
import { listenerTestOptions } from '../testing/gateway.ts';

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
}

const EXPECTED: Record<string, string> = {
  '.': '0700',
  'gateway.sqlite': '0600',
  'gateway.sqlite-wal': '0600',
  'gateway.sqlite-shm': '0600',
  'control-secret': '0600',
  tls: '0700',
  'tls/key.pem': '0600',
  'tls/cert.pem': '0600',
};

async function modesAfterStart(dataDir: string): Promise<Record<string, string>> {
  const start = () => Gateway.start(listenerTestOptions(dataDir, { lanHost: '127.0.0.1', lanPort: 0 }));
  const gateway = await start();
  try {
    // LAN mode is read at start: switch it on, restart, wait for the listener (it makes the TLS key).
    gateway.deps.settings.update({ lan_enabled: true });
    gateway.restart();
    await gateway.lanSettled();
    assert.ok(gateway.lan !== null, 'the LAN listener opened');
    const seen: Record<string, string> = {};
    for (const name of Object.keys(EXPECTED)) {
      const path = join(dataDir, name);
      if (existsSync(path)) seen[name] = mode(path);
    }
    return seen;
  } finally {
    await gateway.stop();
  }
}

for (const umask of [0o000, 0o022]) {
  const label = umask.toString(8).padStart(3, '0');

  test(`umask ${label}: a fresh data folder is owner-only`, async () => {
    const parent = mkdtempSync(join(tmpdir(), 'mas-modes-'));
    const previous = process.umask(umask);
    try {
      assert.deepEqual(await modesAfterStart(join(parent, 'data')), EXPECTED);
    } finally {
      process.umask(previous);
      rmSync(parent, { recursive: true, force: true });
    }
  });

  test(`umask ${label}: a data folder left loose by hand is tightened at start`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mas-modes-'));
    const previous = process.umask(umask);
    try {
      // First start makes everything; then loosen it all, as a careless copy or chmod would.
      await modesAfterStart(dataDir);
      for (const name of Object.keys(EXPECTED)) {
        const path = join(dataDir, name);
        if (existsSync(path)) chmodSync(path, statSync(path).isDirectory() ? 0o777 : 0o666);
      }
      // A leftover -wal from an older build, made world-readable.
      writeFileSync(join(dataDir, 'gateway.sqlite-wal'), new Uint8Array(0), { mode: 0o666 });
      chmodSync(join(dataDir, 'gateway.sqlite-wal'), 0o666);
      assert.deepEqual(await modesAfterStart(dataDir), EXPECTED);
    } finally {
      process.umask(previous);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

test('a folder where the TLS folder should be keeps working; a wrong kind of file is not chmodded', async () => {
  // tightenDir only touches folders: tls/ made by hand with a loose mode becomes 0700.
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-modes-'));
  try {
    mkdirSync(tlsPaths(dataDir).dir, { mode: 0o755 });
    chmodSync(tlsPaths(dataDir).dir, 0o755);
    const seen = await modesAfterStart(dataDir);
    assert.equal(seen.tls, '0700');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
