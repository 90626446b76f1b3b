/**
 * `npm run qmsum:fetch`: clones the public QMSum repository at the pinned
 * commit (qmsum-repo.ts) into the cache folder the QMSum readers look in by
 * default (.cache/qmsum of this repository, or $QMSUM_REPO), so the
 * simulator's `render-qmsum val/<id>`, bench/qmsum-render.ts and
 * bench/summary-quality.ts find it with no flag.
 *
 *   npm run qmsum:fetch [-- --dir=DIR] [--from=URL] [--commit=SHA]
 *
 * --from clones another copy (a mirror, a clone on a disk) instead of
 * GitHub; --commit checks out another commit (the decisions' figures are at
 * the pinned one). The clone is made beside the target and renamed into
 * place once checked out, so an interrupted run leaves no half copy where
 * the readers look. A copy already at the commit is left as is.
 *
 * Exit codes: 0 QMSum is there, 1 it could not be fetched (no network, no
 * git, the folder is taken), 2 bad command line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { QMSUM_COMMIT, QMSUM_URL, defaultQmsumRepo, isQmsumRepo } from './qmsum-repo.ts';

const USAGE = 'Usage: npm run qmsum:fetch [-- --dir=DIR] [--from=URL] [--commit=SHA]';

export interface FetchQmsumOptions {
  dir: string;
  from: string;
  commit: string;
}

export interface FetchQmsumResult {
  ok: boolean;
  /** What happened, one line (or why it could not). */
  message: string;
}

interface GitRun {
  status: number | null;
  stdout: string;
  stderr: string;
  missing: boolean;
}

function git(args: string[]): GitRun {
  // Never a credential prompt: a clone that needs one fails with git's own line instead of waiting for a user.
  const r = spawnSync('git', args, { encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  // A git that cannot be started gives no output at all (stdout and stderr are null then, whatever the types say).
  if (r.error !== undefined)
    return { status: null, stdout: '', stderr: r.error.message, missing: (r.error as NodeJS.ErrnoException).code === 'ENOENT' };
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, missing: false };
}

/** git's last meaningful line ("fatal: unable to access ...: Could not resolve host: github.com"). */
function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? 'no message'
  );
}

/** The reason a clone failed, said so that a user without a network knows it is the network. */
function cloneFailure(from: string, dir: string, run: GitRun): string {
  const line = lastLine(run.stderr);
  const unreachable = /could not resolve|unable to access|failed to connect|connection refused|timed out|network is unreachable/i.test(
    line,
  );
  const why = unreachable
    ? 'cloning needs network access to the repository; without it, copy a QMSum clone made on another machine to this folder, or name one with --qmsum-repo DIR / $QMSUM_REPO'
    : 'see git’s message above';
  return `cannot clone ${from} into ${dir}: ${line} (${why})`;
}

function headOf(dir: string): string | null {
  const r = git(['-C', dir, 'rev-parse', '--verify', '--quiet', 'HEAD']);
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Brings an existing clone to the commit, fetching it first when the clone lacks it. */
function moveExisting(o: FetchQmsumOptions): FetchQmsumResult {
  if (headOf(o.dir) === o.commit) return { ok: true, message: `QMSum is already at ${o.commit} in ${o.dir}` };
  if (!existsSync(path.join(o.dir, '.git'))) {
    return {
      ok: false,
      message: `${o.dir} is a bare QMSum copy at another commit; readers use its HEAD, so move that to ${o.commit} by hand`,
    };
  }
  if (git(['-C', o.dir, 'cat-file', '-e', `${o.commit}^{commit}`]).status !== 0) {
    const fetched = git(['-C', o.dir, 'fetch', '--quiet', o.from]);
    if (fetched.status !== 0) return { ok: false, message: cloneFailure(o.from, o.dir, fetched) };
  }
  const checkout = git(['-C', o.dir, 'checkout', '--quiet', '--detach', o.commit]);
  if (checkout.status !== 0) return { ok: false, message: `cannot check out ${o.commit} in ${o.dir}: ${lastLine(checkout.stderr)}` };
  return { ok: true, message: `QMSum moved to ${o.commit} in ${o.dir}` };
}

export function fetchQmsum(o: FetchQmsumOptions): FetchQmsumResult {
  if (git(['--version']).missing)
    return { ok: false, message: 'git is not installed; install it (apt-get install git) and run this again' };
  if (existsSync(o.dir)) {
    if (isQmsumRepo(o.dir)) return moveExisting(o);
    if (readdirSync(o.dir).length > 0) {
      return { ok: false, message: `${o.dir} exists and is not a git copy of QMSum; remove it or pass --dir=ANOTHER` };
    }
    rmSync(o.dir, { recursive: true });
  }
  const partial = `${o.dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  try {
    const clone = git(['clone', '--quiet', '--no-checkout', o.from, partial]);
    if (clone.status !== 0) return { ok: false, message: cloneFailure(o.from, o.dir, clone) };
    const checkout = git(['-C', partial, 'checkout', '--quiet', '--detach', o.commit]);
    if (checkout.status !== 0) {
      return { ok: false, message: `${o.from} has no commit ${o.commit}: ${lastLine(checkout.stderr)}` };
    }
    renameSync(partial, o.dir);
    return { ok: true, message: `QMSum cloned from ${o.from} at ${o.commit} into ${o.dir}` };
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

function main(argv: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { dir: { type: 'string' }, from: { type: 'string' }, commit: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`${(error as Error).message.split('\n')[0]}\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    console.log(`${USAGE}\n  Clones ${QMSUM_URL} at ${QMSUM_COMMIT} (default --dir: $QMSUM_REPO, else .cache/qmsum of this repository).`);
    return 0;
  }
  if (values.commit !== undefined && !/^[0-9a-f]{40}$/.test(values.commit)) {
    console.error(`--commit expects a full 40-digit commit id, got "${values.commit}"\n${USAGE}`);
    return 2;
  }
  const dir = path.resolve(values.dir ?? defaultQmsumRepo());
  const from = values.from ?? QMSUM_URL;
  console.error(`fetching QMSum from ${from} (about 10 MB) into ${dir} ...`);
  const result = fetchQmsum({ dir, from, commit: values.commit ?? QMSUM_COMMIT });
  (result.ok ? console.log : console.error)(result.message);
  return result.ok ? 0 : 1;
}

if (import.meta.main) {
  process.exitCode = main(process.argv.slice(2));
}
