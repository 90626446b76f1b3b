import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toneWav, WAV_SAMPLE_RATE } from './wav.ts';

test('toneWav writes a canonical 16 kHz mono 16-bit PCM WAV', () => {
  const wav = toneWav();
  assert.equal(wav.length, 44 + WAV_SAMPLE_RATE * 2);
  assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
  assert.equal(wav.readUInt32LE(4), wav.length - 8);
  assert.equal(wav.toString('ascii', 8, 16), 'WAVEfmt ');
  assert.deepEqual([wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt16LE(34)], [1, 1, 16_000, 16]);
  assert.equal(wav.toString('ascii', 36, 40), 'data');
  assert.equal(wav.readUInt32LE(40), WAV_SAMPLE_RATE * 2);
  // Quiet: the peak stays near 5 % of full scale, and it is not silence.
  let peak = 0;
  for (let i = 44; i < wav.length; i += 2) peak = Math.max(peak, Math.abs(wav.readInt16LE(i)));
  assert.ok(peak > 0 && peak <= 0.05 * 32767 + 1, String(peak));
});
