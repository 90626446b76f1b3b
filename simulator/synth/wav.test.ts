import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeWav, parseWav } from './wav.ts';

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
