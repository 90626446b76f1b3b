/**
 * Job helpers for the jobs, SSE and events checks: a short WAV with speech
 * (fixtures/meetings/tiny.json, rendered once and shipped: harness/audio.ts), imports of raw
 * bytes, polling a job until a state, and uploads that stall on purpose (a
 * Content-Length that is never sent in full) for the size cap and the import
 * budget, recorded as exchanges with a curl line.
 */
import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import { JOB_TERMINAL_STATES } from '../spec/constants.ts';
import { speechBytes } from './audio.ts';
import type { BoundClient, FixtureHost } from './context-types.ts';
import { curlLine } from './curl.ts';
import type { Exchange } from './exchange.ts';
import type { HttpResult } from './http.ts';
import { joinUrl } from './http.ts';

export interface JobDto {
  id?: unknown;
  kind?: unknown;
  state?: unknown;
  stage?: unknown;
  progress?: unknown;
  meeting_id?: unknown;
  is_retryable?: unknown;
  error?: unknown;
  created_at?: unknown;
}

/** A short 16 kHz mono WAV with two spoken lines (the simulator's tiny meeting), shipped with the suite. */
export function speechWav(): Promise<Uint8Array> {
  return speechBytes('tiny');
}

/**
 * Three seconds of a 440 Hz tone, 16 kHz mono 16-bit WAV, made here: valid
 * audio with no speech in it. Whatever a target makes of it (a failed job, or
 * a meeting with an empty transcript), it holds none of the speech's words.
 */
export function toneWav(seconds = 3, rate = 16_000): Uint8Array {
  const samples = new Int16Array(seconds * rate);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000);
  return pcmWav(samples, rate);
}

/** 16-bit mono PCM samples as a WAV file, built here so the suite needs no audio tool. */
export function pcmWav(samples: Int16Array, rate = 16_000): Uint8Array {
  const buf = Buffer.alloc(44 + samples.length * 2);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + samples.length * 2, 4);
  buf.write('WAVEfmt ', 8, 'ascii');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(samples.length * 2, 40);
  for (let i = 0; i < samples.length; i++) buf.writeInt16LE(samples[i]!, 44 + i * 2);
  return new Uint8Array(buf);
}

