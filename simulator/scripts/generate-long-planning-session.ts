/**
 * Generates fixtures/meetings/long-planning-session.json: a four-person
 * planning meeting with more than 30 minutes of speech, assembled from the
 * phrase bank (phrase-bank.ts) by a seeded generator. The JSON is committed so
 * the script can be read and diffed like the hand-written ones; a test checks
 * that this generator still produces exactly that file.
 *
 *   node simulator/scripts/generate-long-planning-session.ts   # rewrites the JSON
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { seededRandom } from '../seeded-random.ts';
import type { SeededRandom } from '../seeded-random.ts';
import { estimateLineSeconds } from './estimate-duration.ts';
import { MEETINGS_DIR } from './load-script.ts';
import { parseScript } from './meeting-script.ts';
import type { MeetingScript, ScriptLine, ScriptSpeaker } from './meeting-script.ts';
import { AGENDA, CLOSING, MOVES, QUESTIONS, SLOTS } from './phrase-bank.ts';
import type { Move, SlotName } from './phrase-bank.ts';

const LONG_SESSION_SEED = 20_240_611;
/** Estimated speech to aim for: 32 minutes, so the real render clears 30 with room to spare. */
const LONG_SESSION_SPEECH_SECONDS = 32 * 60;
export const LONG_SESSION_FILE = path.join(MEETINGS_DIR, 'long-planning-session.json');

const SPEAKERS: ScriptSpeaker[] = [
  { key: 'S1', name: 'Maria Santos', voice: 'festival:cmu_us_slt_arctic_hts', rate: 170 },
  { key: 'S2', name: 'Tom Becker', voice: 'flite:kal16', rate: 175 },
  { key: 'S3', name: 'Priya Nair', voice: 'flite:awb', rate: 165 }, // not flite:slt: the HTS voice of S1 is the same woman (decision 068)
  { key: 'S4', name: 'Sam Osei', voice: 'flite:rms', rate: 180 },
];
/** S1 chairs: opens every topic and records decisions; the others carry the discussion. */
const CHAIR = 'S1';

function fill(template: string, rng: SeededRandom, speaker: string): string {
  return template.replace(/\{(\w+)\}/g, (_, slot: string) => {
    if (slot === 'person') {
      // Someone other than the speaker, by first name.
      const others = SPEAKERS.filter((s) => s.key !== speaker);
      return rng.pick(others).name.split(' ')[0]!;
    }
    if (!(slot in SLOTS)) throw new Error(`phrase bank uses unknown slot {${slot}}`);
    return rng.pick(SLOTS[slot as SlotName]);
  });
}

/** What a user would type for this meeting: the attendees and the agenda's terms, and one line of context. */
const LONG_SESSION_BIAS = {
  custom_words: [
    'Maria',
    'Santos',
    'Tom',
    'Becker',
    'Priya',
    'Nair',
    'Sam',
    'Osei',
    'roadmap',
    'budget',
    'hiring',
    'contractors',
    'cloud infrastructure',
    'onboarding',
    'reporting',
    'analytics pipeline',
    'admin console',
    'dashboard',
    'headcount',
    'Initech',
  ],
  initial_prompt:
    'Quarterly planning session of a product team working through a long agenda of roadmap, budget, hiring and delivery topics.',
};

/** A spoken sentence as a note-taker would jot it: the filler openings dropped, no final full stop. */
function notePhrase(sentence: string): string {
  return sentence.replace(/^(okay,?\s+)?(so\s+)?(then\s+)?(the decision is to|we agree:)?\s*/i, '').replace(/[.!?]+$/, '');
}

/** What may follow each move, so answers follow questions and agreement follows proposals. */
function nextMove(previous: Move | 'topic' | 'opening', rng: SeededRandom): Move | 'topic' {
  if (previous === 'question') return 'answer';
  if (previous === 'proposal') return rng.next() < 0.5 ? 'agreement' : 'concern';
  if (previous === 'opening') return rng.next() < 0.6 ? 'topic' : 'status';
  return rng.pick<Move | 'topic'>(['status', 'concern', 'proposal', 'question', 'topic', 'topic']);
}

