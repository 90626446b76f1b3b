import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HypothesisWord } from './formats/hypothesis.ts';
import { formatMeetingScore, scoreMeeting, speakerAt } from './score-meeting.ts';
import type { ScoreInputs } from './score-meeting.ts';

const w = (text: string, start: number, end: number, speaker: string) => ({ text, start, end, speaker });
const h = (text: string, start: number | null, end: number | null, speaker: string | null = null): HypothesisWord => ({
  text,
  start,
  end,
  speaker,
});

/** A and B talk over each other from 1.2 s to 1.6 s. */
const truth = {
  words: [w('So', 0.5, 0.7, 'A'), w('the', 0.7, 0.8, 'A'), w('plan', 0.8, 1.6, 'A'), w('Wait', 1.2, 1.5, 'B'), w('what', 1.5, 2.0, 'B')],
};

const inputs = (over: Partial<ScoreInputs>): ScoreInputs => ({
  truth,
  words: null,
  turns: null,
  summary: null,
  keyPoints: null,
  collarSeconds: 0.25,
  ignoreOverlap: false,
  ...over,
});

describe('scoreMeeting', () => {
  it('scores WER over all words in time order and cpWER with the transcript’s own speakers', () => {
    const words = [
      h('so', 0.5, 0.7, 'x'),
      h('the', 0.7, 0.8, 'x'),
      h('wait', 1.2, 1.5, 'y'),
      h('plan', 1.3, 1.6, 'x'),
      h('what', 1.5, 2, 'y'),
    ];
    const s = scoreMeeting(inputs({ words }));
    // Time order of the truth: so the plan wait what; the hypothesis puts wait before plan.
    assert.equal(s.wer!.wer, 2 / 5);
    assert.equal(s.cpwer!.cpwer, 0);
    assert.deepEqual(s.cpwer!.mapping, { x: 'A', y: 'B' });
    assert.deepEqual(s.speakers, { reference: 2, hypothesis: 2 });
    assert.equal(s.der, null);
  });

  it('takes speakers from the diarization by time when the transcript has none', () => {
    const words = [h('so', 0.5, 0.7), h('the', 0.7, 0.8), h('plan', 0.8, 1.1), h('wait', 1.6, 1.7), h('what', 1.7, 2)];
    const turns = [
      { speaker: 'p', start: 0.5, end: 1.2 },
      { speaker: 'q', start: 1.5, end: 2 },
    ];
    const s = scoreMeeting(inputs({ words, turns, collarSeconds: 0 }));
    assert.equal(s.cpwer!.cpwer, 0);
    // The overlap and the 0.3 s A speaks alone after p stops are missed.
    assert.ok(s.der !== null && s.der.der > 0);
    assert.equal(s.der.collar_seconds, 0);
  });

  it('says why cpWER is not scored for a plain transcript', () => {
    const s = scoreMeeting(inputs({ words: [h('so', null, null)] }));
    assert.equal(s.cpwer, null);
    assert.match(s.cpwer_unavailable!, /names no speakers/);
    const untimed = scoreMeeting(inputs({ words: [h('so', null, null)], turns: [{ speaker: 'p', start: 0, end: 1 }] }));
    assert.match(untimed.cpwer_unavailable!, /no word times/);
  });

  it('scores DER on the word-merged reference turns, overlap scored or not', () => {
    const turns = [
      { speaker: 'p', start: 0.5, end: 1.6 },
      { speaker: 'q', start: 1.2, end: 2 },
    ];
    assert.equal(scoreMeeting(inputs({ turns, collarSeconds: 0 })).der!.der, 0);
    // q missing: its 0.8 s are missed, of 1.9 s of speaker time; with overlap not scored, 0.4 s of 1.1 s.
    const one = [{ speaker: 'p', start: 0.5, end: 1.6 }];
    assert.ok(Math.abs(scoreMeeting(inputs({ turns: one, collarSeconds: 0 })).der!.der - 0.8 / 1.9) < 1e-9);
    assert.ok(Math.abs(scoreMeeting(inputs({ turns: one, collarSeconds: 0, ignoreOverlap: true })).der!.der - 0.4 / 1.1) < 1e-9);
  });

  it('scores a summary’s key points', () => {
    const s = scoreMeeting(
      inputs({ summary: 'We ship the invoices on Friday.', keyPoints: [{ kind: 'decision', text: 'Invoices ship Friday' }] }),
    );
    assert.equal(s.key_points!.appeared, 1);
  });
});

describe('speakerAt', () => {
  it('takes the turn overlapping the word most, the later one on a tie, else the nearest', () => {
    const overlapping = [
      { speaker: 'x', start: 0.5, end: 1.6 },
      { speaker: 'y', start: 1.2, end: 2 },
    ];
    assert.equal(speakerAt(overlapping, 0.8, 1.6), 'x');
    assert.equal(speakerAt(overlapping, 1.2, 1.5), 'y');
    const turns = [
      { speaker: 'p', start: 0, end: 1 },
      { speaker: 'q', start: 3, end: 4 },
    ];
    assert.equal(speakerAt(turns, 0.2, 0.4), 'p');
    assert.equal(speakerAt(turns, 2.2, 2.4), 'q');
    assert.equal(speakerAt([], 0, 1), null);
  });
});

describe('formatMeetingScore', () => {
  it('prints a line per figure', () => {
    const text = formatMeetingScore(
      scoreMeeting(
        inputs({
          words: [h('so', 0.5, 0.7, 'x')],
          turns: [{ speaker: 'x', start: 0.5, end: 1.6 }],
          summary: 'plan',
          keyPoints: [{ kind: 'decision', text: 'the plan' }],
        }),
      ),
    );
    for (const label of ['reference', 'WER', 'cpWER', 'DER', 'speakers', 'key points']) assert.match(text, new RegExp(`^${label} `, 'm'));
  });
});
