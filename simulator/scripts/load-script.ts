/**
 * Finds meeting scripts by name in fixtures/meetings/ (or by path) and
 * validates them with parseScript.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ScriptError, parseScript } from './meeting-script.ts';
import type { MeetingScript } from './meeting-script.ts';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
export const MEETINGS_DIR = path.join(REPO_ROOT, 'fixtures', 'meetings');

/**
 * A bare name ("two-person-call") means fixtures/meetings/<name>.json;
 * anything with a slash or a .json ending is a path (relative to the cwd).
 */
function resolveScriptPath(nameOrPath: string): string {
  if (nameOrPath.includes('/') || nameOrPath.includes(path.sep) || nameOrPath.endsWith('.json')) {
    return path.resolve(nameOrPath);
  }
  return path.join(MEETINGS_DIR, `${nameOrPath}.json`);
}

export async function loadScript(nameOrPath: string): Promise<MeetingScript> {
  const file = resolveScriptPath(nameOrPath);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      const known = await listScriptNames().catch(() => []);
      throw new ScriptError(file, [`no such file${known.length > 0 ? ` (known scripts: ${known.join(', ')})` : ''}`]);
    }
    throw new ScriptError(file, [`cannot read: ${(error as Error).message}`]);
  }
  return parseScript(text, path.relative(process.cwd(), file) || file);
}

/** Names of the scripts in fixtures/meetings/, sorted. */
export async function listScriptNames(dir = MEETINGS_DIR): Promise<string[]> {
  const entries = await readdir(dir);
  return entries
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}
