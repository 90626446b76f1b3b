/**
 * Looks at the file system without failing: the adapters ask "is there a
 * model here?" of folders that may well not exist on a given machine, and
 * "is this tool installed?" of PATH.
 */
import { constants, readdirSync, statSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The sorted entries of a folder, or none when it cannot be read. */
export function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The executable's path: a path as given, a bare name looked up on PATH; null when there is none. */
export async function findExecutable(binary: string, path: string): Promise<string | null> {
  const candidates = binary.includes('/')
    ? [binary]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, binary));
  for (const c of candidates) {
    try {
      await access(c, constants.X_OK);
      if (isFile(c)) return c;
    } catch {
      // not here
    }
  }
  return null;
}
