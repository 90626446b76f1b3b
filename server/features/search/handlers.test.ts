/**
 * GET /v1/search over HTTP: what a hit looks like, the order (title hits,
 * then transcript hits, newest meeting first, transcript order inside a
 * meeting), paging over that one sequence, and that no q, however hostile,
 * reaches FTS5 as syntax (docs/decisions/006-search.md).
 */
import { after, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import type { MeetingSeed } from '../meetings/service.ts';
import { ALL_SCOPES, testGateway } from '../../testing/gateway.ts';

const gw = testGateway();
const auth = gw.bearer(ALL_SCOPES);

interface Hit {
  meeting_id: string;
  title: string;
  match_context: string;
  timestamp: string;
  audio_start_time?: number;
}

async function search(query: string): Promise<{ status: number; body: { results: Hit[] } & Record<string, unknown> }> {
  const res = await request(gw.app).get(`/v1/search?${query}`).set('Authorization', auth);
  return { status: res.status, body: res.body as { results: Hit[] } };
}
const q = (text: string, extra = '') => search(`q=${encodeURIComponent(text)}${extra}`);

function seed(title: string, texts: string[], over: Partial<MeetingSeed> = {}): string {
  return gw.deps.meetings.create({
    title,
    created_at: '2026-11-20T09:00:00Z',
    segments: texts.map((text, i) => ({ speaker: `S${(i % 2) + 1}`, start: i * 10 + 0.5, end: i * 10 + 9, text })),
    summary: null,
    audio: false,
    ...over,
  }).id;
}

beforeEach(() => gw.deps.meetings.deleteAll());
after(() => gw.close());

describe('hits', () => {
  test('a title hit carries the meeting, the title as context, the meeting time and no audio_start_time', async () => {
    const id = seed('Budget review', ['nothing to see'], { created_at: '2026-05-01T10:00:00Z' });
    const res = await q('budget');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      results: [{ meeting_id: id, title: 'Budget review', match_context: 'Budget review', timestamp: '2026-05-01T10:00:00.000Z' }],
    });
    assert.equal('total' in res.body, false);
  });

  test('a transcript hit carries audio_start_time and a plain snippet around the word', async () => {
    const long =
      'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen ' +
      'seventeen eighteen nineteen twenty marmalade twentyone twentytwo twentythree twentyfour twentyfive ' +
      'twentysix twentyseven twentyeight twentynine thirty thirtyone thirtytwo thirtythree';
    const id = seed('Standup', ['hello', long]);
    const res = await q('Marmalade');
    assert.equal(res.status, 200);
    assert.equal(res.body.results.length, 1);
    const hit = res.body.results[0]!;
    assert.equal(hit.meeting_id, id);
    assert.equal(hit.title, 'Standup');
    assert.equal(hit.audio_start_time, 10.5);
    assert.match(hit.match_context, /marmalade/);
    assert.ok(hit.match_context.includes('…'), hit.match_context);
    assert.ok(hit.match_context.length < long.length);
    assert.doesNotMatch(hit.match_context, /[<>[\]]/, 'no highlight markup');
  });

  test('every word must match (AND), in any order, case and accents ignored', async () => {
    const both = seed('Notes', ['the café in Zürich was closed']);
    seed('Other', ['the cafe was open']);
    const res = await q('ZURICH cafe');
    assert.deepEqual(
      res.body.results.map((r) => r.meeting_id),
      [both],
    );
    const decomposed = await q('Zu\u0308rich');
    assert.deepEqual(
      decomposed.body.results.map((r) => r.meeting_id),
      [both],
    );
  });

  test('a meeting may give one title hit and several transcript hits', async () => {
    const id = seed('Roadmap', ['roadmap one', 'unrelated', 'roadmap two']);
    const res = await q('roadmap');
    assert.deepEqual(
      res.body.results.map((r) => [r.meeting_id, r.audio_start_time]),
      [
        [id, undefined],
        [id, 0.5],
        [id, 20.5],
      ],
    );
  });
});

