import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { seededRandom } from '../seeded-random.ts';
import { diarizationErrorRate, parseRttm, toRttm } from './der.ts';
import type { DiarizationTurn } from './der.ts';

/** NIST's scorer from the Debian sctk package (a system package of the project). */
const MD_EVAL = '/usr/lib/sctk/bin/md-eval.pl';

const t = (speaker: string, start: number, end: number): DiarizationTurn => ({ speaker, start, end });

describe('diarizationErrorRate', () => {
  it('is 0 for a perfect hypothesis under other names, and counts speakers', () => {
    const ref = [t('alice', 0, 3), t('bob', 3.5, 6), t('alice', 6.5, 9)];
    const hyp = [t('S2', 0, 3), t('S1', 3.5, 6), t('S2', 6.5, 9)];
    const r = diarizationErrorRate(ref, hyp);
    assert.equal(r.der, 0);
    assert.deepEqual(r.mapping, { S1: 'bob', S2: 'alice' });
    assert.equal(r.speaker_count_error, 0);
  });

  it('leaves boundary errors inside the 0.25 s collar unscored', () => {
    const ref = [t('a', 0, 3), t('b', 3, 6)];
    const hyp = [t('x', 0.2, 3.2), t('y', 3.2, 5.8)];
    assert.equal(diarizationErrorRate(ref, hyp).der, 0);
    // Without a collar the same shifts are errors.
    assert.ok(diarizationErrorRate(ref, hyp, { collarSeconds: 0 }).der > 0.05);
  });

  it('splits errors into missed, false alarm and confusion', () => {
    // Scored: [0.25, 3.75] for a (3.5 s) and [4.25, 7.75] for b (3.5 s) = 7 s.
    const ref = [t('a', 0, 4), t('b', 4, 8)];
    // x covers a and then b's first two seconds; b is missed from 6 s on; y speaks over a from 1 s to 2 s
    // (it never meets b, so it maps to nobody).
    const hyp = [t('x', 0, 6), t('y', 1, 2)];
    const r = diarizationErrorRate(ref, hyp);
    assert.equal(r.mapping.x, 'a');
    assert.equal(r.mapping.y, null);
    assert.ok(Math.abs(r.scored_speaker_time - 7) < 1e-9);
    assert.ok(Math.abs(r.missed_speaker_time - 1.75) < 1e-9); // 6 → 7.75
    assert.ok(Math.abs(r.false_alarm_speaker_time - 1) < 1e-9); // y over a
    assert.ok(Math.abs(r.confusion_time - 1.75) < 1e-9); // x on b, 4.25 → 6
    assert.equal(r.hypothesis_speakers, 2);
  });

  it('scores overlapped reference speech once per speaker', () => {
    const ref = [t('a', 0, 4), t('b', 2, 6)];
    const hyp = [t('x', 0, 6)];
    const r = diarizationErrorRate(ref, hyp, { collarSeconds: 0 });
    assert.equal(r.scored_speaker_time, 8);
    assert.equal(r.missed_speaker_time, 2); // one of two voices missed in the overlap
    assert.equal(r.confusion_time, 2); // b alone, labelled a's cluster
  });

  it('reports an over-split as a positive speaker-count error', () => {
    const ref = [t('a', 0, 10)];
    const hyp = [t('x', 0, 5), t('y', 5, 10)];
    const r = diarizationErrorRate(ref, hyp);
    assert.equal(r.speaker_count_error, 1);
    // Scored 0.25 → 9.75 s; whichever cluster maps to a, the other's 4.75 s are confusion.
    assert.ok(Math.abs(r.der - 4.75 / 9.5) < 1e-9);
  });

  it('scores only single-speaker stretches with ignoreOverlap, as md-eval -1', () => {
    // a and b overlap from 2 to 3 s; the hypothesis hears only a.
    const ref = [t('a', 0, 3), t('b', 2, 5)];
    const hyp = [t('x', 0, 3)];
    const all = diarizationErrorRate(ref, hyp, { collarSeconds: 0 });
    assert.ok(Math.abs(all.der - 3 / 6) < 1e-9);
    const single = diarizationErrorRate(ref, hyp, { collarSeconds: 0, ignoreOverlap: true });
    assert.ok(Math.abs(single.der - 2 / 4) < 1e-9);
    assert.equal(single.scored_speaker_time, 4);
  });

  it('is 0 with nothing to score', () => {
    assert.equal(diarizationErrorRate([], [t('x', 0, 1)]).der, 0);
  });

  it('reads and writes RTTM', () => {
    const turns = [t('a', 0.5, 1.25), t('b', 2, 3)];
    assert.deepEqual(parseRttm(toRttm(turns)), turns);
  });
});

interface MdEvalFigures {
  scored: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  der: number;
}