function generateLongPlanningSession(seed = LONG_SESSION_SEED, targetSpeechSeconds = LONG_SESSION_SPEECH_SECONDS): MeetingScript {
  const rng = seededRandom(seed);
  const rates = new Map(SPEAKERS.map((s) => [s.key, s.rate ?? 175]));
  const lines: ScriptLine[] = [];
  let speech = 0;
  const spoken = new Set<string>();
  // Ground truth for summaries: each topic, and what the chair decided and assigned in it.
  const keyPoints: NonNullable<MeetingScript['key_points']> = [];
  const say = (speaker: string, text: string, timing: Pick<ScriptLine, 'pause_before' | 'overlap'> = {}): void => {
    lines.push({ speaker, text, ...timing });
    speech += estimateLineSeconds(text, rates.get(speaker));
  };

  say(CHAIR, 'Good morning everyone. Thanks for blocking the whole morning for this planning session.');
  say(CHAIR, 'We have a long agenda today, so let us get started.');
  const perTopic = targetSpeechSeconds / AGENDA.length;
  for (const topic of AGENDA) {
    const topicEnd = speech + perTopic;
    say(CHAIR, fill(rng.pick(topic.openings), rng, CHAIR), { pause_before: 1.5 });
    let previousSpeaker = CHAIR;
    let previousMove: Move | 'topic' | 'opening' = 'opening';
    let previousLength = 0;
    let previousTemplate = '';
    while (speech < topicEnd) {
      const candidates = SPEAKERS.filter((s) => s.key !== previousSpeaker).map((s) => s.key);
      // The chair speaks less during the discussion: listed once, the others twice.
      const speaker = rng.pick(candidates.flatMap((k) => (k === CHAIR ? [k] : [k, k])));
      // Draw until the sentence is new to the meeting: people rarely repeat
      // themselves word for word. Short agreements may repeat.
      let move: Move | 'topic' = 'agreement';
      let template = '';
      let text = '';
      for (let tries = 0; tries < 30; tries++) {
        move = nextMove(previousMove, rng);
        const bank: readonly string[] =
          move === 'topic'
            ? topic.statements
            : move === 'question'
              ? QUESTIONS.map((q) => q.ask)
              : move === 'answer'
                ? (QUESTIONS.find((q) => q.ask === previousTemplate)?.answers ?? ['I am not sure yet.'])
                : MOVES[move];
        template = rng.pick(bank);
        text = fill(template, rng, speaker);
        if (move === 'agreement' || !spoken.has(text)) break;
      }
      spoken.add(text);
      // Short agreements often start before the previous speaker has finished.
      let timing: Pick<ScriptLine, 'pause_before' | 'overlap'> = {};
      if (move === 'agreement' && previousLength > 2 && rng.next() < 0.5) timing = { overlap: 0.3 + rng.int(0, 3) / 10 };
      else if (rng.next() < 0.3) timing = { pause_before: rng.int(2, 12) / 10 };
      say(speaker, text, timing);
      previousLength = estimateLineSeconds(text, rates.get(speaker));
      previousSpeaker = speaker;
      previousMove = move;
      previousTemplate = template;
    }
    const decision = fill(rng.pick(MOVES.decision), rng, CHAIR);
    say(CHAIR, decision, { pause_before: 0.8 });
    const action = fill(rng.pick(MOVES.action), rng, CHAIR);
    say(CHAIR, action);
    keyPoints.push({ kind: 'topic', text: topic.name });
    // "Let us write that down as a decision" decides nothing a note could hold.
    if (!/write that down/i.test(decision)) keyPoints.push({ kind: 'decision', text: notePhrase(decision) });
    keyPoints.push({ kind: 'action', text: notePhrase(action) });
  }
  for (const text of CLOSING) say(CHAIR, text, { pause_before: 1 });

  return parseScript(
    {
      title: 'Quarterly planning session',
      language: 'en',
      description: `Generated by simulator/scripts/generate-long-planning-session.ts (seed ${seed}); do not edit by hand. Four people, nine agenda topics, over 30 minutes of speech.`,
      speakers: SPEAKERS,
      lines,
      key_points: keyPoints,
      bias: LONG_SESSION_BIAS,
    },
    'generated long planning session',
  );
}

/**
 * The exact text of the committed fixture, laid out like the hand-written
 * scripts: one speaker or line per row, so a diff shows which lines changed.
 */
export function longPlanningSessionJson(): string {
  const script = generateLongPlanningSession();
  const rows = (items: readonly object[]): string =>
    items
      .map(
        (item) =>
          `    { ${Object.entries(item)
            .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
            .join(', ')} }`,
      )
      .join(',\n');
  return [
    '{',
    `  "title": ${JSON.stringify(script.title)},`,
    `  "language": ${JSON.stringify(script.language)},`,
    `  "description": ${JSON.stringify(script.description)},`,
    '  "speakers": [',
    rows(script.speakers),
    '  ],',
    '  "lines": [',
    rows(script.lines),
    '  ],',
    '  "key_points": [',
    rows(script.key_points ?? []),
    '  ],',
    `  "bias": ${JSON.stringify(script.bias)}`,
    '}',
    '',
  ].join('\n');
}

if (import.meta.main) {
  await writeFile(LONG_SESSION_FILE, longPlanningSessionJson());
  console.log(`wrote ${path.relative(process.cwd(), LONG_SESSION_FILE)}`);
}
