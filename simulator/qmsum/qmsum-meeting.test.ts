import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../scripts/load-script.ts';
import { lineWords } from '../scripts/meeting-script.ts';
import { scriptVoices, voiceLabel } from '../synth/voices.ts';
import { cleanQmsumText, qmsumDomain, qmsumToScript, splitLongTurn, topicsWithin, wholeMeetingSummary } from './qmsum-meeting.ts';
import type { QmsumMeeting } from './qmsum-meeting.ts';
import { QmsumSourceError, listQmsumMeetings, loadQmsumMeeting, meetingIdOf } from './qmsum-source.ts';

const EXCERPT = path.join(REPO_ROOT, 'fixtures', 'qmsum', 'val', 'ES2006a-excerpt.json');

function meeting(turns: [string, string][], extra: Partial<QmsumMeeting> = {}): QmsumMeeting {
  return {
    general_query_list: [{ query: 'Summarize the whole meeting.', answer: 'They met.' }],
    meeting_transcripts: turns.map(([speaker, content]) => ({ speaker, content })),
    ...extra,
  };
}

describe('cleanQmsumText: markup dropped, disfluencies kept', () => {
  it('drops every brace mark QMSum uses, and any other', () => {
    const marks = ['{vocalsound}', '{disfmarker}', '{gap}', '{pause}', '{comment}', '{nonvocalsound}', '{someothermark}'];
    for (const mark of marks) assert.equal(cleanQmsumText(`So ${mark} we start .`), 'So we start.', mark);
    assert.equal(cleanQmsumText('Um {disfmarker} {vocalsound} {gap} okay {pause} .'), 'Um okay.');
  });

  it("drops the committees' stage directions and ICSI's unintelligible @", () => {
    assert.equal(cleanQmsumText('[Laughter.] Thank you , Chair . [Interruption.]'), 'Thank you, Chair.');
    assert.equal(cleanQmsumText("she 'll learn @ @ . So that 's great"), "she'll learn. So that's great");
    assert.equal(cleanQmsumText('it \'s like " @ @ " . Right'), "it's like. Right");
  });

  it('keeps fillers, repetitions and cut-off words as written', () => {
    const text = cleanQmsumText("Um so that {disfmarker} that 's our our brief . Uh des uh {vocalsound} design a new one , um .");
    assert.equal(text, "Um so that that's our our brief. Uh des uh design a new one, um.");
    assert.deepEqual(lineWords(text), [
      'Um',
      'so',
      'that',
      "that's",
      'our',
      'our',
      'brief',
      'Uh',
      'des',
      'uh',
      'design',
      'a',
      'new',
      'one',
      'um',
    ]);
  });

  it("spells AMI's letter codes as letters", () => {
    assert.equal(
      cleanQmsumText("a D_V_D_ player and T_V_s , the T_V_'s remote , anti-R_S_I_ ."),
      "a D V D player and T V's, the T V's remote, anti-R S I.",
    );
  });

  it('leaves nothing of a turn that is markup only', () => {
    for (const content of ['{vocalsound}', '{gap} {vocalsound} {gap} .', '.. .', '@ @', '[Laughter.]'])
      assert.equal(cleanQmsumText(content), '', content);
  });
});