describe('order and paging', () => {
  // Three meetings stored oldest first; each mentions "kiwi" in its title
  // or transcript, so the full sequence is known.
  function threeMeetings() {
    const a = seed('Kiwi planning', ['kiwi a0', 'nothing', 'kiwi a2']);
    const b = seed('Weekly', ['kiwi b0', 'kiwi b1']);
    const c = seed('Kiwi retro', ['none here', 'kiwi c1']);
    return [
      [c, undefined],
      [a, undefined],
      [c, 10.5],
      [b, 0.5],
      [b, 10.5],
      [a, 0.5],
      [a, 20.5],
    ] as const;
  }
  const key = (r: Hit) => [r.meeting_id, r.audio_start_time] as const;

  test('title hits first, then transcript hits; newest meeting first; transcript order within a meeting', async () => {
    const expected = threeMeetings();
    const res = await q('kiwi');
    assert.deepEqual(res.body.results.map(key), expected);
  });

  test('every (offset, limit) window equals the same slice of the whole sequence', async () => {
    const expected = threeMeetings();
    for (let offset = 0; offset <= expected.length + 1; offset++) {
      for (const limit of [1, 2, 3, 7]) {
        const res = await q('kiwi', `&limit=${limit}&offset=${offset}`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.results.map(key), expected.slice(offset, offset + limit), `offset ${offset} limit ${limit}`);
      }
    }
  });

  test('limit defaults to 50 and is clamped to 1..200', async () => {
    seed(
      'Many',
      Array.from({ length: 260 }, (_, i) => `apple ${i}`),
    );
    assert.equal((await q('apple')).body.results.length, 50);
    const big = await q('apple', '&limit=1000');
    assert.equal(big.status, 200);
    assert.equal(big.body.results.length, 200);
    const zero = await q('apple', '&limit=0');
    assert.equal(zero.status, 200);
    assert.equal(zero.body.results.length, 1);
    const tail = await q('apple', '&limit=200&offset=200');
    assert.equal(tail.body.results.length, 60);
    // Transcript order inside one meeting survives paging.
    assert.deepEqual(
      tail.body.results.slice(0, 2).map((r) => r.audio_start_time),
      [2000.5, 2010.5],
    );
  });
});

describe('q handling', () => {
  test('missing, empty and blank q are 400 bad_request', async () => {
    for (const query of ['', 'q=', 'q=%20%20', 'q=%09', 'limit=5']) {
      const res = await search(query);
      assert.equal(res.status, 400, query);
      assert.equal((res.body as unknown as { error: { code: string } }).error.code, 'bad_request');
    }
  });

  test('a q without any word finds nothing, with 200', async () => {
    seed('Anything', ['anything at all']);
    for (const text of ['"', '***', '()', '-', ':', '^', '""""', '…', '🙂']) {
      const res = await q(text);
      assert.equal(res.status, 200, text);
      assert.deepEqual(res.body.results, [], text);
    }
  });

  test('hostile q strings are words, never FTS5 syntax, and never fail', async () => {
    const id = seed('NEAR and OR', ['text: the star * is near the quote "x" and (parens) AND NOT this']);
    const hostile = [
      '"',
      '"unbalanced',
      'a"b',
      '(',
      ')',
      '(text)',
      'NEAR',
      'NEAR(a b)',
      'NEAR(a b, 2)',
      'a OR b',
      'a AND b',
      'NOT a',
      'a NOT',
      '*',
      'star*',
      '^start',
      'text:',
      'text:star',
      'title:x',
      '{text}: star',
      '- star',
      '+star',
      'rank:1',
      "'; DROP TABLE meetings; --",
      '\\',
      '\u0000',
      '\u202e',
      'é',
      'Zu\u0308rich',
      '日本語',
      '🙂🙃',
      'a'.repeat(500),
      'a '.repeat(250),
      '"'.repeat(500),
      'x'.repeat(499) + '"',
    ];
    for (const text of hostile) {
      const res = await q(text);
      assert.equal(res.status, 200, JSON.stringify(text));
      assert.ok(Array.isArray(res.body.results), JSON.stringify(text));
    }
    // Operator words are ordinary words: they find the meeting that says them.
    for (const text of ['NEAR', 'near', 'OR', 'AND NOT', 'text: star', 'star*', '(parens)', '"x"']) {
      const res = await q(text);
      assert.ok(
        res.body.results.some((r) => r.meeting_id === id),
        JSON.stringify(text),
      );
    }
  });

  test('a q above 500 characters is refused with 422', async () => {
    const res = await q('a'.repeat(501));
    assert.equal(res.status, 422);
  });
});

test('no request above ended in an unexpected failure', () => {
  assert.deepEqual(gw.errors, []);
});
