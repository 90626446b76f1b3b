import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFliteSegments, parseFliteWordPhones, wordTimesFromSegments } from './segment-times.ts';

// Real flite -psdur output for "Hi Ben, thanks." (voice kal16).
const HI_BEN = 'pau:0.220 hh:0.300 ay:0.494 b:0.600 eh:0.824 n:0.903 pau:1.123 th:1.257 ae:1.490 ng:1.575 k:1.718 s:1.944 pau:2.164 \n';

describe('parseFliteSegments', () => {
  it('reads every segment with its end time', () => {
    const segments = parseFliteSegments(HI_BEN);
    assert.equal(segments.length, 13);
    assert.deepEqual(segments[1], { name: 'hh', end: 0.3 });
    assert.deepEqual(segments.at(-1), { name: 'pau', end: 2.164 });
  });

  it('refuses a field that is not name:time', () => {
    assert.throws(() => parseFliteSegments('pau:0.2 hh'), /unexpected segment "hh"/);
    assert.throws(() => parseFliteSegments('pau:0.2 hh:abc'), /unexpected segment "hh:abc"/);
  });

  it('gives nothing for empty output', () => {
    assert.deepEqual(parseFliteSegments('\n'), []);
  });
});

describe('parseFliteWordPhones', () => {
  it('reads one line of phones per word, pauses dropped, a silent word kept as empty', () => {
    assert.deepEqual(parseFliteWordPhones('pau hh ay pau \npau pau \npau b eh n pau \n'), [['hh', 'ay'], [], ['b', 'eh', 'n']]);
  });
});

describe('wordTimesFromSegments', () => {
  const segments = parseFliteSegments(HI_BEN);

  it('gives each word the span of its phones when the phones match exactly', () => {
    const times = wordTimesFromSegments(
      [
        ['hh', 'ay'],
        ['b', 'eh', 'n'],
        ['th', 'ae', 'ng', 'k', 's'],
      ],
      segments,
    );
    assert.deepEqual(times, [
      { start: 0.22, end: 0.494 },
      { start: 0.494, end: 0.903 },
      { start: 1.123, end: 1.944 }, // starts after the comma's pause
    ]);
  });

  it('still splits the sentence at the right places when a word is said differently in context', () => {
    // "ben" said alone as "b ih n", and "thanks" with an extra phone: one substitution, one deletion.
    const times = wordTimesFromSegments(
      [
        ['hh', 'ay'],
        ['b', 'ih', 'n'],
        ['th', 'ae', 'ng', 'k', 's', 'z'],
      ],
      segments,
    );
    assert.deepEqual(
      times?.map((t) => t.end),
      [0.494, 0.903, 1.944],
    );
  });

  it('gives a word none of whose phones were spoken an empty span where the previous word ended', () => {
    const times = wordTimesFromSegments([['hh', 'ay'], [], ['b', 'eh', 'n'], ['th', 'ae', 'ng', 'k', 's']], segments)!;
    assert.deepEqual(times[1], { start: 0.494, end: 0.494 });
    assert.equal(times[2]!.end, 0.903);
  });

  it('keeps the words in order and inside the sentence whatever the phones say', () => {
    const times = wordTimesFromSegments([['x'], ['y', 'z'], ['q']], segments)!;
    for (let i = 0; i < times.length; i++) {
      assert.ok(times[i]!.start <= times[i]!.end);
      if (i > 0) assert.ok(times[i]!.start >= times[i - 1]!.end);
      assert.ok(times[i]!.end <= 1.944);
    }
  });

  it('gives undefined for a sentence of pauses only', () => {
    assert.equal(wordTimesFromSegments([['hh']], [{ name: 'pau', end: 0.2 }]), undefined);
  });
});
