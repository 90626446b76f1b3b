/**
 * At startup, removes what a crash can leave in the data folder: uploads and
 * recordings that were being written (temporary names) and files no job or
 * meeting refers to any more (a kill between a file's rename and the commit
 * that records it). After it, every file in uploads/ belongs to a job and
 * every file in recordings/ to a meeting.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface SweepResult {
  removed: string[];
}

export function sweepDataFolder(opts: {
  uploadsDir: string;
  recordingsDir: string;
  referencedUploads: Set<string>;
  referencedRecordings: Set<string>;
  /** Names another part still owns (the recorder's pending markers). */
  alsoKeep?: (name: string) => boolean;
}): SweepResult {
  const removed: string[] = [];
  const sweep = (dir: string, keep: Set<string>, label: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return; // no folder yet: nothing to sweep
    }
    for (const name of names) {
      if (keep.has(name) || opts.alsoKeep?.(name) === true) continue;
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(`${label}/${name}`);
    }
  };
  sweep(opts.uploadsDir, opts.referencedUploads, 'uploads');
  sweep(opts.recordingsDir, opts.referencedRecordings, 'recordings');
  return { removed };
}
