/**
 * The speech-recognition models really present on this machine. Read-only:
 * the API lists them and never downloads or deletes one.
 *
 * Two sources:
 * - the system's pocketsphinx acoustic models (Debian's pocketsphinx-en-us
 *   puts them under /usr/share/pocketsphinx/model/<lang>), built in;
 * - whisper.cpp model files the user dropped into <data>/models/*.bin, which
 *   are custom (is_custom: true).
 * Sizes are measured on disk.
 */
import { statSync } from 'node:fs';
import { isDirectory, safeReaddir } from './fs-probe.ts';
import { join } from 'node:path';

export interface ModelInfo {
  name: string;
  size_mb: number;
  accuracy: 'low' | 'medium' | 'high';
  speed: 'slow' | 'medium' | 'fast';
  status: 'available';
  description: string;
  is_custom: boolean;
}

export interface ModelSources {
  pocketsphinxRoots: readonly string[];
  customDir: string;
}

export class ModelCatalog {
  readonly #sources: ModelSources;

  constructor(sources: ModelSources) {
    this.#sources = sources;
  }

  list(): ModelInfo[] {
    return [...this.#pocketsphinx(), ...this.#custom()];
  }

  #pocketsphinx(): ModelInfo[] {
    const models: ModelInfo[] = [];
    for (const root of this.#sources.pocketsphinxRoots) {
      for (const lang of safeReaddir(root)) {
        const dir = join(root, lang);
        if (!isDirectory(dir)) continue;
        models.push({
          name: `pocketsphinx-${lang}`,
          size_mb: megabytes(directorySize(dir)),
          accuracy: 'low',
          speed: 'fast',
          status: 'available',
          description: `CMU PocketSphinx acoustic and language model for ${lang}, from the system packages`,
          is_custom: false,
        });
      }
    }
    return models;
  }

  #custom(): ModelInfo[] {
    const dir = this.#sources.customDir;
    return safeReaddir(dir)
      .filter((f) => f.endsWith('.bin'))
      .map((file) => {
        const size = statSync(join(dir, file)).size;
        return {
          name: file.slice(0, -'.bin'.length),
          size_mb: megabytes(size),
          // whisper.cpp's larger models are both slower and more accurate.
          accuracy: size > 400e6 ? 'high' : 'medium',
          speed: size > 400e6 ? 'slow' : 'medium',
          status: 'available',
          description: `whisper.cpp model file ${file}, provided by the user`,
          is_custom: true,
        } satisfies ModelInfo;
      });
  }
}

export const DEFAULT_POCKETSPHINX_ROOTS = ['/usr/share/pocketsphinx/model'];

function directorySize(dir: string): number {
  let total = 0;
  for (const entry of safeReaddir(dir)) {
    const path = join(dir, entry);
    try {
      const st = statSync(path);
      total += st.isDirectory() ? directorySize(path) : st.size;
    } catch {
      // vanished while we looked: not counted
    }
  }
  return total;
}

function megabytes(bytes: number): number {
  return Math.round((bytes / 1e6) * 10) / 10;
}
