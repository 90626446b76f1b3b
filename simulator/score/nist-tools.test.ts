import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { cpwerTranscripts, findSctk, runMdEval, runSclite, wordsToCtm } from './nist-tools.ts';

const tools = findSctk();
const skip = tools === null ? 'sctk (sclite, md-eval.pl) is not installed: `make test` installs it (apt-get install sctk)' : false;

describe('nist-tools', () => {
  it('findSctk gives paths that exist, or null', () => {
    if (tools !== null) {
      assert.ok(existsSync(tools.sclite));
      assert.ok(existsSync(tools.mdEval));
    }
  });

  it('wordsToCtm writes one line per word', () => {
    assert.equal(wordsToCtm([{ text: 'hi', start: 0.5, end: 0.75 }], 'm'), 'm 1 0.500 0.250 hi\n');
  });

  it('cpwerTranscripts pairs speakers as the mapping says and gives extra speakers empty references', () => {
    const t = cpwerTranscripts(
      [
        { speaker: 'S1', words: ['a', 'b'] },
        { speaker: 'S 2', words: ['c'] },
      ],
      [
        { speaker: 'x', words: ['a'] },
        { speaker: 'y', words: ['d'] },
      ],
      { x: 'S1', y: null },
    );
    assert.equal(t.ref, 'a b (ref_S1)\nc (ref_S_2)\n (extra_y)\n');
    assert.equal(t.hyp, 'a (ref_S1)\n (ref_S_2)\nd (extra_y)\n');
  });

  it('runSclite counts the errors of transcripts, runMdEval a diarization', { skip }, () => {
    const t = cpwerTranscripts([{ speaker: 'A', words: ['a', 'b', 'c'] }], [{ speaker: 'x', words: ['a', 'x'] }], { x: 'A' });
    const counts = runSclite(tools!, { text: t.ref, format: 'trn' }, { text: t.hyp, format: 'trn' });
    assert.deepEqual([counts.correct, counts.substitutions, counts.deletions, counts.insertions], [1, 1, 1, 0]);
    assert.equal(counts.wer, 2 / 3);
    const rttm = 'SPEAKER m 1 0.000 2.000 <NA> <NA> A <NA> <NA>\n';
    assert.equal(runMdEval(tools!, rttm, rttm, { collar: 0, ignoreOverlap: false }).der, 0);
    // Nothing left to score: md-eval dies; the figure is 0.
    assert.equal(runMdEval(tools!, rttm, rttm, { collar: 1, ignoreOverlap: false }).der, 0);
  });
});
