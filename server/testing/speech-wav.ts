/**
 * A short 16 kHz mono WAV with speech (the simulator's tiny meeting, two
 * spoken lines, ~5 s), rendered once and cached under .tmp/faults/.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadScript, REPO_ROOT } from '../../simulator/scripts/load-script.ts';
import { renderScript } from '../../simulator/synth/render-script.ts';

let cached: Promise<Uint8Array> | null = null;

export function speechWav(): Promise<Uint8Array> {
  cached ??= (async () => {
    const dir = join(REPO_ROOT, '.tmp', 'faults');
    const file = join(dir, 'tiny.wav');
    const ready = await stat(file).then(
      (s) => s.size > 1000,
      () => false,
    );
    if (!ready) {
      await mkdir(dir, { recursive: true });
      await renderScript(await loadScript('tiny'), file);
    }
    return new Uint8Array(await readFile(file));
  })();
  return cached;
}