/** The words (4 letters or more, lower case) of every `text` field of a transcript answer. */
export function transcriptWords(body: unknown): Set<string> {
  const words = new Set<string>();
  const walk = (v: unknown, key: string): void => {
    if (typeof v === 'string' && key === 'text') for (const w of v.toLowerCase().match(/[a-z']{4,}/g) ?? []) words.add(w);
    else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(body, '');
  return words;
}

/** Bytes that no decoder accepts, to be named x.wav. */
export const UNDECODABLE = new TextEncoder().encode('this is not audio, only text pretending to be a WAV file\n'.repeat(20));

/** POST /v1/jobs/import with raw bytes. */
export function importBytes(
  api: BoundClient,
  bytes: Uint8Array,
  query: Record<string, string | undefined> = { filename: 'meeting.wav' },
  label?: string,
): Promise<HttpResult> {
  return api.post('/v1/jobs/import', {
    query,
    body: bytes,
    contentType: 'application/octet-stream',
    timeoutMs: 30_000,
    ...(label === undefined ? {} : { label }),
  });
}

export function jobIdOf(res: HttpResult): string | null {
  const id = (res.body as { job_id?: unknown } | undefined)?.job_id;
  return typeof id === 'string' && id.length > 0 ? id : null;
}

export async function getJob(api: BoundClient, id: string): Promise<{ res: HttpResult; job: JobDto }> {
  const res = await api.get(`/v1/jobs/${encodeURIComponent(id)}`, { label: `poll job ${id}` });
  return { res, job: res.body ?? {} };
}

/**
 * Polls GET /v1/jobs/{id} until `done(job)` holds or the time runs out;
 * returns the last answer, its state and status, and every state read (for
 * skipWhenStillPending of harness/polling.ts: a budget that ran out while the
 * job is still in a state allowed on the way is no violation, decision 081).
 * Polls at most every `everyMs`.
 */
export async function pollJob(
  api: BoundClient,
  id: string,
  done: (job: JobDto) => boolean,
  timeoutMs = 60_000,
  everyMs = 250,
): Promise<{ res: HttpResult; job: JobDto; reached: boolean; state: unknown; status: number; seen: unknown[]; budgetMs: number }> {
  const until = Date.now() + timeoutMs;
  const seen: unknown[] = [];
  for (;;) {
    const { res, job } = await getJob(api, id);
    if (seen.at(-1) !== job.state) seen.push(job.state);
    const end = { res, job, state: job.state, status: res.status, seen, budgetMs: timeoutMs };
    if (res.status === 200 && done(job)) return { ...end, reached: true };
    if (Date.now() > until || res.status === 0) return { ...end, reached: false };
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const isTerminal = (job: JobDto): boolean => (JOB_TERMINAL_STATES as readonly unknown[]).includes(job.state);

/** Imports the speech WAV (POST only: the caller polls the job); SKIPPED when the shipped file cannot be read. */
export async function importSpeech(
  ctx: FixtureHost,
  api: BoundClient,
  query: Record<string, string | undefined> = { filename: 'conformance.wav' },
): Promise<{ res: HttpResult; jobId: string | null }> {
  let bytes: Uint8Array;
  try {
    bytes = await speechWav();
  } catch (err) {
    return ctx.skip(`cannot read the shipped speech WAV (conformance/audio/tiny.wav): ${(err as Error).message}`);
  }
  const res = await importBytes(api, bytes, query, 'import a short WAV with speech (conformance/audio/tiny.wav)');
  return { res, jobId: jobIdOf(res) };
}

// ------------------------------------------------------------------ stalled uploads

export interface StalledUpload {
  /** Resolves with the answer, or with status 0 when none came before `close`. */
  answer: Promise<{ status: number; headers: Record<string, string>; body: string }>;
  /** Status now (0 while no answer came). */
  status(): number;
  exchange: Exchange;
  close(): void;
}

/**
 * Starts POST /v1/jobs/import announcing `contentLength` bytes and sending
 * only `sendBytes` of them: the upload stays in flight until close().
 */
export function stalledImport(
  ctx: FixtureHost,
  token: string,
  contentLength: number,
  sendBytes: number,
  filename = 'big.wav',
  label?: string,
): StalledUpload {
  const url = new URL(joinUrl(ctx.env.baseUrl, '/v1/jobs/import', { filename }));
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/octet-stream',
    'content-length': String(contentLength),
  };
  const shownHeaders = ctx.env.secrets.redactHeaders(headers);
  const started = Date.now();
  let status = 0;
  let req: ClientRequest | null = null;
  const exchange = ctx.sink({
    channel: 'api',
    label: label ?? `stalled upload: Content-Length ${contentLength}, ${sendBytes} bytes sent`,
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    request: { method: 'POST', url: url.toString(), headers: { ...headers }, bodyBytes: sendBytes },
    // The same bytes ('R's) from a pipe; curl then waits for the announced rest as the suite does.
    curl: `head -c ${sendBytes} /dev/zero | tr '\\0' R | ${curlLine({ method: 'POST', url: url.toString(), headers: shownHeaders })} --data-binary @-  # announce ${contentLength} bytes, send ${sendBytes}, keep the connection open`,
  });
  const answer = new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve) => {
    req = httpRequest(url, { method: 'POST', headers, agent: false }, (res) => {
      status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const finish = (): void => {
        const body = Buffer.concat(chunks).toString('utf8');
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) h[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
        exchange.durationMs = Date.now() - started;
        exchange.response = { status, statusText: res.statusMessage ?? '', headers: h, body, bodyBytes: Buffer.byteLength(body) };
        resolve({ status, headers: h, body });
      };
      res.on('end', finish);
      res.on('error', finish);
      res.on('close', finish);
    });
    req.on('error', (err) => {
      if (exchange.response === undefined) exchange.error = err.message;
      resolve({ status, headers: {}, body: '' });
    });
    req.write(Buffer.alloc(sendBytes, 0x52));
  });
  return {
    answer,
    status: () => status,
    exchange,
    close: () => {
      req?.destroy();
    },
  };
}

/** Waits up to `ms` for an answer: the answer, or null when the upload is still in flight. */
export async function answerWithin(
  u: StalledUpload,
  ms: number,
): Promise<{ status: number; headers: Record<string, string>; body: string } | null> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
  const a = await Promise.race([u.answer, t]);
  clearTimeout(timer);
  return a;
}

export function errorCodeOf(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
