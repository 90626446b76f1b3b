import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeAudio, probeMedia } from '../encode/probe-media.ts';
import { BROKEN_KINDS, generateBrokenFixtures } from './generate-broken-fixtures.ts';
import type { BrokenFixture } from './generate-broken-fixtures.ts';

let dir = '';
let out = '';
let fixtures: BrokenFixture[] = [];
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'broken-test-'));
  out = path.join(dir, 'broken');
  fixtures = await generateBrokenFixtures(out, { cacheDir: path.join(dir, 'cache') });
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the WAV header says the length is, in seconds: data size over byte rate. */
function claimedWavSeconds(wav: Buffer): number {
  const byteRate = wav.readUInt32LE(28);
  return wav.readUInt32LE(40) / byteRate;
}

describe('generateBrokenFixtures', () => {
  it('writes every listed file and a manifest that lists them all, each expected to fail but the one that decodes', async () => {
    const manifest = JSON.parse(await readFile(path.join(out, 'manifest.json'), 'utf8')) as BrokenFixture[];
    assert.deepEqual(manifest, fixtures);
    for (const f of manifest) {
      assert.equal(f.expected, f.file === 'lying-rate.wav' ? 'kept' : 'failed', f.file);
      await stat(path.join(out, f.file));
    }
    assert.deepEqual([...new Set(manifest.map((f) => f.kind))].sort(), [...BROKEN_KINDS].sort());
    assert.deepEqual(
      manifest
        .filter((f) => f.kind === 'truncated')
        .map((f) => path.extname(f.file))
        .sort(),
      ['.flac', '.m4a', '.mp3', '.wav'],
    );
  });

  it('is deterministic: the random bytes come from the seed', async () => {
    const again = path.join(dir, 'again');
    await generateBrokenFixtures(again, { cacheDir: path.join(dir, 'cache') });
    for (const file of ['noise.wav', 'noise.mp3', 'truncated.wav', 'lying-size.wav']) {
      assert.ok((await readFile(path.join(out, file))).equals(await readFile(path.join(again, file))), file);
    }
  });

  it('truncated files decode to far less than the meeting (or not at all)', async () => {
    for (const f of fixtures.filter((x) => x.kind === 'truncated')) {
      const decoded = await decodeAudio(path.join(out, f.file));
      assert.ok(f.source_duration !== undefined);
      assert.ok(decoded.seconds < 0.5 * f.source_duration, `${f.file}: decoded ${decoded.seconds} s of ${f.source_duration} s`);
    }
  });

  it('random bytes and the empty file are not media at all', async () => {
    for (const f of fixtures.filter((x) => x.kind === 'random-bytes' || x.kind === 'empty')) {
      const probed = await probeMedia(path.join(out, f.file));
      assert.equal(probed.ok, false, `${f.file} probed as ${JSON.stringify(probed)}`);
    }
    assert.equal((await stat(path.join(out, 'empty.wav'))).size, 0);
  });

  it('lying headers claim a length far from the real one', async () => {
    const size = fixtures.find((f) => f.file === 'lying-size.wav');
    const rate = fixtures.find((f) => f.file === 'lying-rate.wav');
    assert.ok(size?.source_duration !== undefined && rate?.source_duration !== undefined);
    // The size lie: the header promises hours of audio in a five-second file.
    const sizeHeader = await readFile(path.join(out, size.file));
    assert.ok(claimedWavSeconds(sizeHeader) > 1000 * size.source_duration);
    // The rate lie: anything reading the header gets a sixth of the meeting.
    const probed = await probeMedia(path.join(out, rate.file));
    assert.ok(probed.ok && probed.probe.duration !== undefined);
    assert.ok(probed.probe.duration < 0.5 * rate.source_duration, `claims ${probed.probe.duration} s`);
  });

  it('the video-only file is valid video with no audio track', async () => {
    const probed = await probeMedia(path.join(out, 'video-only.mp4'));
    assert.ok(probed.ok);
    assert.deepEqual(
      probed.probe.streams.map((s) => s.type),
      ['video'],
    );
  });
});
