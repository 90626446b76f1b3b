/**
 * Where the QMSum repository (Yale-LILY/QMSum, MIT licence) is found on this
 * machine, and which of its commits the project's figures were made at.
 *
 * Nothing of QMSum is vendored except one excerpt (fixtures/qmsum/). A user
 * gets the rest with `npm run qmsum:fetch` (fetch-qmsum.ts), which clones the
 * public repository at QMSUM_COMMIT into .cache/qmsum of this repository
 * (ignored by git); `--qmsum-repo DIR` or `$QMSUM_REPO` names another copy,
 * a clone or a bare mirror, instead.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../scripts/load-script.ts';

export const QMSUM_URL = 'https://github.com/Yale-LILY/QMSum';
/** The commit the decisions' figures and the vendored excerpt come from (its last, of 2023-08-29). */
export const QMSUM_COMMIT = '83d7768c1f2b4dfeb091385d3dc7e239b8e5bb7e';
/** The cache folder `npm run qmsum:fetch` clones into. */
const QMSUM_CACHE_DIR = path.join(REPO_ROOT, '.cache', 'qmsum');
/** How help texts name the default without printing a path of the machine they run on. */
export const QMSUM_DEFAULT_DESCRIPTION = '$QMSUM_REPO, else .cache/qmsum of this repository (npm run qmsum:fetch)';

/** The copy read when none is named: $QMSUM_REPO, else the cache folder. */
export function defaultQmsumRepo(): string {
  const fromEnvironment = process.env['QMSUM_REPO'];
  return fromEnvironment !== undefined && fromEnvironment !== '' ? fromEnvironment : QMSUM_CACHE_DIR;
}

/** The one line a reader prints when there is no QMSum copy where it looked. */
export function qmsumMissingMessage(repo: string, flag = '--qmsum-repo'): string {
  return `no QMSum copy at ${repo}: run \`npm run qmsum:fetch\` to clone it there (or pass ${flag} DIR / set $QMSUM_REPO)`;
}

/** True when `repo` looks like a git copy (a clone with .git, or a bare mirror). */
export function isQmsumRepo(repo: string): boolean {
  return existsSync(path.join(repo, '.git')) || (existsSync(path.join(repo, 'HEAD')) && existsSync(path.join(repo, 'objects')));
}
