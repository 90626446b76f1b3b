import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listScriptNames, loadScript } from '../scripts/load-script.ts';
import { DEFAULT_PAUSE_SECONDS, lineWords, parseScript } from '../scripts/meeting-script.ts';
import type { MeetingScript } from '../scripts/meeting-script.ts';
import { seededRandom } from '../seeded-random.ts';
import { OverlapTooLongError, placeLines } from './place.ts';
import type { PlacedLine } from './place.ts';
import { isBackchannelText, planDynamics } from './plan.ts';
import type { PlannedLine } from './plan.ts';
import { NATURAL_PROFILE, dynamicsProfile, quantileAt } from './profiles.ts';

const RATE = 16_000;
const LEAD_IN = 0.5;

/** Stand-in synthesized lengths: about 0.33 s a word, a little varied, as a synthesizer at 160 wpm gives. */
function lengthsFor(plan: readonly PlannedLine[], seed: number): number[] {
  const random = seededRandom(seed);
  return plan.map((l) => Math.round((0.15 + 0.33 * lineWords(l.text).length * (0.8 + 0.4 * random.next())) * RATE));
}

function natural(script: MeetingScript, seed: number): { plan: PlannedLine[]; placed: PlacedLine[] } {
  const plan = planDynamics(script, NATURAL_PROFILE, seed);
  return { plan, placed: placeLines(plan, lengthsFor(plan, seed), RATE, LEAD_IN, NATURAL_PROFILE) };
}

const scripts = await Promise.all((await listScriptNames()).map(async (name) => ({ name, script: await loadScript(name) })));

describe('the tidy dynamics: the timeline the renderer always made', () => {
  it('keeps every script line, its text, and places it by pause_before, overlap or 0.4 s', () => {
    const script = parseScript({
      title: 't',
      language: 'en',
      speakers: [
        { key: 'A', name: 'A' },
        { key: 'B', name: 'B' },
      ],
      lines: [
        { speaker: 'A', text: 'One two three.', pause_before: 0.2 },
        { speaker: 'B', text: 'Four five.' },
        { speaker: 'A', text: 'Six seven eight nine.', overlap: 0.5 },
        { speaker: 'B', text: 'Ten.', pause_before: 1.5 },
      ],
    });
    const plan = planDynamics(script, dynamicsProfile('tidy'), 7);
    assert.deepEqual(
      plan.map((l) => [l.speaker, l.text, l.inserted]),
      script.lines.map((l) => [l.speaker, l.text, undefined]),
    );
    const lengths = [2 * RATE, RATE, 3 * RATE, RATE / 2];
    const placed = placeLines(plan, lengths, RATE, LEAD_IN, dynamicsProfile('tidy'));
    const first = (LEAD_IN + 0.2) * RATE;
    const second = first + 2 * RATE + DEFAULT_PAUSE_SECONDS * RATE;
    const third = second + RATE - 0.5 * RATE;
    const fourth = third + 3 * RATE + 1.5 * RATE;
    assert.deepEqual(
      placed.map((p) => p.start),
      [first, second, third, fourth].map(Math.round),
    );
    assert.deepEqual(planDynamics(script, dynamicsProfile('tidy'), 1), plan, 'the seed changes nothing');
  });

  it('refuses a scripted overlap longer than the line it overlaps, naming the line', () => {
    const script = parseScript({
      title: 't',
      language: 'en',
      speakers: [
        { key: 'A', name: 'A' },
        { key: 'B', name: 'B' },
      ],
      lines: [
        { speaker: 'A', text: 'Short.' },
        { speaker: 'B', text: 'A longer line.', overlap: 3 },
      ],
    });
    const plan = planDynamics(script, dynamicsProfile('tidy'), 1);
    assert.throws(() => placeLines(plan, [RATE, 2 * RATE], RATE, LEAD_IN, dynamicsProfile('tidy')), OverlapTooLongError);
    assert.throws(() => placeLines(plan, [RATE, 2 * RATE], RATE, LEAD_IN, dynamicsProfile('tidy')), /line 2: overlap 3 s/);
  });
});

