import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

const BENCH = path.join(import.meta.dirname, 'qmsum-render.ts');

describe('bench/qmsum-render.ts command line', () => {
  it("refuses QMSum's test split before reading anything or starting a gateway", () => {
    const r = spawnSync(process.execPath, [BENCH, '--split=test', '--qmsum-repo=/nonexistent'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /test split is never read/);
  });

  it('refuses a limit that is not a positive integer', () => {
    const r = spawnSync(process.execPath, [BENCH, '--limit=0', '--qmsum-repo=/nonexistent'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--limit expects a positive integer/);
  });
});