describe('qmsumToScript', () => {
  const sample = meeting([
    ['Project Manager', 'Okay . So , this is uh our first meeting .'],
    ['Marketing', 'Mm-hmm .'],
    ['Industrial Designer', '{vocalsound}'],
    ['Project Manager', 'Um the the agenda {disfmarker} the plan is simple .'],
    ['Industrial Designer', 'Right .'],
    ['User Interface', 'Okay {vocalsound} .'],
    ['Marketing', 'Yeah .'],
  ]);

  it('keeps the turns in order, each by its speaker, and leaves out markup-only turns', () => {
    const r = qmsumToScript(sample, { meeting: 'ES0000a' });
    assert.deepEqual(
      r.script.lines.map((l) => [l.speaker, l.text]),
      [
        ['S1', 'Okay. So, this is uh our first meeting.'],
        ['S2', 'Mm-hmm.'],
        ['S1', 'Um the the agenda the plan is simple.'],
        ['S3', 'Right.'],
        ['S4', 'Okay.'],
        ['S2', 'Yeah.'],
      ],
    );
    assert.deepEqual(r.lineTurns, [0, 1, 3, 4, 5, 6]);
    assert.equal(r.turnsDropped, 1);
    assert.equal(r.turnsTotal, 7);
    assert.equal(r.complete, true);
    for (const line of r.script.lines) assert.doesNotMatch(line.text, /[{}@[\]]/);
  });

  it('makes one speaker per participant, named by their QMSum label, in order of first appearance, no voice named', () => {
    const r = qmsumToScript(sample, { meeting: 'ES0000a' });
    assert.deepEqual(
      r.script.speakers.map((s) => [s.key, s.name, s.voice]),
      [
        ['S1', 'Project Manager', undefined],
        ['S2', 'Marketing', undefined],
        ['S3', 'Industrial Designer', undefined],
        ['S4', 'User Interface', undefined],
      ],
    );
  });

  it("gets one distinct natural voice per participant from the simulator's assignment, pitch and pace varied once the pool is used up", () => {
    const six = meeting(['Grad A', 'Grad B', 'Grad C', 'Grad D', 'Professor E', 'Postdoc F'].map((s) => [s, `I am ${s} .`]));
    const { script } = qmsumToScript(six, { meeting: 'Bmr000' });
    const voices = scriptVoices(script, 'natural');
    assert.equal(voices.length, 6);
    const labels = voices.map((v) => `${voiceLabel(v)} ${v.pitch_shift ?? 0} ${v.rate ?? ''}`);
    assert.equal(new Set(labels).size, 6, labels.join(' | '));
    assert.ok(voices.every((v) => v.engine !== 'espeak'));
    // The pool holds five voices (decision 026); the sixth speaker reuses one with pitch and pace moved.
    assert.deepEqual(
      voices.map((v) => v.varied),
      [false, false, false, false, false, true],
    );
  });

  it('renders only the first turns or about the first minutes when asked', () => {
    assert.deepEqual(
      qmsumToScript(sample, { meeting: 'ES0000a', turns: 3 }).script.lines.map((l) => l.text),
      ['Okay. So, this is uh our first meeting.', 'Mm-hmm.'],
    );
    const long = meeting(
      Array.from({ length: 200 }, (_, i): [string, string] => [
        i % 2 === 0 ? 'A' : 'B',
        'This is one sentence of about ten words in a turn .',
      ]),
    );
    const cut = qmsumToScript(long, { meeting: 'ES0000a', minutes: 1 });
    // About 3.5 s a turn plus a 0.4 s pause: 15 to 20 turns make a minute.
    assert.ok(cut.script.lines.length >= 12 && cut.script.lines.length <= 24, `${cut.script.lines.length} turns`);
    assert.equal(cut.complete, false);
    assert.equal(cut.turnsConsidered, cut.script.lines.length);
    assert.match(cut.script.title, /first \d+ of 200 turns/);
  });

  it('splits a turn longer than a script line at sentence ends, the parts kept in order', () => {
    const sentence = 'The committee will now hear the minister on the matter before it. ';
    const parts = splitLongTurn(sentence.repeat(60).trim());
    assert.ok(parts.length >= 2);
    assert.ok(parts.every((p) => p.length <= 2000 && p.endsWith('.')));
    assert.equal(parts.join(' '), sentence.repeat(60).trim());
    const r = qmsumToScript(meeting([['Chair', sentence.repeat(60)]]), { meeting: 'committee_1' });
    assert.equal(r.script.lines.length, parts.length);
    assert.deepEqual(
      r.lineTurns,
      parts.map(() => 0),
    );
  });

  it('refuses more speakers than the simulator keeps apart, and a cut with no speech', () => {
    const crowd = meeting(Array.from({ length: 17 }, (_, i): [string, string] => [`Member ${i}`, 'Thank you .']));
    assert.throws(() => qmsumToScript(crowd, { meeting: 'covid_9' }), /17 speakers.*at most 16/);
    assert.equal(qmsumToScript(crowd, { meeting: 'covid_9', turns: 16 }).script.speakers.length, 16);
    assert.throws(() => qmsumToScript(meeting([['A', '{vocalsound}']]), { meeting: 'x' }), /no speech/);
  });

  it('finds the summary of the whole meeting and the topics inside the cut', () => {
    const m = meeting([['A', 'Hello .']], {
      general_query_list: [
        { query: 'What was said?', answer: 'Other.' },
        { query: 'Summarize the whole meeting.', answer: 'The whole.' },
      ],
      topic_list: [
        { topic: 'Opening', relevant_text_span: [['0', '5']] },
        { topic: 'Budget', relevant_text_span: [['40', '60']] },
      ],
    });
    assert.deepEqual(wholeMeetingSummary(m), { query: 'Summarize the whole meeting.', answer: 'The whole.' });
    assert.deepEqual(
      topicsWithin(m, 10).map((t) => t.topic),
      ['Opening'],
    );
  });
});

