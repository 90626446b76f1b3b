import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CancelledError, StageError, uncontrolled, type SummaryInput } from '../../pipeline/types.ts';
import { readFileSync } from 'node:fs';
import { EmptyTranscriptError, ExtractiveSummarizer, shortName, summarizeExtractively } from './extractive.ts';
import { contentTerms, isQuestion, splitSentences, textRank, tfidfVectors } from './sentences.ts';
import { DEFAULT_TEMPLATE_ID, isTemplateId, TEMPLATE_IDS, TEMPLATES } from './templates.ts';

const seg = (speaker: string, text: string, i: number, speaker_name: string | null = null) => ({
  speaker,
  speaker_name,
  start: i * 5,
  end: i * 5 + 4,
  text,
});

const STANDUP: SummaryInput['segments'] = [
  seg('S1', 'Good morning everyone. Let us start the stand-up.', 0, 'Dana'),
  seg('S2', 'Yesterday I finished the database migration script and merged it. Today I will deploy the migration to staging.', 1, 'Priya'),
  seg('S3', 'I worked on the login page yesterday. I am blocked waiting for the design review from Priya.', 2),
  seg('S1', 'Okay thanks.', 3, 'Dana'),
  seg('S4', 'I fixed the flaky payment tests. Today I plan to start on the invoice export. No blockers for me.', 4),
  seg(
    'S2',
    'The staging deploy of the migration depends on the database backup finishing, which is a ' +
      'problem because the backup job keeps failing.',
    5,
    'Priya',
  ),
  seg('S3', 'today I will continue with the login page and write tests for it', 6),
  seg('S1', 'Thanks everyone, see you tomorrow.', 7, 'Dana'),
];

const input = (templateId: string, segments = STANDUP): SummaryInput => ({
  title: 'Stand-up',
  language: 'en',
  templateId,
  segments,
  meetingDate: '2026-11-23T09:00:00Z', // a Monday
});

describe('templates', () => {
  it('lists the ids, daily_standup first and default', () => {
    assert.deepEqual(TEMPLATE_IDS, ['daily_standup', 'meeting_notes', 'one_on_one', 'brief']);
    assert.equal(DEFAULT_TEMPLATE_ID, 'daily_standup');
    assert.equal(isTemplateId('meeting_notes'), true);
    assert.equal(isTemplateId('toString'), false);
    assert.equal(isTemplateId('nope'), false);
    assert.deepEqual(
      TEMPLATES.meeting_notes.sections.map((s) => s.title),
      ['Overview', 'Decisions', 'Action items', 'Blockers and risks', 'Open questions'],
    );
  });
});

