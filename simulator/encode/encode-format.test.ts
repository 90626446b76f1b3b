import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadScript } from '../scripts/load-script.ts';
import { renderScript } from '../synth/render-script.ts';
import { IMPORT_FORMATS, encodeFormat, isImportFormat } from './encode-format.ts';
import { decodeAudio, probeMedia } from './probe-media.ts';

const VIDEO_CONTAINERS = new Set(['mp4', 'mkv', 'webm']);

let dir = '';
let source = '';
let duration = 0;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'encode-test-'));
  const rendered = await renderScript(await loadScript('tiny'), path.join(dir, 'source.wav'), { cacheDir: path.join(dir, 'cache') });
  source = rendered.wav;
  duration = rendered.duration;
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('encodeFormat', () => {
  it('covers exactly the ten import extensions of the API', () => {
    assert.deepEqual([...IMPORT_FORMATS].sort(), ['aac', 'flac', 'm4a', 'mkv', 'mp3', 'mp4', 'ogg', 'wav', 'webm', 'wma']);
    assert.equal(isImportFormat('webm'), true);
    assert.equal(isImportFormat('opus'), false);
  });

  for (const format of IMPORT_FORMATS) {
    it(`${format}: decodes back to the whole meeting${VIDEO_CONTAINERS.has(format) ? ', with a video track' : ''}`, async () => {
      const out = path.join(dir, `tiny.${format}`);
      const encoded = await encodeFormat(source, format, out, { title: 'Tiny check-in' });
      const probed = await probeMedia(out);
      assert.ok(probed.ok, probed.ok ? '' : probed.error);
      const types = probed.probe.streams.map((s) => s.type);
      assert.deepEqual(
        types.filter((t) => t === 'audio'),
        ['audio'],
      );
      assert.equal(types.includes('video'), VIDEO_CONTAINERS.has(format), `streams: ${types.join(', ')}`);
      const audio = probed.probe.streams.find((s) => s.type === 'audio');
      assert.equal(
        audio?.codec,
        {
          pcm_s16le: 'pcm_s16le',
          libmp3lame: 'mp3',
          libshine: 'mp3',
          flac: 'flac',
          libvorbis: 'vorbis',
          libopus: 'opus',
          aac: 'aac',
          wmav2: 'wmav2',
        }[encoded.audioCodec],
      );
      const decoded = await decodeAudio(out);
      assert.equal(decoded.code, 0, decoded.errors);
      // Lossy codecs pad a few frames at either end; a tenth of a second covers all of them.
      assert.ok(Math.abs(decoded.seconds - duration) < 0.15, `decoded ${decoded.seconds} s of ${duration} s`);
    });
  }

  it('resamples when asked, like a consumer recording', async () => {
    const out = path.join(dir, 'stereo.m4a');
    await encodeFormat(source, 'm4a', out, { sampleRate: 44_100, channels: 2 });
    const probed = await probeMedia(out);
    assert.ok(probed.ok);
    assert.deepEqual(
      probed.probe.streams.map((s) => [s.sampleRate, s.channels]),
      [[44_100, 2]],
    );
  });
});
