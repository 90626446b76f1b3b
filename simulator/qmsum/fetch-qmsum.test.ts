import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fetchQmsum } from './fetch-qmsum.ts';
import { QMSUM_COMMIT } from './qmsum-repo.ts';
import { QmsumSourceError, listQmsumMeetings } from './qmsum-source.ts';

const COMMAND = path.join(import.meta.dirname, 'fetch-qmsum.ts');
const work = mkdtempSync(path.join(tmpdir(), 'fetch-qmsum-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A small repository laid out as QMSum's, with two commits; returns its folder and both commit ids. */
function upstream(): { dir: string; first: string; second: string } {
  const dir = path.join(work, 'upstream');
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { encoding: 'utf8' }).trim();
  mkdirSync(path.join(dir, 'data', 'ALL', 'val'), { recursive: true });
  writeFileSync(path.join(dir, 'data', 'ALL', 'val', 'ES9999a.json'), '{}');
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'one meeting');
  const first = git('rev-parse', 'HEAD');
  writeFileSync(path.join(dir, 'data', 'ALL', 'val', 'ES9998a.json'), '{}');
  git('add', '.');
  git('commit', '-qm', 'two meetings');
  return { dir, first, second: git('rev-parse', 'HEAD') };
}

describe('npm run qmsum:fetch (simulator/qmsum/fetch-qmsum.ts)', () => {
  const up = upstream();

  it('clones the pinned commit, leaves a copy already there alone and moves one at another commit', async () => {
    const dir = path.join(work, 'copy');
    const cloned = fetchQmsum({ dir, from: up.dir, commit: up.first });
    assert.equal(cloned.ok, true, cloned.message);
    assert.deepEqual(await listQmsumMeetings('val', dir), ['ES9999a']);
    assert.deepEqual(
      readdirSync(work).filter((n) => n.includes('.partial-')),
      [],
      'no half copy left beside it',
    );
    assert.match(fetchQmsum({ dir, from: up.dir, commit: up.first }).message, /already at/);
    assert.equal(fetchQmsum({ dir, from: up.dir, commit: up.second }).ok, true);
    assert.deepEqual(await listQmsumMeetings('val', dir), ['ES9998a', 'ES9999a']);
  });

  it('says the network is why it cannot clone, and leaves nothing behind', () => {
    const dir = path.join(work, 'offline');
    // Port 1 of loopback: nothing listens there, so the connection is refused as it is without a network.
    const result = fetchQmsum({ dir, from: 'http://127.0.0.1:1/Yale-LILY/QMSum', commit: QMSUM_COMMIT });
    assert.equal(result.ok, false);
    assert.match(result.message, /^cannot clone http:\/\/127\.0\.0\.1:1\/Yale-LILY\/QMSum into .*: .*needs network access/);
    assert.equal(existsSync(dir), false);
  });

  it('is the command the readers name when there is no copy', async () => {
    await assert.rejects(
      listQmsumMeetings('val', path.join(work, 'none')),
      (e) => e instanceof QmsumSourceError && /^no QMSum copy at .*npm run qmsum:fetch/.test(e.message),
    );
  });

  it('refuses a folder that is something else, and a commit the source lacks', () => {
    const taken = path.join(work, 'taken');
    mkdirSync(taken);
    writeFileSync(path.join(taken, 'notes.txt'), 'mine');
    assert.match(fetchQmsum({ dir: taken, from: up.dir, commit: up.first }).message, /exists and is not a git copy of QMSum/);
    const missing = fetchQmsum({ dir: path.join(work, 'wrong-commit'), from: up.dir, commit: 'f'.repeat(40) });
    assert.equal(missing.ok, false);
    assert.match(missing.message, /has no commit f{40}/);
  });

  it('takes its folder from --dir or $QMSUM_REPO and exits 2 on a bad command line', () => {
    const viaEnvironment = path.join(work, 'from-environment');
    const r = spawnSync(process.execPath, [COMMAND, `--from=${up.dir}`, `--commit=${up.first}`], {
      encoding: 'utf8',
      env: { ...process.env, QMSUM_REPO: viaEnvironment },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(existsSync(path.join(viaEnvironment, 'data', 'ALL', 'val', 'ES9999a.json')), true);
    const bad = spawnSync(process.execPath, [COMMAND, '--commit=main'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--commit expects a full 40-digit commit id/);
    assert.equal(spawnSync(process.execPath, [COMMAND, '--bogus'], { encoding: 'utf8' }).status, 2);
  });
});