describe('QMSum sources', () => {
  it('names the domain from the meeting id', () => {
    assert.equal(qmsumDomain('ES2006a'), 'product');
    assert.equal(qmsumDomain('IS1006b'), 'product');
    assert.equal(qmsumDomain('TS3009c'), 'product');
    assert.equal(qmsumDomain('Bmr005'), 'academic');
    assert.equal(qmsumDomain('Bed002'), 'academic');
    assert.equal(qmsumDomain('covid_2'), 'committee');
    assert.equal(qmsumDomain('education_10'), 'committee');
    assert.equal(meetingIdOf('fixtures/qmsum/val/ES2006a-excerpt.json'), 'ES2006a');
  });

  it('reads the vendored validation excerpt with its split, domain and summary', async () => {
    const loaded = await loadQmsumMeeting(EXCERPT);
    assert.equal(loaded.meeting, 'ES2006a');
    assert.equal(loaded.split, 'val');
    assert.equal(loaded.domain, 'product');
    assert.equal(loaded.data.meeting_transcripts.length, 40);
    assert.match(wholeMeetingSummary(loaded.data)?.answer ?? '', /remote control/);
  });

  it('refuses anything in the test split before opening it', async () => {
    for (const reference of [
      'test/ES2004a',
      'data/ALL/test/ES2004a.json',
      '/somewhere/Product/test/TS3003a.json',
      'data/ALL/jsonl/test.jsonl',
    ]) {
      await assert.rejects(
        loadQmsumMeeting(reference, '/nonexistent'),
        (e) => e instanceof QmsumSourceError && /test split/.test(e.message),
        reference,
      );
    }
  });

  it('reads val/<id> and train/<id> from a QMSum git copy, and lists a split', async () => {
    // A small repository laid out as QMSum's (data/ALL/<split>/<id>.json), read the way a QMSum copy is: git show HEAD:path.
    const repo = await mkdtemp(path.join(tmpdir(), 'qmsum-repo-'));
    try {
      const m = meeting([['Project Manager', 'Hello {vocalsound} .']]);
      for (const [split, id] of [
        ['val', 'ES9999a'],
        ['val', 'Bmr999'],
        ['train', 'ES9998a'],
      ] as const) {
        await mkdir(path.join(repo, 'data', 'ALL', split), { recursive: true });
        await writeFile(path.join(repo, 'data', 'ALL', split, `${id}.json`), JSON.stringify(m));
      }
      const git = (...args: string[]): string =>
        execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { encoding: 'utf8' });
      git('init', '-q');
      git('add', '.');
      git('commit', '-qm', 'qmsum');
      assert.deepEqual(await listQmsumMeetings('val', repo), ['Bmr999', 'ES9999a']);
      const loaded = await loadQmsumMeeting('val/ES9999a', repo);
      assert.equal(loaded.split, 'val');
      assert.equal(loaded.domain, 'product');
      assert.equal(loaded.source, `${repo}:data/ALL/val/ES9999a.json`);
      assert.equal(loaded.data.meeting_transcripts[0]!.content, 'Hello {vocalsound} .');
      assert.equal((await loadQmsumMeeting('train/ES9998a', repo)).split, 'train');
      await assert.rejects(loadQmsumMeeting('val/ES0000a', repo), /no QMSum meeting val\/ES0000a/);
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });

  it('says what is wrong with a file that is not a QMSum meeting', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'qmsum-bad-'));
    try {
      await writeFile(path.join(dir, 'x.json'), '{"meeting_transcripts": []}');
      await writeFile(path.join(dir, 'y.json'), 'not json');
      await assert.rejects(loadQmsumMeeting(path.join(dir, 'x.json')), /not a QMSum meeting/);
      await assert.rejects(loadQmsumMeeting(path.join(dir, 'y.json')), /not valid JSON/);
      await assert.rejects(loadQmsumMeeting(path.join(dir, 'missing.json')), /cannot read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
