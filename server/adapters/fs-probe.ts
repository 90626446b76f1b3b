/**
 * Looks at the file system without failing: the adapters ask "is there a
 * model here?" of folders that may well not exist on a given machine.
 */
import { readdirSync, statSync } from 'node:fs';

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
