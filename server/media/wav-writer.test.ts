import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWav } from '../../common/audio/wav.ts';
import { WavWriter } from './wav-writer.ts';

test('the file is a valid WAV of everything written, also before close (header kept current every second)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wav-writer-'));
  try {
    const file = join(dir, 'a.wav');
    const w = new WavWriter(file);
    const second = new Int16Array(16_000).map((_, i) => (i % 100) - 50);
    w.append(second);
    w.append(Int16Array.from([7, 8, 9]));
    const mid = readFileSync(file);
    assert.equal(mid.readUInt32LE(40), 32_000, 'the header covers the first full second while writing');
    w.close();
    w.close();
    const pcm = parseWav(readFileSync(file));
    assert.equal(pcm.sampleRate, 16_000);
    assert.equal(pcm.channels, 1);
    assert.equal(pcm.samples.length, 16_003);
    assert.deepEqual([...pcm.samples.subarray(16_000)], [7, 8, 9]);
    assert.equal(w.seconds, 16_003 / 16_000);
    assert.throws(() => new WavWriter(file), /EEXIST/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
