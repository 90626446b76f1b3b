/**
 * The truth formats read by NIST's own tools, and `simulator score` agreeing
 * with them to 0.1 point: sclite on the truth CTM's words (WER) and on the cpWER
 * pairing, md-eval on the truth RTTM (DER, with and without -1), for
 * hand-made truths with overlapping speech and for random meetings.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { seededRandom } from '../seeded-random.ts';
import { speakerTurns, truthStm, truthTokens, writeTruthFormats } from '../truth-formats/truth-formats.ts';
import type { DiarizationTurn } from './der.ts';
import type { HypothesisWord } from './formats/hypothesis.ts';
import { ctmAsTranscript, nistAgreement } from './nist-agreement.ts';
import { findSctk, runSclite, wordsToCtm } from './nist-tools.ts';
import { wordErrorRate } from './word-error-rate.ts';

const tools = findSctk();
const skip = tools === null ? 'sctk (sclite, md-eval.pl) is not installed: `make test` installs it (apt-get install sctk)' : false;

type TruthWord = { text: string; start: number; end: number; speaker: string };
const w = (text: string, start: number, end: number, speaker: string): TruthWord => ({ text, start, end, speaker });
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

const VOCABULARY = 'the plan ship friday budget review invoice portal release team customer wait yes right okay mm hmm so we need it'.split(
  ' ',
);

/**
 * A random meeting of 2–4 speakers: turns of a few words, with pauses, and
 * about a third of them starting under the previous one (an interruption or
 * a backchannel), so two speakers' words run at the same time.
 */
function randomTruth(seed: number): TruthWord[] {
  const rnd = seededRandom(seed);
  const speakers = rnd.int(2, 4);
  const words: TruthWord[] = [];
  let now = 0.5;
  let lastEnd = 0.5;
  for (let turn = 0; turn < rnd.int(6, 18); turn++) {
    const speaker = `S${rnd.int(1, speakers)}`;
    let t = rnd.next() < 0.35 ? Math.max(0.2, lastEnd - 0.3 - rnd.next() * 1.2) : lastEnd + rnd.next() * 1.5;
    for (let i = 0; i < rnd.int(1, 12); i++) {
      const length = 0.15 + rnd.next() * 0.4;
      words.push(w(rnd.pick(VOCABULARY), round3(t), round3(t + length), speaker));
      t += length + (rnd.next() < 0.1 ? 0.3 + rnd.next() * 0.6 : 0);
    }
    now = Math.max(now, t);
    lastEnd = t;
  }
  return words.sort((a, b) => a.start - b.start);
}

/** A recognizer's and a diarizer's view of `truth`: words substituted, dropped, invented, shifted; turns shifted, split, relabelled. */
function randomHypothesis(truth: readonly TruthWord[], seed: number): { words: HypothesisWord[]; turns: DiarizationTurn[] } {
  const rnd = seededRandom(seed * 7919);
  const words: HypothesisWord[] = [];
  for (const t of truth) {
    const roll = rnd.next();
    if (roll < 0.08) continue;
    const shift = (rnd.next() - 0.5) * 0.1;
    const start = round3(Math.max(0, t.start + shift));
    words.push({ text: roll < 0.2 ? rnd.pick(VOCABULARY) : t.text, start, end: round3(Math.max(start, t.end + shift)), speaker: null });
    if (rnd.next() < 0.05) words.push({ text: rnd.pick(VOCABULARY), start: round3(t.end), end: round3(t.end + 0.1), speaker: null });
  }
  words.sort((a, b) => a.start! - b.start!);
  const turns = speakerTurns(truthTokens({ words: truth })).map((t) => ({
    speaker: rnd.next() < 0.15 ? 'extra' : `h${t.speaker}`,
    start: round3(Math.max(0, t.start + (rnd.next() - 0.5) * 0.6)),
    end: round3(t.end + (rnd.next() - 0.5) * 0.6),
  }));
  return { words, turns: turns.filter((t) => t.end > t.start) };
}

