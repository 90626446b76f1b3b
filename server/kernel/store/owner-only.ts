/**
 * Owner-only file modes for what holds secrets in the data folder
 * (docs/decisions/022-host-origin-and-secrets.md): the database (token
 * hashes, webhook signing secrets) and its -wal/-shm companions 0600, the
 * data folder itself 0700.
 *
 * Modes are set explicitly rather than left to the umask: main.ts sets
 * umask 077, but the gateway is also started in-process (tests, embedders)
 * under whatever umask the host process has, and a file or folder that
 * already exists keeps the mode it was made with whatever the umask is now.
 */
import { chmodSync, closeSync, constants, existsSync, openSync, statSync } from 'node:fs';

const OWNER_ONLY_FILE = 0o600;
const OWNER_ONLY_DIR = 0o700;

/** The companion files SQLite keeps next to a WAL database. */
function databaseFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
}

/**
 * Before SQLite opens `file`: creates it empty with mode 0600 when it does
 * not exist (SQLite would create it 0644 & ~umask, and gives its -wal and
 * -shm files the database file's mode), and tightens an existing one and its
 * companions.
 */
export function prepareDatabaseFile(file: string): void {
  if (!existsSync(file)) {
    // O_EXCL: never touch a file that appeared in the meantime (it is tightened below).
    try {
      closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, OWNER_ONLY_FILE));
    } catch {
      // EEXIST: tightened below. Anything else (no folder, read-only): SQLite's own open reports it as before.
    }
  }
  tightenDatabaseFiles(file);
}

/** Sets 0600 on the database and whichever companions exist. */
export function tightenDatabaseFiles(file: string): void {
  for (const path of databaseFiles(file)) tighten(path, OWNER_ONLY_FILE);
}

/** Sets 0700 on a folder the gateway owns (the data folder, tls/); a missing one is left alone. */
export function tightenDir(dir: string): void {
  tighten(dir, OWNER_ONLY_DIR);
}

function tighten(path: string, mode: number): void {
  let stat;
  try {
    stat = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  // Only what it should be: a folder where a file is expected is not the gateway's to change (the open fails on it).
  if (mode === OWNER_ONLY_DIR ? !stat.isDirectory() : !stat.isFile()) return;
  if ((stat.mode & 0o777) === mode) return;
  try {
    chmodSync(path, mode);
  } catch (err) {
    // Not ours to change (another owner) or a read-only file system: nothing the gateway can do; it starts as before.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EROFS') throw err;
  }
}
