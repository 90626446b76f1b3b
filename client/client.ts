/**
 * A small typed client of the Meeting Automation Service, over the types that
 * openapi-typescript generates from docs/openapi.json (openapi-types.ts) and
 * the operationId → route table generated beside them (routes.ts).
 *
 *   const mas = new MasClient({ baseUrl: 'http://127.0.0.1:8420', token });
 *   const r = await mas.call('getJob', { path: { id } });
 *   if (r.ok) r.data.state; else r.error.code; // 'not_found' | 'unauthorized' | …
 *
 * Every answer of the API comes back as a value: `{ok: true, data}` for a
 * 2xx, `{ok: false, error}` with the error envelope (its code is the sub-code
 * where one applies, typed per operation and status) for anything else. Only
 * a failure to talk to the service at all (refused connection, TLS, an
 * answer that is not the API's) throws, as a TransportError.
 *
 * Beyond plain calls: an import uploaded from a file or stream with progress
 * callbacks (importAudio), a wait stream followed to its one event (wait),
 * and webhook signature verification (verifyWebhookDelivery).
 *
 * It speaks node:http/https directly rather than fetch: uploads count the
 * bytes the socket accepts, and the LAN listener's self-signed certificate
 * needs a per-client CA or --insecure (docs/decisions/047-typed-client.md).
 */
import http from 'node:http';
import https from 'node:https';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import type { components, operations } from './openapi-types.ts';
import { ROUTES, type OperationId } from './routes.ts';

export type { OperationId } from './routes.ts';
export type Schemas = components['schemas'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];

type Op<O extends OperationId> = operations[O];
type Field<K extends string, T> = [T] extends [never] ? { [P in K]?: never } : undefined extends T ? { [P in K]?: T } : { [P in K]: T };
type JsonBody<O extends OperationId> = [NonNullable<Op<O>['requestBody']>] extends [never]
  ? never
  : NonNullable<Op<O>['requestBody']> extends { content: { 'application/json': infer B } }
    ? undefined extends Op<O>['requestBody']
      ? B | undefined
      : B
    : never;

/** The arguments of one operation: its path and query parameters and its JSON body, each typed from the document. */
export type CallArgs<O extends OperationId> = Field<'path', Op<O>['parameters']['path']> &
  Field<'query', Op<O>['parameters']['query']> &
  Field<'body', JsonBody<O>> & { signal?: AbortSignal };

type Responses<O extends OperationId> = Op<O>['responses'];
type SuccessStatus<O extends OperationId> = Extract<keyof Responses<O>, 200 | 201 | 202 | 204>;
type ErrorStatus<O extends OperationId> = Exclude<keyof Responses<O>, SuccessStatus<O>>;
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : undefined;

/** The body of a success: the JSON DTO, or the text of a rendered export. */
export type Data<O extends OperationId> = ContentOf<Responses<O>[SuccessStatus<O>]>;
/** The error of a failure: the envelope's `error` with `code` narrowed to the codes the operation documents. */
export type ApiErrorOf<O extends OperationId> =
  NonNullable<ContentOf<Responses<O>[ErrorStatus<O>]>> extends infer E ? (E extends { error: infer X } ? X : never) : never;

export type ApiResult<O extends OperationId> =
  | { ok: true; status: number; data: Data<O>; headers: http.IncomingHttpHeaders }
  | { ok: false; status: number; error: ApiErrorOf<O>; headers: http.IncomingHttpHeaders };

/** The service could not be reached, or answered something that is not the API (a proxy page, a cut stream). */
export class TransportError extends Error {
  override readonly name = 'TransportError';
}

export interface MasClientOptions {
  /** http://127.0.0.1:8420 (loopback) or https://host:8421 (LAN). */
  baseUrl: string;
  /** An API token; pairing and /health need none. */
  token?: string;
  /** PEM of the CA (or the self-signed certificate itself) the LAN listener's certificate must chain to. */
  ca?: string | Buffer;
  /** Accept any certificate: for a first look at a LAN listener whose certificate you have not saved. */
  insecure?: boolean;
  userAgent?: string;
}

/** Progress of an upload: bytes the socket accepted so far, of total when known. */
export interface UploadProgress {
  sent: number;
  total: number | null;
}

export interface ImportOptions {
  /** Only its extension is read by the service; the basename of a file path by default. */
  filename?: string;
  title?: string;
  language?: string;
  model?: string;
  provider?: string;
  /** The byte count of a stream source, when known (sent as Content-Length). */
  size?: number;
  onProgress?: (p: UploadProgress) => void;
  /** Aborting stops the upload and closes the connection; the promise rejects with an AbortError. */
  signal?: AbortSignal;
}

/** The events a wait stream can end with, and their data. */
export interface WaitEvents {
  waitJob:
    | { event: 'job.completed' | 'job.failed' | 'job.cancelled'; data: Schemas['JobDto'] }
    | { event: 'timeout'; data: { job_id: string; timeout_seconds: number } };
  waitRecording:
    | { event: 'recording.started' | 'recording.stopped'; data: Schemas['RecordingStateDto'] }
    | { event: 'timeout'; data: { until: 'started' | 'stopped'; timeout_seconds: number; state: string } };
  waitSummaryOperation:
    | { event: 'summary.completed' | 'summary.failed'; data: Schemas['OperationStatus'] }
    | { event: 'timeout'; data: { operation_id: string; timeout_ms: number } };
}
export type WaitOperation = keyof WaitEvents;

