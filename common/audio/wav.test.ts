import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { encodeWav, parseWav, toneWav, WAV_SAMPLE_RATE } from './wav.ts';

describe('wav', () => {
  it('round-trips 16-bit PCM', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    const back = parseWav(encodeWav({ sampleRate: 16_000, channels: 1, samples }));
    assert.equal(back.sampleRate, 16_000);
    assert.equal(back.channels, 1);
    assert.deepEqual([...back.samples], [...samples]);
  });

  it('reads a streamed WAV whose data size is a placeholder (as espeak-ng --stdout writes)', () => {
    const wav = encodeWav({ sampleRate: 22_050, channels: 1, samples: Int16Array.from([5, 6, 7]) });
    wav.writeUInt32LE(0x7ffff000, 40);
    assert.deepEqual([...parseWav(wav).samples], [5, 6, 7]);
  });

  it('skips unknown chunks before the data', () => {
    const plain = encodeWav({ sampleRate: 8000, channels: 1, samples: Int16Array.from([9]) });
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc'), Buffer.from([0])]); // odd size, padded
    const withList = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)]);
    assert.deepEqual([...parseWav(withList).samples], [9]);
  });

  it('refuses what is not 16-bit PCM WAV', () => {
    assert.throws(() => parseWav(Buffer.from('not a wav file at all')), /not a RIFF\/WAVE file/);
    const float = encodeWav({ sampleRate: 8000, channels: 1, samples: Int16Array.from([1]) });
    float.writeUInt16LE(3, 20);
    assert.throws(() => parseWav(float), /expected 16-bit PCM/);
  });
});

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
