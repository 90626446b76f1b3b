import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DIARIZATION_FORMATS, HypothesisFileError, TRANSCRIPT_FORMATS, detectFormat, readHypothesis } from './read-hypothesis.ts';

describe('detectFormat', () => {
  it('goes by the extension, and for text by the content', () => {
    assert.equal(detectFormat('a.CTM', ''), 'ctm');
    assert.equal(detectFormat('a.webvtt', ''), 'vtt');
    assert.equal(detectFormat('a.json', ''), 'api-json');
    assert.equal(detectFormat('a.md', ''), 'api-export');
    assert.equal(detectFormat('a.txt', 'Title\n=====\n\nDate: x\n\nTRANSCRIPT\n'), 'api-export');
    assert.equal(detectFormat('a.txt', 'hello there\n<s> 0.000 0.140 0.999400\n'), 'pocketsphinx');
    assert.equal(detectFormat('a.txt', 'hello there 2 3 4\n'), 'txt');
    assert.equal(detectFormat('a.txt', 'ok 1 2 3\n'), 'txt');
    assert.equal(detectFormat('a.wav', ''), null);
  });
});

describe('readHypothesis', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'read-hypothesis-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file in the format it names', async () => {
    const file = path.join(dir, 'h.ctm');
    await writeFile(file, 'm 1 0.1 0.2 hello\n');
    const h = await readHypothesis(file, undefined, TRANSCRIPT_FORMATS);
    assert.equal(h.format, 'ctm');
    assert.equal(h.words.length, 1);
  });

  it('names the file, the line and what was expected in one line', async () => {
    const file = path.join(dir, 'bad.ctm');
    await writeFile(file, 'm 1 0.1 0.2 hello\nm 1 0.5 hello\n');
    await assert.rejects(readHypothesis(file, undefined, TRANSCRIPT_FORMATS), (error: unknown) => {
      assert.ok(error instanceof HypothesisFileError);
      assert.equal(
        error.message,
        `${file}: line 2: expected "<file> <channel> <start> <duration> <word> [<confidence>]" (a CTM line of 5 or 6 fields) (read as ctm)`,
      );
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
  });

  it('refuses a missing file, an unknown extension and a format the caller does not score', async () => {
    await assert.rejects(readHypothesis(path.join(dir, 'none.ctm'), undefined, TRANSCRIPT_FORMATS), /none\.ctm: cannot be read \(ENOENT\)/);
    const wav = path.join(dir, 'x.wav');
    await writeFile(wav, 'RIFF');
    await assert.rejects(readHypothesis(wav, undefined, TRANSCRIPT_FORMATS), /cannot tell the format/);
    await assert.rejects(readHypothesis(wav, 'ctm', DIARIZATION_FORMATS), /format "ctm" is not one of rttm, api-json, stm/);
  });
});
