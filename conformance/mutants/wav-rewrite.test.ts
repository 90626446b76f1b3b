/**
 * The WAV sample rewriter of the recognizer variants: the header and the byte
 * count stay, the samples are rewritten wherever the chunks split them, and
 * anything that is not a 16-bit PCM WAV passes through unchanged.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { pcmWav, toneWav, UNDECODABLE } from '../harness/jobs.ts';
import { parseWavHeader, wavSampleRewriter } from './wav-rewrite.ts';
import type { SampleRewrite } from './wav-rewrite.ts';

async function through(bytes: Uint8Array, rewrite: SampleRewrite, chunk: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(Buffer.from(bytes.subarray(i, i + chunk)));
  const out: Buffer[] = [];
  for await (const c of Readable.from(parts).pipe(wavSampleRewriter(rewrite))) out.push(c as Buffer);
  return Buffer.concat(out);
}

test('silencing a tone keeps its header and length, whatever the chunk size', async () => {
  const tone = toneWav(1);
  for (const chunk of [3, 7, 44, 45, 1001, tone.length]) {
    const out = await through(tone, (s) => s.fill(0), chunk);
    assert.equal(out.length, tone.length, `chunk ${chunk}`);
    assert.deepEqual(out.subarray(0, 44), Buffer.from(tone.subarray(0, 44)));
    assert.ok(
      out.subarray(44).every((b) => b === 0),
      `chunk ${chunk}: every sample silent`,
    );
  }
});

test('each sample is rewritten once, at its place in the data chunk', async () => {
  const samples = Int16Array.from({ length: 999 }, (_, i) => i);
  const wav = pcmWav(samples);
  const out = await through(wav, (s, at) => s.forEach((_, i) => (s[i] = at + i + 1)), 5);
  const parsed = parseWavHeader(out);
  assert.equal(parsed.kind, 'pcm');
  for (let i = 0; i < samples.length; i++) assert.equal(out.readInt16LE(44 + i * 2), i + 1);
});

test('bytes that are not a PCM WAV pass through unchanged', async () => {
  const out = await through(UNDECODABLE, (s) => s.fill(0), 13);
  assert.deepEqual(out, Buffer.from(UNDECODABLE));
  const tiny = Buffer.from('RI');
  assert.deepEqual(await through(tiny, (s) => s.fill(0), 1), tiny);
});
