/**
 * The data files the suite reads at run time (clauses.json, the speech in
 * audio/, the meeting scripts in fixtures/meetings/), wherever they live.
 *
 * In a checkout they are files beside the sources and every reader reads the
 * file on disk. The release bundle (conformance/release/build.ts:
 * dist/suite/mas-conformance.mjs and the single executable made from it)
 * carries them inside itself: its entry calls `embedShippedFiles` before the
 * command line runs, and the readers then take the embedded bytes, so the one
 * file runs from an empty folder (docs/decisions/071-conformance-release-artifacts.md).
 * Keys are paths relative to the repository root, with forward slashes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const embedded = new Map<string, Buffer>();

/** Called once by the bundle's entry with every data file, base64-encoded, by repository-relative path. */
export function embedShippedFiles(files: Readonly<Record<string, string>>): void {
  for (const [rel, base64] of Object.entries(files)) embedded.set(rel, Buffer.from(base64, 'base64'));
}

/** The embedded copy of a data file, or undefined when the suite runs from files (a checkout). */
export function embeddedFile(rel: string): Buffer | undefined {
  return embedded.get(rel);
}

/** A data file's bytes: the embedded copy in the bundle, else the file on disk at `onDisk`. */
export function readShippedFileSync(rel: string, onDisk: string | URL): Buffer {
  return embedded.get(rel) ?? readFileSync(onDisk);
}

/** The same, without blocking. */
export async function readShippedFile(rel: string, onDisk: string | URL): Promise<Buffer> {
  return embedded.get(rel) ?? (await readFile(onDisk));
}

let materialized: string | undefined;

/**
 * A path on this machine holding the data file: the file itself in a checkout;
 * in the bundle, a copy of the embedded bytes written once into a temporary
 * folder removed when the process exits (a check that names a real file to the
 * target, e.g. jobs/import-no-source-path, needs one to exist).
 */
export function shippedFilePath(rel: string, onDisk: string): string {
  const bytes = embedded.get(rel);
  if (bytes === undefined) return onDisk;
  if (materialized === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'mas-conformance-data-'));
    materialized = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const file = join(materialized, ...rel.split('/'));
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, bytes);
  }
  return file;
}
