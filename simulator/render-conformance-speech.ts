#!/usr/bin/env node
/**
 * Renders the speech the conformance suite imports, once, into files that are
 * committed in conformance/audio/: `<name>.wav` (16 kHz mono 16-bit, what the
 * simulator's renderer writes) and `<name>.truth.json` (the words and turns
 * actually placed). The suite reads these files (conformance/harness/audio.ts) and never
 * synthesizes at run time, so an implementer's run needs Node alone: no
 * espeak-ng, no ffmpeg. This script does need both (the simulator's renderer);
 * run it after changing a script below or the renderer:
 *
 *   node simulator/render-conformance-speech.ts
 *
 * It lives in simulator/, not beside the files it writes, because the suite
 * imports nothing of the simulator (.dependency-cruiser.js): it ships alone.
 *
 * The output is deterministic for a given espeak-ng and ffmpeg (bitexact WAV),
 * so a re-render on the same tools leaves git clean.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { loadScript } from './scripts/load-script.ts';
import { renderScript } from './synth/render-script.ts';

/** The meeting scripts (fixtures/meetings/<name>.json) whose rendering the suite ships. */
const SHIPPED_SPEECH = ['tiny'] as const;

/** Where the suite reads them from (conformance/harness/audio.ts). */
const HERE = path.join(import.meta.dirname, '..', 'conformance', 'audio');

async function render(name: string): Promise<void> {
  const wav = path.join(HERE, `${name}.wav`);
  const truth = path.join(HERE, `${name}.truth.json`);
  // Tidy dynamics, named: the suite's audio and truth never change with the natural profile (decision 108).
  const rendered = await renderScript(await loadScript(name), wav, { truthPath: truth, dynamics: 'tidy' });
  const size = (await stat(wav)).size;
  process.stdout.write(
    `${path.relative(process.cwd(), wav)}: ${rendered.duration.toFixed(2)} s, ${size} bytes; truth ${path.relative(process.cwd(), truth)}\n`,
  );
}

if (import.meta.main) {
  for (const name of SHIPPED_SPEECH) await render(name);
}