/** The status part of a result for a wait: the one event, or the API's error. */
export type WaitResult<O extends WaitOperation> =
  | { ok: true; status: number; data: WaitEvents[O]; headers: http.IncomingHttpHeaders }
  | { ok: false; status: number; error: ApiErrorOf<O>; headers: http.IncomingHttpHeaders };

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  stream: http.IncomingMessage;
}

export class MasClient {
  readonly baseUrl: URL;
  readonly #token: string | undefined;
  readonly #agent: http.Agent;
  readonly #userAgent: string;

  constructor(opts: MasClientOptions) {
    this.baseUrl = new URL(opts.baseUrl.endsWith('/') ? opts.baseUrl : `${opts.baseUrl}/`);
    if (this.baseUrl.protocol !== 'http:' && this.baseUrl.protocol !== 'https:')
      throw new TypeError(`the base URL must be http:// or https://, got ${opts.baseUrl}`);
    this.#token = opts.token;
    this.#userAgent = opts.userAgent ?? 'mas-client';
    this.#agent =
      this.baseUrl.protocol === 'https:'
        ? new https.Agent({
            keepAlive: false,
            rejectUnauthorized: opts.insecure !== true,
            ...(opts.ca !== undefined ? { ca: opts.ca } : {}),
          })
        : new http.Agent({ keepAlive: false });
  }

  /** The URL of an operation with its path and query parameters filled in. */
  url(operationId: OperationId, args: { path?: object; query?: object } = {}): URL {
    const template: string = ROUTES[operationId].path;
    const params = (args.path ?? {}) as Record<string, unknown>;
    const filled = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined || value === null || scalarText(value) === '')
        throw new TypeError(`${operationId}: path parameter ${name} is missing`);
      return encodeURIComponent(scalarText(value));
    });
    const url = new URL(filled.slice(1), this.baseUrl);
    for (const [k, v] of Object.entries((args.query ?? {}) as Record<string, unknown>)) {
      if (v !== undefined && v !== null) url.searchParams.set(k, scalarText(v));
    }
    return url;
  }

  /** Calls one operation by its operationId. */
  async call<O extends OperationId>(
    operationId: O,
    ...rest: object extends CallArgs<O> ? [CallArgs<O>?] : [CallArgs<O>]
  ): Promise<ApiResult<O>> {
    const args = (rest[0] ?? {}) as { path?: object; query?: object; body?: unknown; signal?: AbortSignal };
    const body = args.body === undefined ? undefined : Buffer.from(JSON.stringify(args.body));
    const res = await this.#send(
      ROUTES[operationId].method,
      this.url(operationId, args),
      {
        ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } : {}),
      },
      body,
      args.signal,
    );
    return (await readResult(res)) as ApiResult<O>;
  }

  /**
   * POST /v1/jobs/import: uploads a file (by path) or a stream, reporting
   * progress as the socket accepts the bytes.
   */
  async importAudio(source: string | Readable | AsyncIterable<Uint8Array>, opts: ImportOptions = {}): Promise<ApiResult<'importAudio'>> {
    let total: number | null = opts.size ?? null;
    let filename = opts.filename;
    let stream: AsyncIterable<Uint8Array>;
    if (typeof source === 'string') {
      total = statSync(source).size;
      filename ??= path.basename(source);
      stream = createReadStream(source, { highWaterMark: 256 * 1024 });
    } else {
      stream = source;
    }
    if (filename === undefined) throw new TypeError('importAudio: a stream source needs opts.filename (its extension names the format)');
    const query = { filename, title: opts.title, language: opts.language, model: opts.model, provider: opts.provider };
    const res = await this.#send(
      'POST',
      this.url('importAudio', { query }),
      { 'Content-Type': 'application/octet-stream', ...(total !== null ? { 'Content-Length': String(total) } : {}) },
      { stream, total, ...(opts.onProgress !== undefined ? { onProgress: opts.onProgress } : {}) },
      opts.signal,
    );
    return (await readResult(res)) as ApiResult<'importAudio'>;
  }

  /**
   * Opens a wait stream and resolves with its one event (or the timeout
   * event, which is not an error). An error status before the stream opens
   * comes back as `{ok: false}` like any call.
   */
  async wait<O extends WaitOperation>(
    operationId: O,
    ...rest: object extends CallArgs<O> ? [CallArgs<O>?] : [CallArgs<O>]
  ): Promise<WaitResult<O>> {
    const args = (rest[0] ?? {}) as { path?: object; query?: object; signal?: AbortSignal };
    const res = await this.#send('GET', this.url(operationId, args), { Accept: 'text/event-stream' }, undefined, args.signal);
    const type = res.headers['content-type'] ?? '';
    if (res.status !== 200 || !type.startsWith('text/event-stream')) return (await readResult(res)) as WaitResult<O>;
    const event = await firstEvent(res.stream);
    return { ok: true, status: res.status, headers: res.headers, data: event as WaitEvents[O] };
  }

  async #send(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: Buffer | { stream: AsyncIterable<Uint8Array>; total: number | null; onProgress?: (p: UploadProgress) => void } | undefined,
    signal: AbortSignal | undefined,
  ): Promise<RawResponse> {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method,
      agent: this.#agent,
      headers: {
        'User-Agent': this.#userAgent,
        ...(this.#token !== undefined ? { Authorization: `Bearer ${this.#token}` } : {}),
        ...headers,
      },
      ...(signal !== undefined ? { signal } : {}),
    });
    let responded = false;
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      req.once('response', (res) => {
        responded = true;
        resolve(res);
      });
      req.once('error', (err) => reject(isAbort(err) ? err : new TransportError(describeNetworkError(err, url))));
    });
    if (body === undefined) req.end();
    else if (Buffer.isBuffer(body)) req.end(body);
    else void pump(req, body, () => responded);
    const res = await response;
    return { status: res.statusCode ?? 0, headers: res.headers, stream: res };
  }
}

