import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { delay, http, HttpResponse, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { CancelledError, StageError, uncontrolled, type PcmAudio } from '../../pipeline/types.ts';
import { chunkPlan, normalizeBaseUrl, OpenAiCompatibleRecognizer, parseTranscription } from './openai-compatible.ts';
import { planDecodeSpans } from './spans.ts';
import { UNKNOWN_CONFIDENCE } from './whisper-cpp.ts';

const BASE = 'http://asr.test';
const URL_ = `${BASE}/v1/audio/transcriptions`;
const KEY = 'sk-test-secret-123';
const audio: PcmAudio = { sampleRate: 16_000, samples: new Float32Array(16_000 * 12).fill(0.1), durationSeconds: 12 };
const whole = [{ start: 0, end: 12 }];
const options = { language: 'en-GB', customWords: ['Okonkwo'], initialPrompt: 'Platform sync.' };

const VERBOSE = {
  task: 'transcribe',
  language: 'english',
  duration: 12,
  text: 'Hello Okonkwo.',
  words: [
    { word: 'Hello', start: 0.1, end: 0.5 },
    { word: 'Okonkwo.', start: 0.6, end: 1.2 },
  ],
  segments: [{ id: 0, start: 0, end: 1.5, text: ' Hello Okonkwo.', avg_logprob: -0.2, no_speech_prob: 0.01 }],
};

const server = setupServer();
before(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
after(() => server.close());

const recognizer = (extra: Partial<ConstructorParameters<typeof OpenAiCompatibleRecognizer>[0]> = {}) =>
  new OpenAiCompatibleRecognizer({ baseUrl: BASE, apiKey: KEY, model: 'whisper-large-v3', ...extra });

describe('OpenAiCompatibleRecognizer', () => {
  it('posts the WAV and the fields as multipart form data, with the bearer key', async () => {
    let seen: { auth: string | null; fields: Record<string, unknown>; granularities: string[]; file: File } | undefined;
    server.use(
      http.post(URL_, async ({ request }) => {
        const form = await request.formData();
        const file = form.get('file') as File;
        seen = {
          auth: request.headers.get('authorization'),
          fields: Object.fromEntries([...form.entries()].filter(([k]) => k !== 'file' && !k.startsWith('timestamp'))),
          granularities: form.getAll('timestamp_granularities[]') as string[],
          file,
        };
        return HttpResponse.json(VERBOSE);
      }),
    );
    await recognizer().transcribe(audio, whole, { ...options, model: 'distil-large' }, uncontrolled());
    assert.ok(seen !== undefined);
    assert.equal(seen.auth, `Bearer ${KEY}`);
    assert.deepEqual(seen.fields, {
      model: 'distil-large',
      language: 'en',
      prompt: 'Platform sync. Okonkwo.',
      response_format: 'verbose_json',
    });
    assert.deepEqual(seen.granularities, ['word', 'segment']);
    assert.equal(seen.file.name, 'speech.wav');
    assert.equal(seen.file.type, 'audio/wav');
    const bytes = Buffer.from(await seen.file.arrayBuffer());
    assert.equal(bytes.subarray(0, 4).toString('ascii'), 'RIFF');
    assert.equal(bytes.length, 44 + 12 * 16_000 * 2);
  });

  it('parses words, with confidence from the segment average log probability', async () => {
    server.use(http.post(URL_, () => HttpResponse.json(VERBOSE)));
    const words = await recognizer().transcribe(audio, whole, options, uncontrolled());
    assert.deepEqual(
      words.map((w) => [w.text, w.start, w.end]),
      [
        ['Hello', 0.1, 0.5],
        ['Okonkwo.', 0.6, 1.2],
      ],
    );
    assert.ok(Math.abs(words[0]!.confidence - Math.exp(-0.2)) < 1e-9);
  });

  it('uses the configured default model and leaves language out for auto', async () => {
    let fields: FormData | undefined;
    server.use(
      http.post(URL_, async ({ request }) => {
        fields = await request.formData();
        return HttpResponse.json(VERBOSE);
      }),
    );
    await recognizer().transcribe(audio, whole, { language: 'auto', customWords: [], initialPrompt: '' }, uncontrolled());
    assert.equal(fields?.get('model'), 'whisper-large-v3');
    assert.equal(fields?.get('language'), null);
    assert.equal(fields?.get('prompt'), null);
  });

  it('sends long audio in chunks, one at a time, and maps their times back', async () => {
    const durations: number[] = [];
    let inFlight = 0;
    server.use(
      http.post(URL_, async ({ request }) => {
        inFlight++;
        assert.equal(inFlight, 1);
        const file = (await request.formData()).get('file') as File;
        durations.push((file.size - 44) / 32_000);
        await delay(5);
        inFlight--;
        return HttpResponse.json({ text: 'x', words: [{ word: 'word', start: 1, end: 1.5 }] });
      }),
    );
    const progress: number[] = [];
    const words = await recognizer({ maxChunkSeconds: 5 }).transcribe(audio, whole, options, {
      ...uncontrolled(),
      progress: (f) => progress.push(f),
    });
    assert.deepEqual(durations, [5, 5, 2]);
    assert.deepEqual(
      words.map((w) => w.start),
      [1, 6, 11],
    );
    assert.deepEqual(progress, [5 / 12, 10 / 12, 1]);
  });

  it('a 500 is a retryable failure', async () => {
    server.use(http.post(URL_, () => HttpResponse.json({ error: { message: 'model overloaded' } }, { status: 500 })));
    await assert.rejects(recognizer().transcribe(audio, whole, options, uncontrolled()), (err: unknown) => {
      assert.ok(err instanceof StageError);
      assert.equal(err.retryable, true);
      assert.equal(err.dependencyMissing, false);
      assert.match(err.message, /answered 500: model overloaded/);
      return true;
    });
  });

  it('a 401 is final, carries the endpoint message, and never the key', async () => {
    server.use(http.post(URL_, () => HttpResponse.json({ error: { message: `Incorrect API key provided: ${KEY}.` } }, { status: 401 })));
    await assert.rejects(recognizer().transcribe(audio, whole, options, uncontrolled()), (err: unknown) => {
      assert.ok(err instanceof StageError);
      assert.equal(err.retryable, false);
      assert.match(err.message, /answered 401: Incorrect API key provided/);
      assert.ok(!err.message.includes(KEY));
      return true;
    });
  });

  it('cancelling the job aborts the request', async () => {
    server.use(
      http.post(URL_, async () => {
        await delay('infinite');
        return HttpResponse.json(VERBOSE);
      }),
    );
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    await assert.rejects(recognizer().transcribe(audio, whole, options, { ...uncontrolled(), signal: abort.signal }), CancelledError);
  });

  it('an endpoint that does not answer in time is a retryable failure', async () => {
    server.use(
      http.post(URL_, async () => {
        await delay('infinite');
        return HttpResponse.json(VERBOSE);
      }),
    );
    await assert.rejects(recognizer({ requestTimeoutMs: 50 }).transcribe(audio, whole, options, uncontrolled()), (err: unknown) => {
      assert.ok(err instanceof StageError && err.retryable && !err.dependencyMissing);
      assert.match(err.message, /did not answer/);
      return true;
    });
  });

  it('a refused connection is a missing dependency; available() says so', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server.use(http.all(`${base}/*`, () => passthrough()));
    const r = new OpenAiCompatibleRecognizer({ baseUrl: base });
    assert.equal(await r.available(), false);
    await assert.rejects(r.transcribe(audio, whole, options, uncontrolled()), (err: unknown) => {
      assert.ok(err instanceof StageError);
      assert.equal(err.dependencyMissing, true);
      assert.equal(err.retryable, true);
      assert.match(err.message, /ECONNREFUSED/);
      return true;
    });
  });

  it('unconfigured: not available, and a missing dependency', async () => {
    const r = new OpenAiCompatibleRecognizer({ baseUrl: undefined });
    assert.equal(await r.available(), false);
    await assert.rejects(
      r.transcribe(audio, whole, options, uncontrolled()),
      (err: unknown) => err instanceof StageError && err.dependencyMissing,
    );
  });

  it('available() is true for any HTTP answer', async () => {
    server.use(http.get(`${BASE}/v1/models`, () => new HttpResponse(null, { status: 404 })));
    assert.equal(await recognizer().available(), true);
  });
});

describe('verbose_json parsing and chunking', () => {
  it('prefers a word probability, falls back to segments, then to the text', () => {
    assert.equal(parseTranscription({ words: [{ word: ' hi', start: 0, end: 1, probability: 0.7 }] }, 5)[0]!.confidence, 0.7);
    assert.deepEqual(
      parseTranscription({ segments: [{ start: 1, end: 2, text: ' ab cd', avg_logprob: 0 }] }, 5).map((w) => [
        w.text,
        w.start,
        w.end,
        w.confidence,
      ]),
      [
        ['ab', 1, 1.5, 1],
        ['cd', 1.5, 2, 1],
      ],
    );
    assert.deepEqual(
      parseTranscription({ text: 'one' }, 5).map((w) => [w.text, w.start, w.end, w.confidence]),
      [['one', 0, 5, UNKNOWN_CONFIDENCE]],
    );
    assert.throws(() => parseTranscription('nope', 5), StageError);
  });

  it('cuts a plan into chunks no longer than the limit', () => {
    const plan = planDecodeSpans(
      [
        { start: 0, end: 3 },
        { start: 20, end: 27 },
      ],
      60,
    );
    const chunks = chunkPlan(plan, 5);
    assert.ok(chunks.every((c) => c.fileDuration <= 5 + 1e-9));
    const covered = chunks.flatMap((c) => c.spans).reduce((n, s) => n + s.sourceEnd - s.sourceStart, 0);
    assert.equal(covered, 10);
  });

  it('normalizes base URLs', () => {
    assert.equal(normalizeBaseUrl('http://h:8000/v1/'), 'http://h:8000');
    assert.equal(normalizeBaseUrl('https://api.openai.com'), 'https://api.openai.com');
    assert.equal(normalizeBaseUrl('ftp://x'), null);
    assert.equal(normalizeBaseUrl(''), null);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