function runMdEval(dir: string, ref: readonly DiarizationTurn[], hyp: readonly DiarizationTurn[]): MdEvalFigures {
  writeFileSync(join(dir, 'ref.rttm'), toRttm(ref));
  writeFileSync(join(dir, 'hyp.rttm'), toRttm(hyp));
  const out = execFileSync('perl', [MD_EVAL, '-c', '0.25', '-r', join(dir, 'ref.rttm'), '-s', join(dir, 'hyp.rttm')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const figure = (label: string): number => {
    const m = new RegExp(`${label} =\\s+([0-9.]+)`).exec(out);
    assert.ok(m, `md-eval printed no "${label}"`);
    return Number(m[1]);
  };
  return {
    scored: figure('SCORED SPEAKER TIME'),
    missed: figure('MISSED SPEAKER TIME'),
    falseAlarm: figure('FALARM SPEAKER TIME'),
    confusion: figure('SPEAKER ERROR TIME'),
    der: figure('OVERALL SPEAKER DIARIZATION ERROR'),
  };
}

/**
 * A random meeting: `speakers` reference voices taking turns with pauses and
 * some overlaps, and a hypothesis derived from it with shifted boundaries,
 * relabelled stretches, dropped turns (missed speech), invented ones (false
 * alarms) and a split or merged speaker.
 */
function randomPair(seed: number): { ref: DiarizationTurn[]; hyp: DiarizationTurn[] } {
  const rnd = seededRandom(seed);
  const speakers = rnd.int(1, 5);
  const ref: DiarizationTurn[] = [];
  let now = rnd.next() * 2;
  const turns = rnd.int(3, 25);
  for (let i = 0; i < turns; i++) {
    const length = 0.3 + rnd.next() * 6;
    const speaker = `spk${rnd.int(1, speakers)}`;
    ref.push(t(speaker, round3(now), round3(now + length)));
    // A negative gap is an overlap with the next turn.
    now += length + (rnd.next() < 0.25 ? -rnd.next() * Math.min(1.5, length) : rnd.next() * 1.5);
  }
  const hyp: DiarizationTurn[] = [];
  const rename = new Map<string, string>();
  for (const r of ref) {
    const roll = rnd.next();
    if (roll < 0.1) continue; // missed
    let name = rename.get(r.speaker);
    if (name === undefined) rename.set(r.speaker, (name = `c${rnd.int(0, speakers + 1)}`));
    if (roll < 0.25) name = `c${rnd.int(0, speakers + 1)}`; // confused
    const start = Math.max(0, r.start + (rnd.next() - 0.5) * 0.8);
    const end = Math.max(start + 0.05, r.end + (rnd.next() - 0.5) * 0.8);
    if (rnd.next() < 0.2) {
      // Split in two clusters.
      const cut = start + (end - start) * rnd.next();
      hyp.push(t(name, round3(start), round3(cut)), t(`c${rnd.int(0, speakers + 1)}`, round3(cut), round3(end)));
    } else hyp.push(t(name, round3(start), round3(end)));
  }
  const invented = rnd.int(0, 3);
  for (let i = 0; i < invented; i++) {
    const start = rnd.next() * now;
    hyp.push(t(`c${rnd.int(0, speakers + 1)}`, round3(start), round3(start + 0.2 + rnd.next() * 2)));
  }
  return { ref, hyp };
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

describe(
  'diarizationErrorRate against NIST md-eval.pl',
  { skip: existsSync(MD_EVAL) ? false : `${MD_EVAL} is missing (Debian package sctk)` },
  () => {
    const cases: { name: string; ref: DiarizationTurn[]; hyp: DiarizationTurn[] }[] = [
      {
        name: 'overlap, a split speaker and speech outside the reference',
        ref: [t('A', 0, 3), t('B', 2.5, 5), t('A', 6, 8)],
        hyp: [t('x', 0.1, 3.5), t('y', 3.5, 5), t('y', 5.5, 6.5), t('z', 6.5, 9.5)],
      },
      { name: 'missed speech', ref: [t('A', 0, 5), t('B', 5.5, 10), t('A', 11, 14)], hyp: [t('x', 0, 5), t('x', 11, 13)] },
      { name: 'false alarm', ref: [t('A', 1, 4), t('B', 6, 9)], hyp: [t('x', 0, 4.5), t('y', 4.5, 6), t('y', 6, 9), t('x', 7, 8)] },
      { name: 'three-way overlap', ref: [t('A', 0, 6), t('B', 1, 5), t('C', 2, 4)], hyp: [t('p', 0, 6), t('q', 1.5, 4)] },
      { name: 'more hypothesis than reference speakers', ref: [t('A', 0, 10)], hyp: [t('p', 0, 3), t('q', 3, 6), t('r', 6, 10)] },
    ];
    for (let seed = 1; seed <= 25; seed++) cases.push({ name: `random meeting ${seed}`, ...randomPair(seed) });

    const dir = mkdtempSync(join(tmpdir(), 'der-md-eval-'));
    for (const c of cases) {
      it(`agrees on: ${c.name}`, () => {
        const expected = runMdEval(dir, c.ref, c.hyp);
        // The RTTM holds times to the millisecond; score what md-eval read.
        const ours = diarizationErrorRate(parseRttm(toRttm(c.ref)), parseRttm(toRttm(c.hyp)));
        // md-eval prints seconds with two decimals and the DER in percent with two.
        assert.ok(
          Math.abs(ours.scored_speaker_time - expected.scored) <= 0.006,
          `scored ${ours.scored_speaker_time} vs ${expected.scored}`,
        );
        assert.ok(
          Math.abs(ours.missed_speaker_time - expected.missed) <= 0.006,
          `missed ${ours.missed_speaker_time} vs ${expected.missed}`,
        );
        assert.ok(
          Math.abs(ours.false_alarm_speaker_time - expected.falseAlarm) <= 0.006,
          `false alarm ${ours.false_alarm_speaker_time} vs ${expected.falseAlarm}`,
        );
        assert.ok(Math.abs(ours.confusion_time - expected.confusion) <= 0.006, `confusion ${ours.confusion_time} vs ${expected.confusion}`);
        assert.ok(Math.abs(100 * ours.der - expected.der) <= 0.006, `DER ${100 * ours.der} % vs ${expected.der} %`);
      });
    }
    it('cleans up', () => rmSync(dir, { recursive: true, force: true }));
  },
);
