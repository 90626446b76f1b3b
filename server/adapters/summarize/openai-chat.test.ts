import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { CancelledError, StageError, uncontrolled, type SummaryInput } from '../../pipeline/types.ts';
import { EmptyTranscriptError } from './extractive.ts';
import { OpenAiChatSummarizer, parseSections, transcriptLines } from './openai-chat.ts';

const BASE = 'http://llm.test';
const URL_ = `${BASE}/v1/chat/completions`;
const KEY = 'sk-chat-secret-999';
const server = setupServer();
before(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
after(() => server.close());

const input: SummaryInput = {
  title: 'Platform stand-up',
  language: 'de',
  templateId: 'daily_standup',
  segments: [
    { speaker: 'S1', speaker_name: 'Priya', start: 0, end: 3, text: 'Yesterday I finished the migration.' },
    { speaker: 'S2', speaker_name: null, start: 3, end: 6, text: 'I am blocked on the review.' },
  ],
};

const completion = (content: string) => ({
  id: 'c1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
});
const summarizer = (extra: Partial<ConstructorParameters<typeof OpenAiChatSummarizer>[0]> = {}) =>
  new OpenAiChatSummarizer({ baseUrl: BASE, apiKey: KEY, model: 'llama-3.1-8b', ...extra });

describe('OpenAiChatSummarizer', () => {
  it('asks for the template sections as a JSON object and reads them back', async () => {
    let request: { auth: string | null; body: Record<string, unknown> } | undefined;
    server.use(
      http.post(URL_, async ({ request: req }) => {
        request = { auth: req.headers.get('authorization'), body: (await req.json()) as Record<string, unknown> };
        return HttpResponse.json(
          completion(
            JSON.stringify({
              sections: [
                { title: 'Updates', text: '- Priya finished the migration.' },
                { title: 'Plans', text: 'None mentioned.' },
                { title: 'Blockers', text: ['- S2 is blocked on the review.'] },
              ],
            }),
          ),
        );
      }),
    );
    const out = await summarizer().summarize(input, uncontrolled());
    assert.equal(request?.auth, `Bearer ${KEY}`);
    const body = request.body as { model: string; response_format: unknown; messages: { role: string; content: string }[] };
    assert.equal(body.model, 'llama-3.1-8b');
    assert.deepEqual(body.response_format, { type: 'json_object' });
    assert.equal(body.messages[0]!.role, 'system');
    for (const title of ['"Updates"', '"Plans"', '"Blockers"']) assert.ok(body.messages[0]!.content.includes(title));
    assert.match(body.messages[0]!.content, /"sections"/);
    assert.match(body.messages[0]!.content, /code "de"/);
    assert.equal(
      body.messages[1]!.content,
      'Meeting title: Platform stand-up\n\nTranscript:\n(00:00) Priya: Yesterday I finished the migration.\n(00:03) S2: I am blocked on the review.',
    );
    assert.deepEqual(out.sections, [
      { title: 'Updates', text: '- Priya finished the migration.' },
      { title: 'Plans', text: 'None mentioned.' },
      { title: 'Blockers', text: '- S2 is blocked on the review.' },
    ]);
    assert.equal(
      out.text,
      'Updates:\n- Priya finished the migration.\n\nPlans:\nNone mentioned.\n\nBlockers:\n- S2 is blocked on the review.',
    );
    assert.equal(out.model, 'llama-3.1-8b');
  });

  it('puts the answer in the template\'s shape: its titles and order, a line for a section left out, "- " bullets; tells the meeting date', async () => {
    let user = '';
    let system = '';
    server.use(
      http.post(URL_, async ({ request: req }) => {
        const body = (await req.json()) as { messages: { content: string }[] };
        system = body.messages[0]!.content;
        user = body.messages[1]!.content;
        return HttpResponse.json(
          completion(
            JSON.stringify({
              sections: [
                { title: 'action items', text: '* (00:03) Owner: S2. Task: ask for the review. Due: 2026-11-24.' },
                { title: 'Decisions', text: '1. (00:00) Priya: the migration ships (agreed by S2)' },
              ],
            }),
          ),
        );
      }),
    );
    const out = await summarizer().summarize(
      { ...input, templateId: 'meeting_notes', meetingDate: '2026-11-23T09:00:00Z' },
      uncontrolled(),
    );
    assert.match(user, /^Meeting title: Platform stand-up\nMeeting date: 2026-11-23\n/);
    assert.match(system, /Owner: Ben\. Task: send the minutes/);
    assert.deepEqual(out.sections, [
      { title: 'Overview', text: 'None mentioned.' },
      { title: 'Decisions', text: '- (00:00) Priya: the migration ships (agreed by S2)' },
      { title: 'Action items', text: '- (00:03) Owner: S2. Task: ask for the review. Due: 2026-11-24.' },
      { title: 'Blockers and risks', text: 'No blockers or risks mentioned.' },
      { title: 'Open questions', text: 'No open questions.' },
    ]);
  });

  it('takes an answer that is not the JSON asked for as one section', async () => {
    server.use(http.post(URL_, () => HttpResponse.json(completion('The team shipped the migration. One blocker: review.'))));
    const out = await summarizer().summarize(input, uncontrolled());
    assert.deepEqual(out.sections, [{ title: 'Summary', text: 'The team shipped the migration. One blocker: review.' }]);
  });

  it('a 5xx or an empty answer is retryable; a 4xx is final and keeps the key out', async () => {
    server.use(http.post(URL_, () => HttpResponse.text('upstream down', { status: 502 })));
    await assert.rejects(
      summarizer().summarize(input, uncontrolled()),
      (e: unknown) => e instanceof StageError && e.retryable && /502: upstream down/.test(e.message),
    );

    server.use(http.post(URL_, () => HttpResponse.json({ choices: [] })));
    await assert.rejects(
      summarizer().summarize(input, uncontrolled()),
      (e: unknown) => e instanceof StageError && e.retryable && /without any message/.test(e.message),
    );

    server.use(http.post(URL_, () => HttpResponse.json({ error: { message: `Invalid key ${KEY}` } }, { status: 401 })));
    await assert.rejects(summarizer().summarize(input, uncontrolled()), (e: unknown) => {
      assert.ok(e instanceof StageError);
      assert.equal(e.retryable, false);
      assert.match(e.message, /401: Invalid key \*\*\*/);
      assert.ok(!e.message.includes(KEY));
      return true;
    });
  });

  it('cancellation aborts the request; not configured is a missing dependency; empty is typed', async () => {
    server.use(
      http.post(URL_, async () => {
        await delay('infinite');
        return HttpResponse.json(completion('{}'));
      }),
    );
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 30);
    await assert.rejects(summarizer().summarize(input, { ...uncontrolled(), signal: abort.signal }), CancelledError);
    await assert.rejects(
      summarizer({ baseUrl: undefined }).summarize(input, uncontrolled()),
      (e: unknown) => e instanceof StageError && e.dependencyMissing,
    );
    await assert.rejects(summarizer().summarize({ ...input, segments: [] }, uncontrolled()), EmptyTranscriptError);
  });
});

describe('chat helpers', () => {
  it('parses fenced JSON, drops empty sections, falls back on junk', () => {
    assert.deepEqual(parseSections('```json\n{"sections":[{"title":"A","text":"x"},{"title":"B","text":""}]}\n```'), [
      { title: 'A', text: 'x' },
    ]);
    assert.deepEqual(parseSections('{"sections": []}'), [{ title: 'Summary', text: '{"sections": []}' }]);
  });

  it('cuts a long transcript at a line', () => {
    const segments = Array.from({ length: 100 }, (_, i) => ({
      speaker: 'S1',
      speaker_name: null,
      start: i,
      end: i + 1,
      text: `line ${i} ${'x'.repeat(80)}`,
    }));
    const text = transcriptLines(segments, 1000);
    assert.ok(text.length < 1100);
    assert.match(text, /left out for length\]$/);
  });
});
