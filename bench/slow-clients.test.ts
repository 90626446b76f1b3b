/**
 * The slow-clients measurement runs end to end at its tiny size and writes a
 * well-formed report: both phases served, the slowloris connections really
 * held while whoami was measured. Shapes and outcomes only, never speeds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, TINY } from './slow-clients.ts';

test('a tiny slow-clients run measures whoami with and without held slowloris connections', { timeout: 120_000 }, async () => {
  const report = await run({ tiny: true, log: () => undefined });
  const { summary, rounds } = report.benchmarks as {
    summary: { without: { rps: number }; with_slowloris: { rps: number } };
    rounds: {
      without: { errors: number; requests: number };
      with: { errors: number; requests: number };
      hold: { wanted: number; held_at_end: number };
    }[];
  };
  assert.equal(rounds.length, TINY.rounds);
  for (const r of rounds) {
    assert.ok(r.without.requests > 0 && r.with.requests > 0, 'both phases were served');
    assert.equal(r.without.errors + r.with.errors, 0);
    assert.equal(r.hold.wanted, TINY.slowloris);
    assert.ok(r.hold.held_at_end > 0, 'slowloris connections were open while whoami was measured');
  }
  assert.ok(summary.without.rps > 0 && summary.with_slowloris.rps > 0);
  assert.equal(typeof report.ratios['whoami_p99_with_slowloris_vs_without'], 'number');
});
