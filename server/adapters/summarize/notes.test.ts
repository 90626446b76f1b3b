/**
 * The extractors of the meeting notes (notes.ts), each on sentences it must
 * take and sentences it must not: negations, questions, reported speech, a
 * future that is no commitment; punctuated and recognizer-like text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SummaryInput } from '../../pipeline/types.ts';
import { dueDate } from './dates.ts';
import { cleanSpoken } from './notes-grammar.ts';
import { extractNotes, wordBudget, type MeetingNotes } from './notes.ts';

type Line = [speaker: string, text: string];

function notes(lines: readonly Line[], meetingDate = '2026-11-23T09:00:00Z'): MeetingNotes {
  const segments: SummaryInput['segments'] = lines.map(([speaker, text], i) => ({
    speaker,
    speaker_name: null,
    start: i * 10,
    end: i * 10 + 8,
    text,
  }));
  return extractNotes({ title: 't', language: 'en', templateId: 'meeting_notes', segments, meetingDate }, { meetingDate });
}

const texts = (items: readonly { text: string }[]) => items.map((i) => i.text);
/** The same lines as a recognizer writes them: lower case, no punctuation. */
const asr = (lines: readonly Line[]): Line[] => lines.map(([s, t]) => [s, t.toLowerCase().replace(/[^a-z0-9' ]/g, '')]);

describe('decisions', () => {
  it('takes what was decided or agreed, with who agreed', () => {
    const n = notes([
      ['Ann', 'After all that we decided to use the rubber case for the remote.'],
      ['Bob', "Let's go with the yellow colour scheme for the buttons."],
      ['Cid', 'Sounds good.'],
      ['Ann', 'Then the final review happens on Thursday morning with the whole team.'],
      ['Bob', 'Agreed.'],
    ]);
    assert.deepEqual(texts(n.decisions), [
      'After all that we decided to use the rubber case for the remote.',
      "Let's go with the yellow colour scheme for the buttons.",
      'The final review happens on Thursday morning with the whole team.',
    ]);
    assert.deepEqual(n.decisions[1]!.agreedBy, ['Cid']);
    assert.deepEqual(n.decisions[2]!.agreedBy, ['Bob']);
    assert.equal(n.decisions[0]!.start, 0);
    assert.equal(n.decisions[2]!.start, 30);
  });

  it('does not take negations, questions, reported speech, or a proposal someone disputes', () => {
    const n = notes([
      ['Ann', "We haven't decided on the colour of the case yet."],
      ['Bob', 'Have we agreed on the budget for the launch event?'],
      ['Cid', 'Marketing said they decided to cancel the trade fair entirely.'],
      ['Ann', 'We could move the final review to Friday afternoon instead.'],
      ['Bob', "No, I don't think that works for the designers."],
    ]);
    assert.deepEqual(texts(n.decisions), []);
  });

  it('works on recognizer output', () => {
    const n = notes(asr([['Ann', 'So we agreed to ship the beta to the pilot customers next week.']]));
    assert.deepEqual(texts(n.decisions), ['We agreed to ship the beta to the pilot customers next week.']);
  });
});

describe('action items', () => {
  it('takes a speaker committing, with the task and the due date read against the meeting date', () => {
    const n = notes([
      ['Ann', 'I will send the updated budget to finance by Friday.'],
      ['Bob', "I'm going to draft the user survey questions."],
      ['Cid', 'Let me check the licence terms with legal tomorrow.'],
    ]);
    assert.deepEqual(
      n.actions.map((a) => [a.owner, a.text, a.due]),
      [
        ['Ann', 'send the updated budget to finance by Friday', '2026-11-27'],
        ['Bob', 'draft the user survey questions', undefined],
        ['Cid', 'check the licence terms with legal tomorrow', '2026-11-24'],
      ],
    );
  });

  it('takes a task given to someone named, or to "you" when the other side is known', () => {
    const n = notes([
      ['Ann', 'Priya will fix the currency bug in the billing service.'],
      ['Bob', 'Finance approved it, so you can book the servers today.'],
    ]);
    assert.deepEqual(
      n.actions.map((a) => [a.owner, a.text, a.due]),
      [
        ['Priya', 'fix the currency bug in the billing service', undefined],
        ['Ann', 'book the servers today', '2026-11-23'],
      ],
    );
  });

  it('takes the owner named in answer to "who owns …?", reported by another speaker', () => {
    const lines: Line[] = [
      ['Ben', 'Then we fix that first. Who owns the billing service right now?'],
      ['Alice', 'Priya does. She thinks the fix takes about two days.'],
    ];
    for (const n of [notes(lines), notes(asr(lines))])
      assert.deepEqual(
        n.actions.map((a) => [a.owner, a.text.toLowerCase(), a.due, a.speaker]),
        [['Priya', 'the billing service; she thinks the fix takes about two days', undefined, 'Alice']],
      );
    // "I do." names the one replying.
    const self = notes([
      ['Ben', 'Who is handling the release notes?'],
      ['Alice', 'I do, I started them yesterday.'],
    ]);
    assert.deepEqual(
      self.actions.map((a) => [a.owner, a.text]),
      [['Alice', 'the release notes; i started them yesterday']],
    );
  });

  it('does not take an owner from a reply naming no one, a reply to another question, or the asker answering herself', () => {
    const n = notes([
      ['Ben', 'Who owns the billing service right now?'],
      ['Alice', 'Nobody does, Priya left last month.'],
      ['Ben', 'Who was at the review yesterday?'],
      ['Alice', 'Priya was there with the design team.'],
      ['Ben', 'Who handles the invoices? Priya does, I think.'],
    ]);
    assert.deepEqual(n.actions, []);
  });

  it('"can you …?" is a task only when the other side takes it', () => {
    const taken = notes([
      ['Ann', 'Bob, can you send the minutes to the client?'],
      ['Bob', 'Sure, will do.'],
    ]);
    assert.deepEqual(
      taken.actions.map((a) => [a.owner, a.text]),
      [['Bob', 'send the minutes to the client']],
    );
    const refused = notes([
      ['Ann', 'Bob, can you send the minutes to the client?'],
      ['Bob', 'Not this week, sorry.'],
    ]);
    assert.deepEqual(refused.actions, []);
  });

  it('does not take negations, reported speech, or a future that is no commitment', () => {
    const n = notes([
      ['Ann', 'I will not send the report before the audit is over.'],
      ['Bob', 'She said she will update the roadmap at some point.'],
      ['Cid', 'It will rain all week according to the forecast.'],
      ['Ann', "I'll be honest, the old design was confusing for users."],
      ['Bob', 'I think the new design will probably be cheaper to build.'],
      ['Cid', 'We will see how the customers react to the prototype.'],
    ]);
    assert.deepEqual(
      n.actions.map((a) => a.text),
      [],
    );
  });

  it('works on recognizer output', () => {
    const n = notes(asr([['Ann', "I'll update the release checklist before Thursday."]]));
    assert.deepEqual(
      n.actions.map((a) => [a.owner, a.text, a.due]),
      [['Ann', 'update the release checklist before thursday', '2026-11-26']],
    );
  });
});

describe('due dates', () => {
  const monday = new Date('2026-11-23T09:00:00Z');
  it('reads weekdays, relative days and month ends forward from the meeting', () => {
    assert.equal(dueDate('by Friday', monday), '2026-11-27');
    assert.equal(dueDate('at the end of the month', monday), '2026-11-30');
    assert.equal(dueDate('tomorrow', monday), '2026-11-24');
  });
  it('a past date or a bare duration is no due date', () => {
    assert.equal(dueDate('I did it yesterday', monday), undefined);
    assert.equal(dueDate('the fix takes about two days', monday), undefined);
    assert.equal(dueDate('one more thing about the design', monday), undefined);
  });
});

describe('blockers and risks', () => {
  it('takes what stops the work, a short "one is a blocker" with what it is about', () => {
    const n = notes([
      ['Ann', 'I am blocked waiting for the design review from Priya.'],
      ['Bob', 'One is a blocker. Invoices show the wrong currency for European customers.'],
      ['Cid', 'The main risk is that the battery supplier delivers late.'],
    ]);
    assert.deepEqual(texts(n.blockers), [
      'I am blocked waiting for the design review from Priya.',
      'One is a blocker. Invoices show the wrong currency for European customers.',
      'The main risk is that the battery supplier delivers late.',
    ]);
  });
  it('does not take negations or questions', () => {
    const n = notes([
      ['Ann', 'No blockers for me this week, everything is on track.'],
      ['Bob', 'Are there any problems with the new release build?'],
      ['Cid', 'There is nothing blocking the launch of the portal.'],
    ]);
    assert.deepEqual(texts(n.blockers), []);
  });
});

describe('open questions', () => {
  it('takes what is said to be open, and a question answered with "I don\'t know"', () => {
    const n = notes([
      ['Ann', 'We still need to figure out the price of the premium model.'],
      ['Bob', 'Who will pay for the extra load testing servers?'],
      ['Cid', "I don't know, we have to ask finance."],
    ]);
    assert.deepEqual(texts(n.questions), [
      'We still need to figure out the price of the premium model.',
      'Who will pay for the extra load testing servers?',
    ]);
  });
  it('does not take an answered question or a reported one', () => {
    const n = notes([
      ['Ann', 'Who owns the billing service at the moment?'],
      ['Bob', 'Priya does, she took it over last month.'],
      ['Cid', 'The customer asked whether the mobile app is on the roadmap?'],
      ['Ann', "I don't know."],
    ]);
    assert.deepEqual(texts(n.questions), []);
  });
});

describe('open questions: statements and reported questions', () => {
  it('takes a question someone outside the meeting asked, reported and left to answer', () => {
    const lines: Line[] = [
      ['Ben', 'One more thing: the customer asked whether the mobile app is on the roadmap for next quarter.'],
      ['Alice', 'It is, but only as a discovery item. We will not commit to a deadline yet.'],
    ];
    for (const n of [notes(lines), notes(asr(lines))])
      assert.deepEqual(
        n.questions.map((q) => q.text.toLowerCase().replace(/[^a-z ]/g, '')),
        ['one more thing the customer asked whether the mobile app is on the roadmap for next quarter'],
      );
  });

  it('does not take a statement of what is not done yet ("we will not commit to a deadline yet")', () => {
    const n = notes([
      ['Alice', 'We will not commit to a deadline yet.'],
      ['Ben', 'The customer asked for the invoices in euros and we sent them.'],
    ]);
    assert.deepEqual(texts(n.questions), []);
  });
});

describe('topics and length', () => {
  it("the overview opens with the meeting's purpose and follows the order of the meeting", () => {
    const lines: Line[] = [
      ['Ann', 'This meeting is about the launch plan for the new remote control.'],
      ...Array.from({ length: 30 }, (_, i): Line => [
        'Bob',
        `The battery options for the remote need a decision on cost and size, point ${i}.`,
      ]),
      ...Array.from({ length: 30 }, (_, i): Line => ['Cid', `The marketing campaign targets younger buyers with a fancy look, idea ${i}.`]),
    ];
    const n = notes(lines);
    assert.equal(n.topics[0]!.text, 'This meeting is about the launch plan for the new remote control.');
    const starts = n.topics.map((t) => t.start);
    assert.deepEqual(
      starts,
      [...starts].sort((a, b) => a - b),
    );
    assert.ok(n.topics.some((t) => /battery/.test(t.text)));
    assert.ok(n.topics.some((t) => /marketing/.test(t.text)));
  });
  it('an overview line names things rather than pointing at them ("the battery of the remote", not "our … it")', () => {
    // Each pair says the same content words in as many words; only the wording differs.
    const lines: Line[] = Array.from({ length: 40 }, (_, i): Line[] => [
      ['Ann', `Our battery remote lasts it two years, point ${i}.`],
      ['Bob', `The battery of the remote lasts the two years, point ${i}.`],
    ]).flat();
    for (const n of [notes(lines), notes(asr(lines))]) {
      assert.ok(n.topics.length > 1);
      assert.deepEqual(
        n.topics.filter((t) => !/^the battery of the remote/i.test(t.text)).map((t) => t.text),
        [],
      );
    }
  });
  it('the word budget grows with the meeting and stays in bounds', () => {
    assert.equal(wordBudget(100), 40);
    assert.ok(wordBudget(3000) > 100 && wordBudget(3000) < 170);
    assert.equal(wordBudget(90_000), 170);
  });
});

describe('cleaning spoken text', () => {
  it('drops fillers, stutters and an opening "okay so", never changes words', () => {
    assert.equal(cleanSpoken('Okay so um we we need to uh decide the the colour'), 'We need to decide the colour.');
    assert.equal(cleanSpoken('yeah okay'), 'Yeah okay.');
    assert.equal(cleanSpoken('Mm-hmm, the remote is, you know, too big.'), 'The remote is, too big.');
    assert.equal(cleanSpoken("it's basically just sort of round"), "It's round.");
    assert.equal(cleanSpoken('what kind of battery do we need'), 'What kind of battery do we need.');
  });
  it('drops asides and intensifiers ("I think", "really", "and so on"), never changes words', () => {
    assert.equal(cleanSpoken('I think the case is really too big, and so on.'), 'The case is too big.');
    assert.equal(cleanSpoken('so we need rubber or something like that'), 'We need rubber.');
    assert.equal(cleanSpoken('i think we should go with the yellow case'), 'We should go with the yellow case.');
  });
});

describe('every extractor refuses what it must not take', () => {
  it('decisions: a future that is no decision yet, and a decision of someone outside the meeting', () => {
    const n = notes([
      ['Ann', 'We will decide on the colour of the case next week.'],
      ['Bob', 'Now that Bell Canada has decided to partner with Ericsson, prices will move.'],
      ['Cid', 'The committee agreed to hear the witnesses on Monday.'],
    ]);
    assert.deepEqual(texts(n.decisions), ['The committee agreed to hear the witnesses on Monday.']);
  });

  it('action items: a question nobody takes, and a cue followed by no task ("we will, but …")', () => {
    const n = notes([
      ['Ann', 'Will I have to send the whole report again?'],
      ['Bob', 'We will, but we are ready for the questions from the members.'],
      ['Cid', 'I will and we are committed to keeping the families safe.'],
    ]);
    assert.deepEqual(n.actions, []);
  });

  it('action items: a task too thin to act on ("I will tell you", "I will confirm that")', () => {
    const lines: Line[] = [
      ['Ann', 'Yes, I will tell you later.'],
      ['Bob', "Okay, I'll confirm that."],
      ['Cid', "So we'll use plastic."],
      ['Ann', 'I will send the updated budget to finance.'],
    ];
    for (const n of [notes(lines), notes(asr(lines))])
      assert.deepEqual(
        n.actions.map((a) => [a.owner, a.text.toLowerCase()]),
        [['Ann', 'send the updated budget to finance']],
      );
  });

  it('blockers: reported speech and a future that is only a reassurance', () => {
    const n = notes([
      ['Ann', 'She said there was a problem with the build on Monday.'],
      ['Bob', 'I will not worry about the supplier, everything is on track now.'],
    ]);
    assert.deepEqual(texts(n.blockers), []);
  });

  it('open questions: a negated one, a question of someone else reported as answered, "my ears are open"', () => {
    const n = notes([
      ['Ann', 'The price of the premium model is not an open question any more.'],
      ['Bob', 'He asked about the battery and we told him it lasts two years.'],
      ['Cid', 'I can assure the member that my eyes are open and my ears are open.'],
    ]);
    assert.deepEqual(texts(n.questions), []);
  });

  it('the opening skips housekeeping for what the meeting is about, and states the purpose first', () => {
    const n = notes([
      ['Chair', 'Before speaking, please wait until I recognize you by name.'],
      ['Chair', 'Please remember to leave your microphone on mute when you are not speaking.'],
      ['Chair', 'This meeting is about the funding of rural schools and the teachers they need.'],
      ...Array.from({ length: 40 }, (_, i): Line => [
        i % 2 === 0 ? 'Member' : 'Minister',
        `Rural schools need funding for teachers, and the funding of schools was raised again, point ${i}.`,
      ]),
    ]);
    assert.equal(n.topics[0]!.text, 'This meeting is about the funding of rural schools and the teachers they need.');
    assert.ok(!n.topics.some((t) => /microphone|recognize you/.test(t.text)), texts(n.topics).join('\n'));
  });

  it('the opening takes the business a chair names after the housekeeping ("Item 2 this morning is …")', () => {
    const lines: Line[] = [
      ['Chair', 'Good morning, everyone, we have received apologies for absence from two members.'],
      ['Chair', 'Can I ask whether there are any declarations of interest from members, please?'],
      ['Chair', 'Item 2 this morning is our evidence session on the Welsh baccalaureate qualification.'],
      ...Array.from({ length: 40 }, (_, i): Line => [
        i % 2 === 0 ? 'Member' : 'Minister',
        `Rural schools need funding for teachers, and the funding of schools was raised again, point ${i}.`,
      ]),
    ];
    for (const n of [notes(lines), notes(asr(lines))])
      assert.match(n.topics[0]!.text, /^item 2 this morning is our evidence session on the welsh baccalaureate qualification\.$/i);
  });
});
