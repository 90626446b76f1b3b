import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const CLI = path.join(import.meta.dirname, '..', 'cli.ts');
let dir = '';
let truth = '';

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const w = (text: string, start: number, end: number, speaker: string) => ({ text, start, end, speaker });

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'score-command-'));
  truth = path.join(dir, 'm.truth.json');
  // B's "wait" starts under A's "plan".
  const words = [
    w('So', 0.5, 0.7, 'S1'),
    w('the', 0.7, 0.8, 'S1'),
    w('plan', 0.8, 1.6, 'S1'),
    w('Wait', 1.2, 1.5, 'S2'),
    w('what', 1.5, 2.0, 'S2'),
  ];
  await writeFile(truth, JSON.stringify({ title: 'm', words, turns: [], speakers: [] }));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('simulator/cli.ts score', () => {
  it('scores a CTM with an RTTM and prints every figure', async () => {
    await writeFile(path.join(dir, 'h.ctm'), 'm 1 0.5 0.2 so\nm 1 0.7 0.1 the\nm 1 0.8 0.8 plan\nm 1 1.2 0.3 wait\nm 1 1.5 0.5 what\n');
    await writeFile(path.join(dir, 'h.rttm'), 'SPEAKER m 1 0.5 1.1 <NA> <NA> x <NA> <NA>\nSPEAKER m 1 1.2 0.8 <NA> <NA> y <NA> <NA>\n');
    const r = cli('score', truth, `--transcript=${path.join(dir, 'h.ctm')}`, `--diarization=${path.join(dir, 'h.rttm')}`, '--collar', '0');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^WER\s+0\.00 %/m);
    assert.match(r.stdout, /^cpWER\s+0\.00 %.*x→S1 y→S2/m);
    assert.match(r.stdout, /^DER\s+0\.00 %.*collar 0 s, overlap scored/m);
    assert.match(r.stdout, /^speakers\s+2 found, 2 in the truth/m);
  });

  it('--json gives the figures; --ignore-overlap is md-eval’s -1', () => {
    const r = cli('score', truth, `--diarization=${path.join(dir, 'h.rttm')}`, '--ignore-overlap', '--json');
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout) as { der: { ignore_overlap: boolean }; wer: unknown };
    assert.equal(json.der.ignore_overlap, true);
    assert.equal(json.wer, null);
  });

  it('a malformed hypothesis: one line with file, line and what was expected, exit 2, nothing scored', async () => {
    const bad = path.join(dir, 'bad.srt');
    await writeFile(bad, '1\n00:00:01,000 --> 00:00:02,000\nhello\n\n2\n00:00:03 --> 00:00:04\nthere\n');
    const r = cli('score', truth, `--transcript=${bad}`);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `error: ${bad}: line 6: expected a cue timing "00:00:01,000 --> 00:00:02,500", got "00:00:03 --> 00:00:04" (read as srt)\n`,
    );
  });

  it('refuses a bad truth, a bad collar, an unknown alignment and nothing to score, exit 2', async () => {
    const notTruth = path.join(dir, 'x.json');
    await writeFile(notTruth, '{"words": [{"text": "a"}]}');
    const r = cli('score', notTruth, `--transcript=${path.join(dir, 'h.ctm')}`);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /x\.json: words\.0\.start: expected a truth file's words/);
    assert.equal(cli('score', truth, `--diarization=${path.join(dir, 'h.rttm')}`, '--collar', '-1').code, 2);
    assert.match(cli('score', truth).stderr, /at least one of --transcript, --diarization, --summary/);
    assert.match(cli('score', truth, '--summary', path.join(dir, 'h.ctm')).stderr, /--summary needs --script/);
    const alignment = cli('score', truth, `--transcript=${path.join(dir, 'h.ctm')}`, '--alignment=nist');
    assert.equal(alignment.code, 2);
    assert.match(alignment.stderr, /--alignment expects levenshtein or sclite, got "nist"/);
    assert.equal(cli('score', truth, `--transcript=${path.join(dir, 'h.ctm')}`, '--alignment=sclite').code, 0);
  });

  it('truth-formats writes the four formats of an existing truth file', async () => {
    const r = cli('truth-formats', truth);
    assert.equal(r.code, 0, r.stderr);
    assert.match(await readFile(path.join(dir, 'm.stm'), 'utf8'), /^m 1 S2 1\.200 2\.000 wait what$/m);
  });
});
