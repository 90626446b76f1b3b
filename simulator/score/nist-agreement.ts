/**
 * `simulator score` beside NIST's own tools on one meeting: the truth's
 * formats (truth-formats.ts) and the hypothesis written out, scored by sclite
 * and md-eval, and by scoreMeeting with sclite's alignment (`--alignment
 * sclite`; decisions 113 and 165), its default Levenshtein figures beside:
 *
 *   WER    sclite's DP alignment of the truth CTM's words against the hypothesis CTM's,
 *          each file's words in its order as one utterance (trn): the one global
 *          alignment `simulator score` makes
 *   cpWER  sclite on transcripts: each reference speaker's words against those of the
 *          hypothesis speaker cpWER paired with it, unpaired speakers as empty partners
 *   DER    md-eval.pl -c <collar> on the truth RTTM, and with -1 (overlap not scored)
 *
 * and, for information, two time-constrained scorings that are not the same
 * measure as WER (decision 165): sclite reading both CTMs as CTM (it first
 * cuts the recording into chunks of about 50 words at silences common to
 * both files, then aligns each chunk, so a hypothesis word whose time drifts
 * across a cut counts twice), and sclite's segment scoring of the truth STM
 * against the hypothesis CTM (words assigned to segments by their midpoint).
 */
import { normalizeWords } from './normalize-words.ts';
import { toRttm } from './der.ts';
import type { DiarizationTurn } from './der.ts';
import { wordsBySpeaker } from './cpwer.ts';
import type { HypothesisWord } from './formats/hypothesis.ts';
import { cpwerTranscripts, runMdEval, runSclite, wordsToCtm } from './nist-tools.ts';
import type { SctkTools } from './nist-tools.ts';
import { scoreMeeting, speakerAt } from './score-meeting.ts';
import { speakerTurns, truthCtm, truthRttm, truthStm, truthTokens } from '../truth-formats/truth-formats.ts';
import type { TruthWords } from '../truth-formats/truth-formats.ts';

export interface Agreement {
  /** Each pair: `simulator score`'s figure and NIST's, in percent. */
  wer: { ours: number; nist: number };
  cpwer: { ours: number; nist: number };
  der: { ours: number; nist: number };
  der_ignore_overlap: { ours: number; nist: number };
  /** `simulator score`'s default (Levenshtein) WER and cpWER, percent (information: at or under sclite's). */
  wer_levenshtein: number;
  cpwer_levenshtein: number;
  /** sclite's WER with both files read as CTM (chunked at common silences), percent (information, not compared). */
  ctm_wer: number;
  /** sclite's segment-scored WER of the truth STM, percent (information, not compared). */
  stm_wer: number;
  /** The largest |ours − NIST| of the four, percentage points. */
  max_difference: number;
}

/** Hypothesis words as timed scoring tokens (a word normalizing to several shares its time), for CTM. */
function hypothesisTokens(words: readonly HypothesisWord[]): { text: string; start: number; end: number; speaker: string | null }[] {
  return words.flatMap((w) => {
    const parts = normalizeWords(w.text);
    const start = w.start ?? 0;
    const share = ((w.end ?? start) - start) / Math.max(1, parts.length);
    return parts.map((text, i) => ({ text, start: start + i * share, end: start + (i + 1) * share, speaker: w.speaker }));
  });
}

/** A CTM's words, in the file's order, as one sclite transcript utterance. */
export function ctmAsTranscript(ctm: string, utterance: string): string {
  const words = ctm
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith(';;'))
    .map((line) => line.trim().split(/\s+/)[4] ?? '');
  return `${words.join(' ')} (${utterance})\n`;
}

/**
 * Scores `words` (timed, speakers optional) and `turns` both ways. `collar`
 * is md-eval's -c. Throws when a tool fails.
 */
export function nistAgreement(
  tools: SctkTools,
  truth: TruthWords,
  session: string,
  words: readonly HypothesisWord[],
  turns: readonly DiarizationTurn[],
  collar = 0.25,
): Agreement {
  const tokens = truthTokens(truth);
  const refTurns = speakerTurns(tokens);
  const scoring = { truth, words, turns, summary: null, keyPoints: null, collarSeconds: collar, ignoreOverlap: false };
  const ours = scoreMeeting({ ...scoring, alignment: 'sclite' });
  const levenshtein = scoreMeeting(scoring);
  const oursSingle = scoreMeeting({
    truth,
    words: null,
    turns,
    summary: null,
    keyPoints: null,
    collarSeconds: collar,
    ignoreOverlap: true,
  });
  const hypCtm = wordsToCtm(hypothesisTokens(words), session);
  const refCtm = truthCtm(tokens, session);
  const utterance = `${session.replace(/[^A-Za-z0-9]+/g, '_')}_1`;
  const wer = runSclite(
    tools,
    { text: ctmAsTranscript(refCtm, utterance), format: 'trn' },
    { text: ctmAsTranscript(hypCtm, utterance), format: 'trn' },
  );
  const ctm = runSclite(tools, { text: refCtm, format: 'ctm' }, { text: hypCtm, format: 'ctm' });
  const stm = runSclite(tools, { text: truthStm(refTurns, session), format: 'stm' }, { text: hypCtm, format: 'ctm' });
  const cp = ours.cpwer!;
  const refBySpeaker = wordsBySpeaker(tokens.map((t) => ({ text: t.word, speaker: t.speaker })));
  const hypBySpeaker = wordsBySpeaker(
    words.map((w) => ({ text: w.text, speaker: w.speaker ?? speakerAt(turns, w.start ?? 0, w.end ?? 0) ?? '' })),
  ).map((s) => ({ speaker: s.speaker, words: s.words.flatMap((x) => normalizeWords(x)) }));
  const trn = cpwerTranscripts(refBySpeaker, hypBySpeaker, cp.mapping);
  const cpNist = runSclite(tools, { text: trn.ref, format: 'trn' }, { text: trn.hyp, format: 'trn' });
  const refRttm = truthRttm(refTurns, session);
  const hypRttm = toRttm(turns, session);
  const der = runMdEval(tools, refRttm, hypRttm, { collar, ignoreOverlap: false });
  const derSingle = runMdEval(tools, refRttm, hypRttm, { collar, ignoreOverlap: true });
  const pairs = {
    wer: { ours: 100 * ours.wer!.wer, nist: 100 * wer.wer },
    cpwer: { ours: 100 * cp.cpwer, nist: 100 * cpNist.wer },
    der: { ours: 100 * ours.der!.der, nist: der.der },
    der_ignore_overlap: { ours: 100 * oursSingle.der!.der, nist: derSingle.der },
  };
  const max = Math.max(...Object.values(pairs).map((p) => Math.abs(p.ours - p.nist)));
  return {
    ...pairs,
    wer_levenshtein: 100 * levenshtein.wer!.wer,
    cpwer_levenshtein: 100 * levenshtein.cpwer!.cpwer,
    ctm_wer: 100 * ctm.wer,
    stm_wer: 100 * stm.wer,
    max_difference: max,
  };
}
