import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asRecognized, STANDUP } from '../../testing/recognized-lines.ts';
import { nameCandidates, proposeNames, type MentionSegment } from './name-mentions.ts';

const standup = STANDUP;

describe('nameCandidates', () => {
  it('takes capitalized one-word custom words and every word of a known speaker, known speakers first', () => {
    const c = nameCandidates(['Fiona Grant'], ['Fiona', 'Hiro', 'demo', 'pull requests', 'Raj']);
    assert.deepEqual(
      [...c],
      [
        ['fiona', 'Fiona Grant'],
        ['hiro', 'Hiro'],
        ['raj', 'Raj'],
        ['grant', 'Fiona Grant'],
      ],
    );
  });
});

describe('proposeNames on the four-person standup', () => {
  const segments = asRecognized(standup.lines);
  const fromBias = nameCandidates([], standup.bias.custom_words);

  it('names the three people the talk hands over to or thanks, with the words and their time', () => {
    const proposals = proposeNames(segments, fromBias, new Map());
    assert.deepEqual(
      proposals.map((p) => [p.speaker, p.name, p.cue, p.evidence]),
      [
        ['S2', 'Emeka', 'addressed', 'emeka do you want to start'],
        ['S3', 'Fiona', 'addressed', 'thanks fiona'],
        ['S4', 'Hiro', 'thanked', 'thank you hiro that'],
      ],
    );
    // "thanks fiona": the name's own word time, inside S1's turn, before S3 speaks.
    const fiona = proposals[1]!;
    const said = segments.flatMap((s) => s.words).find((w) => w.text === 'fiona')!;
    assert.equal(fiona.at, said.start);
    assert.ok(fiona.at < segments.find((s) => s.speaker === 'S3')!.start);
  });

  it("gives a known speaker's whole name, and nothing to a speaker already named by voice or by the user", () => {
    const known = nameCandidates(['Fiona Grant', 'Hiro Tanaka'], standup.bias.custom_words);
    const proposals = proposeNames(segments, known, new Map([['S4', 'Hiro Tanaka']]));
    assert.deepEqual(
      proposals.map((p) => [p.speaker, p.name]),
      [
        ['S2', 'Emeka'],
        ['S3', 'Fiona Grant'],
      ],
    );
    // A name a labelled speaker carries is proposed for nobody else.
    assert.deepEqual(
      proposeNames(segments, known, new Map([['S1', 'Fiona Grant']])).map((p) => p.name),
      ['Emeka', 'Hiro Tanaka'],
    );
  });

  it("proposes nothing without candidates: the recognizer's words alone are no names", () => {
    assert.deepEqual(proposeNames(segments, new Map(), new Map()), []);
    assert.deepEqual(proposeNames(segments, nameCandidates([], ['migration', 'staging']), new Map()), []);
  });
});

describe('proposeNames cues', () => {
  const names = nameCandidates([], ['Fiona', 'Raj']);
  it('a name in the middle of a long turn is no cue; a name to oneself is none; a late reply is none', () => {
    const mid = asRecognized([
      { speaker: 'S1', text: 'I spoke with raj about the budget and then we went through every line of the plan together' },
      { speaker: 'S2', text: 'sounds good' },
    ]);
    assert.deepEqual(proposeNames(mid, names, new Map()), []);
    const late: MentionSegment[] = asRecognized([{ speaker: 'S1', text: 'fiona what about you' }]);
    late.push({ speaker: 'S2', start: 60, end: 62, text: 'yes', words: [{ text: 'yes', start: 60 }] });
    assert.deepEqual(proposeNames(late, names, new Map()), []);
  });

  it('the pair with the most cues wins a contested name; segments without word times still count', () => {
    const talk: MentionSegment[] = [
      { speaker: 'S1', start: 0, end: 2, text: 'fiona your turn', words: [] },
      { speaker: 'S2', start: 3, end: 5, text: 'done', words: [] },
      { speaker: 'S1', start: 6, end: 8, text: 'raj', words: [] },
      { speaker: 'S3', start: 9, end: 11, text: 'done too', words: [] },
      { speaker: 'S1', start: 12, end: 14, text: 'and fiona again', words: [] },
      { speaker: 'S3', start: 15, end: 16, text: 'ok', words: [] },
      { speaker: 'S1', start: 17, end: 18, text: 'fiona', words: [] },
      { speaker: 'S3', start: 19, end: 20, text: 'yes', words: [] },
    ];
    assert.deepEqual(
      proposeNames(talk, names, new Map()).map((p) => [p.speaker, p.name, p.at]),
      [['S3', 'Fiona', 12]],
    );
  });
});