/** Two speakers over each other, a backchannel under a third, and a hypothesis that interleaves them differently. */
const HAND_MADE: { name: string; truth: TruthWord[]; words: HypothesisWord[]; turns: DiarizationTurn[] }[] = [
  {
    name: 'an interruption and a backchannel',
    truth: [
      w('So', 0.5, 0.7, 'A'),
      w('the', 0.7, 0.8, 'A'),
      w('follow-up', 0.8, 1.4, 'A'),
      w('Wait,', 1.2, 1.5, 'B'),
      w('is', 1.45, 1.6, 'A'),
      w('what', 1.5, 1.7, 'B'),
      w('about', 1.7, 2.0, 'B'),
      w('Mm-hmm.', 1.9, 2.3, 'C'),
      w('Q3?', 2.0, 2.6, 'B'),
      w('Right.', 3.4, 3.8, 'A'),
    ],
    words: [
      { text: 'so', start: 0.5, end: 0.7, speaker: null },
      { text: 'the', start: 0.7, end: 0.8, speaker: null },
      { text: 'follow', start: 0.8, end: 1.1, speaker: null },
      { text: 'wait', start: 1.25, end: 1.5, speaker: null },
      { text: 'what', start: 1.5, end: 1.7, speaker: null },
      { text: 'about', start: 1.7, end: 2.0, speaker: null },
      { text: 'q3', start: 2.0, end: 2.6, speaker: null },
      { text: 'right', start: 3.4, end: 3.8, speaker: null },
    ],
    turns: [
      { speaker: 'x', start: 0.5, end: 1.3 },
      { speaker: 'y', start: 1.3, end: 2.6 },
      { speaker: 'x', start: 3.4, end: 3.8 },
    ],
  },
  {
    name: 'two people starting at once',
    truth: [
      w('I', 1, 1.2, 'A'),
      w('think', 1.2, 1.5, 'A'),
      w('we', 1.5, 1.7, 'A'),
      w('Can', 1.05, 1.3, 'B'),
      w('I', 1.3, 1.4, 'B'),
      w('ask', 1.4, 1.8, 'B'),
      w('go', 1.8, 2.1, 'A'),
      w('on', 2.1, 2.5, 'A'),
      w('Thanks', 3.2, 3.7, 'B'),
    ],
    words: [
      { text: 'i', start: 1, end: 1.2, speaker: null },
      { text: 'can', start: 1.05, end: 1.3, speaker: null },
      { text: 'think', start: 1.2, end: 1.5, speaker: null },
      { text: 'ask', start: 1.4, end: 1.8, speaker: null },
      { text: 'go', start: 1.8, end: 2.1, speaker: null },
      { text: 'on', start: 2.1, end: 2.5, speaker: null },
      { text: 'thanks', start: 3.2, end: 3.7, speaker: null },
    ],
    turns: [
      { speaker: 'x', start: 1, end: 2.5 },
      { speaker: 'y', start: 1.05, end: 1.8 },
      { speaker: 'x', start: 3.2, end: 3.7 },
    ],
  },
];

it("ctmAsTranscript: a CTM's words in file order as one sclite utterance, comments left out", () => {
  assert.equal(ctmAsTranscript(';; comment\nm 1 0.000 0.500 hello\nm 1 0.600 0.300 there\n', 'm_1'), 'hello there (m_1)\n');
});