describe('the natural dynamics', () => {
  it('gives the same plan and timeline for the same script and seed, another for another seed', () => {
    const script = scripts.find((s) => s.name === 'four-person-standup')!.script;
    assert.deepEqual(natural(script, 3), natural(script, 3));
    assert.notDeepEqual(natural(script, 3).placed, natural(script, 4).placed);
  });

  it('keeps every script line in order, by its speaker, with its words (hesitations added only)', () => {
    for (const { name, script } of scripts) {
      for (const seed of [1, 2, 3]) {
        const { plan } = natural(script, seed);
        const own = plan.filter((l) => l.inserted === undefined);
        assert.deepEqual(
          own.map((l) => [l.scriptLine, l.speaker]),
          script.lines.map((l, i) => [i, l.speaker]),
          `${name} seed ${seed}`,
        );
        own.forEach((l) => {
          const words = lineWords(l.text);
          const without = words.filter((_, k) => !l.hesitationWords.includes(k));
          assert.deepEqual(without, lineWords(script.lines[l.scriptLine]!.text), `${name} line ${l.scriptLine}`);
          for (const k of l.hesitationWords) assert.match(words[k]!, /^(um|uh)$/);
        });
      }
    }
  });

  it('gives backchannels and false starts to a listener, never to the speaker they accompany', () => {
    let backchannels = 0;
    for (const { script } of scripts.filter((s) => s.script.speakers.length > 1)) {
      for (const seed of [1, 2, 3]) {
        const { plan } = natural(script, seed);
        plan.forEach((l) => {
          if (l.inserted === undefined) return;
          const accompanied = plan.find((m) => m.inserted === undefined && m.scriptLine === l.scriptLine)!;
          assert.notEqual(l.speaker, accompanied.speaker);
          assert.ok(script.speakers.some((s) => s.key === l.speaker));
          if (l.inserted === 'backchannel') {
            assert.ok(isBackchannelText(l.text), l.text);
            backchannels++;
          }
        });
      }
    }
    assert.ok(backchannels > 10, `only ${backchannels} backchannels over every script and three seeds`);
  });

  it('never starts before the file, never swallows a line whose start it drew, never lets anyone talk over themselves', () => {
    for (const { name, script } of scripts) {
      for (const seed of [1, 2, 3, 4, 5]) {
        const { plan, placed } = natural(script, seed);
        placed.forEach((p, i) => {
          assert.ok(p.start >= 0 && p.end > p.start, `${name} seed ${seed} line ${i}`);
          for (let j = 0; j < placed.length; j++) {
            const q = placed[j]!;
            if (j === i) continue;
            if (plan[j]!.speaker === plan[i]!.speaker)
              assert.ok(q.end <= p.start || q.start >= p.end, `${name} seed ${seed}: ${plan[i]!.speaker} talks over themselves`);
            // A scripted overlap is placed as the script says (tidy); the ones the dynamics draw are bounded.
            if (plan[i]!.inserted === undefined && plan[i]!.timing.kind === 'offset')
              assert.ok(!(q.start <= p.start && q.end >= p.end), `${name} seed ${seed}: script line ${plan[i]!.scriptLine} swallowed`);
          }
        });
        // Script lines start in script order.
        const own = placed.filter((_, i) => plan[i]!.inserted === undefined);
        own.forEach((p, i) => assert.ok(i === 0 || p.start > own[i - 1]!.start, `${name} seed ${seed}: line ${i} starts early`));
      }
    }
  });

  it('overlaps some changes of speaker and leaves a gap at others', () => {
    const { plan, placed } = natural(scripts.find((s) => s.name === 'long-planning-session')!.script, 1);
    let overlapping = 0;
    let gaps = 0;
    for (let i = 1; i < plan.length; i++) {
      if (plan[i]!.timing.kind !== 'offset' || plan[i]!.inserted !== undefined) continue;
      const before = Math.max(...placed.slice(0, i).map((p) => p.end));
      if (placed[i]!.start < before) overlapping++;
      else gaps++;
    }
    assert.ok(overlapping > 50 && gaps > 50, `${overlapping} overlapping, ${gaps} with a gap`);
  });

  it('adds no backchannels or hesitations to a script that already has its share of them', () => {
    const lines = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0 ? { speaker: 'A', text: 'Um, I think we should uh ship it now.' } : { speaker: 'B', text: 'Yeah.' },
    );
    const script = parseScript({
      title: 't',
      language: 'en',
      speakers: [
        { key: 'A', name: 'A' },
        { key: 'B', name: 'B' },
      ],
      lines,
    });
    const { plan } = natural(script, 1);
    assert.equal(plan.filter((l) => l.inserted === 'backchannel').length, 0);
    assert.ok(plan.every((l) => l.hesitationWords.length === 0));
  });

  it('draws offsets from the quantile table, between its ends', () => {
    const table = NATURAL_PROFILE.changeOffsets;
    assert.equal(quantileAt(table, 0), table[0]![1]);
    assert.equal(quantileAt(table, 0.5), 0.13);
    assert.equal(quantileAt(table, 1), table.at(-1)![1]);
    assert.ok(Math.abs(quantileAt(table, 0.225) - (-0.8 + -0.59) / 2) < 1e-9);
  });
});
