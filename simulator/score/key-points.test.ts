import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rouge1Recall, scoreKeyPoints, stem } from './key-points.ts';
import { listScriptNames, loadScript } from '../scripts/load-script.ts';
import { lineWords } from '../scripts/meeting-script.ts';

test('ROUGE-1 recall counts each reference word at most as often as the candidate has it', () => {
  assert.equal(rouge1Recall(['the', 'fix', 'the', 'bug'], ['the', 'bug']), 0.5);
  assert.equal(rouge1Recall(['a', 'b'], ['b', 'a', 'a']), 1);
  assert.equal(rouge1Recall([], ['a']), 0);
});

test('stemming strips common endings only', () => {
  assert.equal(stem('invoices'), stem('invoice'));
  assert.equal(stem('approved'), stem('approve'));
  assert.equal(stem('testing'), stem('test'));
  assert.equal(stem('bus'), 'bus');
});

test('a key point appears when most of its content words are in the summary', () => {
  const points = [
    { kind: 'blocker', text: 'invoices show the wrong currency for European customers' },
    { kind: 'date', text: 'final review on Thursday' },
    { kind: 'decision', text: 'budget approved' },
  ];
  const summary = 'Blocker: the invoice shows a wrong currency for some European customers. Priya fixes it. Review moved.';
  const score = scoreKeyPoints(points, summary);
  assert.deepEqual(
    score.points.map((p) => p.appears),
    [true, false, false],
  );
  assert.equal(score.points[0]!.matched, 6); // invoices, show, wrong, currency, european, customers
  assert.equal(score.appeared, 1);
  assert.equal(score.total, 3);
  assert.ok(score.rouge1_recall > 0.4 && score.rouge1_recall < 0.8, String(score.rouge1_recall));
  // Two content words: both needed.
  assert.equal(scoreKeyPoints([points[2]!], 'The budget was discussed.').appeared, 0);
  assert.equal(scoreKeyPoints([points[2]!], 'Finance approved the budget.').appeared, 1);
  assert.equal(scoreKeyPoints(points, '').rouge1_recall, 0);
});

test('every fixture script has key points, and its bias is what a user would type', async () => {
  for (const name of await listScriptNames()) {
    const script = await loadScript(name);
    assert.ok((script.key_points ?? []).length > 0, `${name}: key points`);
    assert.ok(script.bias !== undefined, `${name}: bias`);
    assert.ok(script.bias.custom_words.length <= 20);
    assert.ok(lineWords(script.bias.initial_prompt).length <= 30);
    // The whole script as its own summary finds every key point of the hand-written scripts.
    const all = script.lines.map((l) => l.text).join(' ');
    const score = scoreKeyPoints(script.key_points ?? [], all);
    console.log(`${name}: the script itself scores ROUGE-1 ${score.rouge1_recall.toFixed(2)}, ${score.appeared}/${score.total} key points`);
    assert.ok(
      score.appear_rate >= 0.8,
      `${name}: key points are about this meeting (${score.points
        .filter((p) => !p.appears)
        .map((p) => p.text)
        .join('; ')})`,
    );
  }
});