describe('simulator score against sclite and md-eval', { skip }, () => {
  const cases = [...HAND_MADE];
  for (let seed = 1; seed <= 12; seed++) {
    const truth = randomTruth(seed);
    cases.push({ name: `random meeting ${seed}`, truth, ...randomHypothesis(truth, seed) });
  }
  for (const c of cases) {
    it(`agrees to 0.1 point on: ${c.name}`, () => {
      for (const collar of [0, 0.25]) {
        const a = nistAgreement(tools!, { words: c.truth }, 'meeting', c.words, c.turns, collar);
        for (const key of ['wer', 'cpwer', 'der', 'der_ignore_overlap'] as const) {
          assert.ok(Math.abs(a[key].ours - a[key].nist) <= 0.1, `${key} (collar ${collar}): ours ${a[key].ours} vs NIST ${a[key].nist}`);
        }
      }
    });
  }

  it('the hand-made truths have overlapping turns, and the random ones mostly do', () => {
    const overlapping = cases.filter((c) => {
      const turns = speakerTurns(truthTokens({ words: c.truth }));
      return turns.some((t, i) => turns.some((u, j) => i !== j && u.speaker !== t.speaker && u.start < t.end && t.start < u.end));
    });
    assert.ok(overlapping.length >= cases.length / 2, `${overlapping.length} of ${cases.length}`);
  });

  it('sclite reads the truth STM: its own CTM scores 0 errors on every word when nobody overlaps', () => {
    const truth = [w('hello', 0.5, 0.9, 'A'), w('there', 0.9, 1.2, 'A'), w('fine', 2, 2.4, 'B'), w('thanks', 2.4, 2.9, 'B')];
    const tokens = truthTokens({ words: truth });
    const counts = runSclite(
      tools!,
      { text: truthStm(speakerTurns(tokens), 'meeting'), format: 'stm' },
      {
        text: wordsToCtm(
          tokens.map((t) => ({ text: t.word, start: t.start, end: t.end })),
          'meeting',
        ),
        format: 'ctm',
      },
    );
    assert.deepEqual([counts.correct, counts.errors], [4, 0]);
  });

  it('sctk’s validators accept the STM, CTM and RTTM of an overlapping truth', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'truth-validators-'));
    try {
      // Two people starting at once. (Not the first truth: the validators' English check refuses a token with a digit, "q3", which sclite itself scores.)
      const paths = await writeTruthFormats({ words: HAND_MADE[1]!.truth }, path.join(dir, 'meeting.truth.json'));
      const bin = path.dirname(tools!.sclite);
      const run = (tool: string, ...args: string[]) =>
        execFileSync('perl', [path.join(bin, tool), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      assert.match(run('stmValidator.pl', '-l', 'english', '-i', paths.stm), /Validated/);
      assert.match(run('ctmValidator.pl', '-l', 'english', '-i', paths.ctm), /Validated/);
      // -p: an RTTM of SPEAKER lines only, as diarization tools write and read it (no SPKR-INFO records).
      assert.doesNotMatch(run('rttmValidator.pl', '-p', '-i', paths.rttm), /ERROR/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("WER: sclite reads the CTMs' words as one utterance; read as CTM it cuts at common silences and counts drifted words twice", () => {
    // 120 words, one a second, each 0.5 s long; the hypothesis is the same words 0.7 s late, so no
    // hypothesis word overlaps its reference word and sclite's CTM chunks (about 50 words, cut where
    // both files are silent) separate words that the global alignment pairs.
    const truth = Array.from({ length: 120 }, (_, i) => w(VOCABULARY[i % VOCABULARY.length]!, i, i + 0.5, 'A'));
    const words: HypothesisWord[] = truth.map((t) => ({ text: t.text, start: t.start + 0.7, end: t.end + 0.7, speaker: null }));
    const agreement = nistAgreement(tools!, { words: truth }, 'drift', words, [{ speaker: 'x', start: 0, end: 121 }]);
    assert.equal(agreement.wer.ours, 0);
    assert.equal(agreement.wer.nist, 0);
    assert.ok(agreement.ctm_wer > 0, `sclite's CTM scoring: ${agreement.ctm_wer} %`);
  });

  it("--alignment sclite gives sclite's own counts on word strings with many errors, where the least-edit count can differ", () => {
    const random = seededRandom(165);
    const pick = (): string => VOCABULARY[random.int(0, 5)]!;
    let differ = 0;
    for (let t = 0; t < 40; t++) {
      const ref = Array.from({ length: random.int(20, 140) }, pick);
      // Half the words wrong, some dropped, some added: where the two alignments part.
      const hyp = ref.flatMap((word) => {
        const r = random.next();
        const kept = r < 0.2 ? [] : r < 0.6 ? [pick()] : [word];
        return random.next() < 0.15 ? [...kept, pick()] : kept;
      });
      const nist = runSclite(
        tools!,
        { text: `${ref.join(' ')} (u_1)\n`, format: 'trn' },
        { text: `${hyp.join(' ')} (u_1)\n`, format: 'trn' },
      );
      const ours = wordErrorRate(ref, hyp, 'sclite');
      assert.deepEqual([ours.substitutions, ours.deletions, ours.insertions], [nist.substitutions, nist.deletions, nist.insertions]);
      if (wordErrorRate(ref, hyp).wer !== ours.wer) differ++;
    }
    assert.ok(differ > 0, "some strings where the least-edit count differs from sclite's");
  });
});