/** Writes an upload body, honouring backpressure, and stops once the service has answered (an early 413 or 429). */
async function pump(
  req: http.ClientRequest,
  body: { stream: AsyncIterable<Uint8Array>; total: number | null; onProgress?: (p: UploadProgress) => void },
  responded: () => boolean,
): Promise<void> {
  let sent = 0;
  try {
    body.onProgress?.({ sent, total: body.total });
    for await (const chunk of body.stream) {
      if (responded() || req.destroyed) break;
      sent += chunk.byteLength;
      if (!req.write(chunk)) await drainedOrClosed(req);
      body.onProgress?.({ sent, total: body.total });
    }
    if (!req.destroyed) req.end();
  } catch (err) {
    // A failed read of the source: the request cannot be completed honestly.
    req.destroy(err as Error);
  } finally {
    const s = body.stream as { destroy?: () => void };
    if (typeof s.destroy === 'function' && (responded() || req.destroyed)) s.destroy();
  }
}

/** Resolves when the socket takes more bytes, or the request is gone; leaves no listener behind. */
function drainedOrClosed(req: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}

async function readBody(stream: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new TransportError(`the answer was cut off: ${(err as Error).message}`);
  }
  return Buffer.concat(chunks);
}

/** Turns a response into a result: JSON or text data on 2xx, the envelope's error otherwise. */
async function readResult(
  res: RawResponse,
): Promise<{ ok: boolean; status: number; headers: http.IncomingHttpHeaders; data?: unknown; error?: unknown }> {
  const raw = await readBody(res.stream);
  const type = res.headers['content-type'] ?? '';
  const isJson = type.startsWith('application/json');
  let parsed: unknown = undefined;
  if (isJson && raw.length > 0) {
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new TransportError(`HTTP ${res.status}: the answer is not valid JSON`);
    }
  }
  if (res.status >= 200 && res.status < 300) {
    return { ok: true, status: res.status, headers: res.headers, data: isJson ? parsed : raw.toString('utf8') };
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (error === undefined || typeof error.code !== 'string' || typeof error.message !== 'string') {
    throw new TransportError(
      `HTTP ${res.status} without the API's error envelope (is ${res.status === 404 ? 'the base URL' : 'this'} the service?)`,
    );
  }
  return { ok: false, status: res.status, headers: res.headers, error };
}

/** Reads a text/event-stream until its first event; comments (keep-alives) are skipped. */
function firstEvent(stream: http.IncomingMessage): Promise<{ event: string; data: unknown }> {
  return new Promise((resolve, reject) => {
    let done = false;
    const parser = createParser({
      onEvent(message) {
        if (done) return;
        done = true;
        let data: unknown = message.data;
        try {
          data = JSON.parse(message.data);
        } catch {
          // Not JSON: handed over as the text it is.
        }
        resolve({ event: message.event ?? 'message', data });
        stream.destroy();
      },
    });
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => parser.feed(chunk));
    stream.on('end', () => {
      if (!done) reject(new TransportError('the wait stream closed without an event'));
    });
    stream.on('error', (err) => {
      if (!done) reject(isAbort(err) ? err : new TransportError(`the wait stream was cut off: ${err.message}`));
    });
  });
}

function isAbort(err: unknown): boolean {
  return (err as { name?: string }).name === 'AbortError';
}

function describeNetworkError(err: Error, url: URL): string {
  const code = (err as { code?: string }).code;
  if (code === 'ECONNREFUSED') return `nothing is listening at ${url.origin} (is the application running with the Automation API on?)`;
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN' || code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') {
    return `${url.origin} presents a certificate this client does not trust (${code}): pass its certificate with --ca, or --insecure`;
  }
  return `${url.origin}: ${code !== undefined ? `${code} ` : ''}${err.message}`;
}

/** A path or query parameter as text: parameters are scalars; anything else is sent as JSON rather than "[object Object]". */
function scalarText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return value.toString();
    default:
      return JSON.stringify(value);
  }
}