describe('ExtractiveSummarizer', () => {
  it('sorts a stand-up into updates, plans and blockers, with speakers, in transcript order', async () => {
    const out = await new ExtractiveSummarizer().summarize(input('daily_standup'), uncontrolled());
    assert.equal(out.model, 'extractive');
    assert.deepEqual(
      out.sections.map((s) => s.title),
      ['Updates', 'Plans', 'Blockers'],
    );
    const [updates, plans, blockers] = out.sections.map((s) => s.text.split('\n'));
    assert.deepEqual(updates, [
      '- (00:05) Priya: Yesterday I finished the database migration script and merged it.',
      '- (00:10) S3: I worked on the login page yesterday.',
      '- (00:20) S4: I fixed the flaky payment tests.',
    ]);
    // Plans are the action items: owner, task, and "today" read against the meeting's date.
    assert.deepEqual(plans, [
      '- (00:05) Owner: Priya. Task: deploy the migration to staging. Due: 2026-11-23.',
      '- (00:20) Owner: S4. Task: start on the invoice export. Due: 2026-11-23.',
      '- (00:30) Owner: S3. Task: continue with the login page and write tests for it. Due: 2026-11-23.',
    ]);
    assert.deepEqual(blockers, [
      '- (00:10) S3: I am blocked waiting for the design review from Priya.',
      '- (00:25) Priya: The staging deploy of the migration depends on the database backup finishing, ' +
        'which is a problem because the backup job keeps failing.',
    ]);
    // "No blockers for me." is not a blocker; greetings and thanks are nowhere.
    assert.doesNotMatch(out.text, /No blockers for me|Thanks everyone|Good morning|Okay thanks/);
    assert.equal(out.text, out.sections.map((s) => `${s.title}:\n${s.text}`).join('\n\n'));
    assert.match(out.text, /^Updates:\n- \(00:05\) Priya: Yesterday/);
  });

  it('fills every template, with a placeholder for an empty section', () => {
    for (const id of TEMPLATE_IDS) {
      const out = summarizeExtractively(input(id));
      assert.deepEqual(
        out.sections.map((s) => s.title),
        TEMPLATES[id].sections.map((s) => s.title),
        id,
      );
      for (const s of out.sections) assert.ok(s.text.length > 0);
    }
    const notes = summarizeExtractively(input('meeting_notes'));
    assert.equal(notes.sections.find((s) => s.title === 'Decisions')?.text, 'No decisions recorded.');
    assert.ok(summarizeExtractively(input('brief')).sections[0]!.text.split('\n').length <= 4);
  });

  it('is deterministic and never repeats a sentence or its near-duplicate', () => {
    const dup = [...STANDUP, seg('S2', 'Yesterday I finished the database migration script and merged it!', 8, 'Priya')];
    const a = summarizeExtractively(input('meeting_notes', dup));
    const b = summarizeExtractively(input('meeting_notes', dup));
    assert.deepEqual(a, b);
    const lines = a.sections.flatMap((s) => s.text.split('\n'));
    assert.equal(lines.filter((l) => l.includes('finished the database migration script')).length, 1);
    assert.equal(new Set(lines).size, lines.length);
  });

  it('handles unpunctuated lower-case text (as pocketsphinx writes) by cutting long stretches', () => {
    const words = Array.from({ length: 70 }, (_, i) => (i % 7 === 0 ? 'yesterday' : `word${i}`)).join(' ');
    const sentences = splitSentences([seg('S1', words, 0)]);
    assert.equal(sentences.length, 3);
    assert.ok(sentences.every((s) => s.text.split(' ').length <= 30));
    assert.equal(
      sentences
        .map((s) => s.text.replace(/\.$/, ''))
        .join(' ')
        .toLowerCase(),
      words,
    );
    assert.match(sentences[0]!.text, /^Yesterday/);
    const out = summarizeExtractively(
      input('daily_standup', [
        seg('S1', 'yesterday i finished the report for the budget review', 0),
        seg('S2', 'i will send the budget report to finance today', 1),
      ]),
    );
    assert.match(out.text, /Updates:\n- \(00:00\) S1: Yesterday i finished the report for the budget review\./);
    assert.match(out.text, /Plans:\n- \(00:05\) Owner: S2\. Task: send the budget report to finance today\. Due: 2026-11-23\./);
  });

  it('ranks central sentences above off-topic ones', () => {
    const sentences = splitSentences([
      seg('S1', 'The budget review covers the marketing budget.', 0),
      seg('S2', 'Marketing budget numbers need review before Friday.', 1),
      seg('S3', 'The budget review is on Friday with marketing.', 2),
      seg('S1', 'My cat likes sardines.', 3),
    ]);
    const rank = textRank(tfidfVectors(sentences));
    assert.equal(Math.max(...rank), 1);
    assert.ok(rank[3]! < Math.min(rank[0]!, rank[1]!, rank[2]!));
  });

  it('a short fragment joins the sentence after it; questions are marked, punctuated or not', () => {
    const sentences = splitSentences([seg('S1', 'Priya does. She thinks the fix takes two days. Okay.', 0)]);
    assert.deepEqual(
      sentences.map((s) => s.text),
      ['Priya does. She thinks the fix takes two days. Okay.'],
    );
    for (const q of [
      'Are they blockers for the release?',
      'are they blockers for the release or can they wait',
      'who owns the billing service right now',
      'will the roadmap include the mobile app',
    ]) {
      assert.equal(isQuestion(q), true, q);
    }
    for (const statement of [
      'They are blockers.',
      'it is but only as a discovery item',
      'we will ship on friday',
      'we can wait for the next sprint',
    ])
      assert.equal(isQuestion(statement), false, statement);
  });

  it('questions and negated commitments are not blockers or plans', () => {
    const out = summarizeExtractively(
      input('daily_standup', [
        seg('S1', 'are there any blockers for the release this week', 0),
        seg('S2', 'we will not commit to a launch date for the mobile app', 1),
        seg('S1', 'the export job times out for the large customer accounts', 2),
        seg('S2', 'i will update the release checklist before thursday', 3),
      ]),
    );
    const [, plans, blockers] = out.sections.map((s) => s.text);
    assert.equal(blockers, '- (00:10) S1: The export job times out for the large customer accounts.');
    assert.equal(plans, '- (00:15) Owner: S2. Task: update the release checklist before thursday. Due: 2026-11-26.');
  });

  it('finds the blocker and the plan of the two-person call, from its script and from recognizer-like text', () => {
    const script = JSON.parse(readFileSync(new URL('../../../fixtures/meetings/two-person-call.json', import.meta.url), 'utf8')) as {
      lines: { speaker: string; text: string }[];
    };
    for (const asr of [false, true]) {
      const segments = script.lines.map((l, i) => seg(l.speaker, asr ? l.text.toLowerCase().replace(/[^a-z' ]/g, '') : l.text, i));
      const out = summarizeExtractively(input('daily_standup', segments));
      const [, plans, blockers] = out.sections.map((s) => s.text.toLowerCase());
      assert.match(blockers!, /invoices show the wrong currency for some european customers/, out.text);
      for (const point of [/owner: s1\. task: book the servers today\. due: 2026-11-23/, /update the roadmap/])
        assert.match(plans!, point, out.text);
      const notes = summarizeExtractively(input('meeting_notes', segments)).text.toLowerCase();
      assert.match(notes, /decisions:\n(?:.*\n)*.*final review on thursday\. \(agreed by s1\)/, notes);
    }
  });

  it('stems and drops stopwords', () => {
    assert.deepEqual(contentTerms('We deployed the deploys, deploying servers'), ['deploy', 'deploy', 'deploy', 'server']);
  });

  it('an empty transcript is a typed, final error; a cancelled job is cancelled', async () => {
    await assert.rejects(new ExtractiveSummarizer().summarize(input('daily_standup', []), uncontrolled()), EmptyTranscriptError);
    await assert.rejects(
      new ExtractiveSummarizer().summarize(input('daily_standup', [seg('S1', '  ', 0)]), uncontrolled()),
      (e: unknown) => e instanceof EmptyTranscriptError && e instanceof StageError && !e.retryable,
    );
    const abort = new AbortController();
    abort.abort();
    await assert.rejects(
      new ExtractiveSummarizer().summarize(input('daily_standup'), { ...uncontrolled(), signal: abort.signal }),
      CancelledError,
    );
  });

  it('summarizes a long meeting quickly', () => {
    const topics = ['budget', 'hiring', 'release', 'database', 'design', 'customers', 'security', 'roadmap'];
    const segments = Array.from({ length: 2500 }, (_, i) =>
      seg(`S${(i % 4) + 1}`, `We talked about the ${topics[i % 8]} plan and the ${topics[(i * 3) % 8]} numbers for item ${i}.`, i),
    );
    const started = performance.now();
    const out = summarizeExtractively(input('meeting_notes', segments));
    assert.ok(performance.now() - started < 20_000);
    assert.equal(out.sections.length, 5);
  });

  it("names the README call's decision, owners and dates, and says each thing once", () => {
    const script = JSON.parse(readFileSync(new URL('../../../fixtures/meetings/two-person-call.json', import.meta.url), 'utf8')) as {
      speakers: { key: string; name: string }[];
      lines: { speaker: string; text: string }[];
    };
    const names = new Map(script.speakers.map((sp) => [sp.key, sp.name]));
    const segments = script.lines.map((l, i) => seg(l.speaker, l.text, i, names.get(l.speaker) ?? null));
    const out = summarizeExtractively(input('meeting_notes', segments));
    const [overview, decisions, actions, blockers, questions] = out.sections.map((s) => s.text);
    assert.match(decisions!, /final review on Thursday\. \(agreed by Alice Moreau\) Date: 2026-11-26\./, out.text);
    assert.match(actions!, /Owner: Priya\. Task: the billing service; she thinks the fix takes about two days\. \(said by Alice Moreau\)/);
    assert.match(actions!, /Owner: Alice Moreau\. Task: book the servers today\. Due: 2026-11-23\. \(said by Ben Okafor\)/);
    assert.match(actions!, /Owner: Alice Moreau\. Task: update the roadmap and send the notes to the team\./);
    assert.match(actions!, /Owner: Ben Okafor\. Task: tell them we share a plan at the end of the month\. Due: 2026-11-30\./);
    assert.match(blockers!, /One is a blocker\. Invoices show the wrong currency/);
    assert.match(questions!, /the customer asked whether the mobile app is on the roadmap/);
    // The overview does not repeat what another section says.
    assert.equal(out.text.match(/wrong currency/g)?.length, 1, out.text);
    assert.match(overview!, /release plan before Friday/);
  });

  it('the overview names a speaker once for a run of their lines, and never a diarizer label ("S1")', () => {
    const script = JSON.parse(readFileSync(new URL('../../../fixtures/meetings/two-person-call.json', import.meta.url), 'utf8')) as {
      speakers: { key: string; name: string }[];
      lines: { speaker: string; text: string }[];
    };
    const names = new Map(script.speakers.map((sp) => [sp.key, sp.name]));
    const named = summarizeExtractively(
      input(
        'meeting_notes',
        script.lines.map((l, i) => seg(l.speaker, l.text, i, names.get(l.speaker) ?? null)),
      ),
    );
    const overview = named.sections[0]!.text.split('\n');
    assert.deepEqual(
      overview.map((l) => /^- \(\d\d:\d\d\) (Alice Moreau|Ben Okafor): /.exec(l)?.[1] ?? ''),
      ['Alice Moreau', '', 'Ben Okafor'],
      named.text,
    );
    // With the diarizer's labels only, the overview names no one; decisions and tasks still say who.
    const generic = summarizeExtractively(
      input(
        'meeting_notes',
        script.lines.map((l, i) => seg(l.speaker, l.text, i)),
      ),
    );
    const [genericOverview, decisions, actions] = generic.sections.map((s) => s.text);
    assert.doesNotMatch(genericOverview!, /S\d/, generic.text);
    assert.match(decisions!, /S2: That still leaves time for a final review on Thursday\. \(agreed by S1\)/, generic.text);
    assert.match(actions!, /Owner: S1\. Task: book the servers today\./, generic.text);
  });

  it("a decision the meeting made as a whole is the group's; one speaker's proposal stays theirs", () => {
    const lines: [string, string][] = [
      ['Ann', 'So we decided to go with the rubber case for the remote.'],
      ['Bob', "Let's use the yellow buttons on the front panel."],
      ['Cid', 'Sounds good.'],
      ['Ann', "Let's take the cheaper battery for the prototype."],
      ['Bob', 'The final review of the design is on Thursday.'],
      ['Ann', 'Agreed.'],
    ];
    const out = summarizeExtractively(
      input(
        'meeting_notes',
        lines.map(([speaker, text], i) => seg(speaker, text, i, speaker)),
      ),
    );
    assert.deepEqual(out.sections[1]!.text.split('\n'), [
      '- (00:00) The group decided: We decided to go with the rubber case for the remote.',
      "- (00:05) The group decided: Let's use the yellow buttons on the front panel. (agreed by Cid)",
      "- (00:15) Ann: Let's take the cheaper battery for the prototype.",
      '- (00:20) Bob: The final review of the design is on Thursday. (agreed by Ann) Date: 2026-11-26.',
    ]);
  });

  it('names a speaker without the parenthesis of a long label', () => {
    assert.equal(shortName('The Chair (Hon. Anthony Rota (Nipissing, Lib.))'), 'The Chair');
    assert.equal(shortName('Hon. Bill Blair (Minister of Public Safety)'), 'Hon. Bill Blair');
    assert.equal(shortName('Alice Moreau'), 'Alice Moreau');
    assert.equal(shortName('(unknown)'), '(unknown)');
  });
});
