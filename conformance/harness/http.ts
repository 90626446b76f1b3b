/**
 * The HTTP client of the suite: fetch with a timeout on every request, and a
 * record of every exchange (request, response, timing, curl line) for the
 * reports. It never throws on an HTTP status or a transport failure: a
 * refused connection is an answer the checks grade (status 0, `error` set).
 */
import { curlLine, omitsBody } from './curl.ts';
import type { CurlInput } from './curl.ts';
import type { Channel, Exchange, RecordedRequest, RecordedResponse } from './exchange.ts';
import { cut } from './exchange.ts';
import type { Secrets } from './secrets.ts';
import { USER_AGENT } from '../version.ts';

const DEFAULT_TIMEOUT_MS = 15_000;

export type Query = Record<string, string | number | boolean | undefined | null> | ReadonlyArray<readonly [string, string]>;

export interface RequestOptions {
  query?: Query;
  /** Bearer token; null or omitted: no Authorization header. */
  token?: string | null;
  /** A raw Authorization header value (wins over token), e.g. 'Basic abc'. */
  authorization?: string;
  headers?: Record<string, string>;
  /** A JSON body, sent with Content-Type application/json unless contentType says otherwise. */
  json?: unknown;
  /** A raw body. */
  body?: string | Uint8Array;
  contentType?: string;
  timeoutMs?: number;
  label?: string;
  /**
   * Stop reading the body after this many milliseconds (for routes that may
   * answer with an open stream); what arrived by then is kept.
   */
  readBodyMs?: number;
  /**
   * A 200 text/event-stream answer is not read at all: for a probe of the
   * gates (auth, scopes) its status and headers are the whole verdict, and
   * reading would wait for the stream's own timeout.
   */
  skipEventStream?: boolean;
}

/**
 * Receives every exchange a client makes; with the request body's bytes when
 * its curl line leaves them out (a check context keeps them for a failure's body file).
 */
export type ExchangeSink = (exchange: Omit<Exchange, 'seq'>, omittedBody?: Uint8Array) => Exchange;

export class HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly bytes: number;
  /** Transport failure (no HTTP answer): refused, reset, timeout. */
  readonly error: string | undefined;
  readonly exchange: Exchange;
  #json: { value: unknown; error?: string } | undefined;

  constructor(init: { status: number; headers: Headers; text: string; bytes: number; error?: string; exchange: Exchange }) {
    this.status = init.status;
    this.headers = init.headers;
    this.text = init.text;
    this.bytes = init.bytes;
    this.error = init.error;
    this.exchange = init.exchange;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The media type without parameters, lower case ('' when absent). */
  get mediaType(): string {
    return (this.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  }

  /** The parsed JSON body, or undefined when the body is not JSON. */
  get body(): unknown {
    return this.#parse().value;
  }

  /** Why the body is not JSON, or undefined when it is. */
  get jsonError(): string | undefined {
    return this.#parse().error;
  }

  #parse(): { value: unknown; error?: string } {
    if (this.#json === undefined) {
      if (this.text.length === 0) this.#json = { value: undefined, error: 'empty body' };
      else {
        try {
          this.#json = { value: JSON.parse(this.text) as unknown };
        } catch (err) {
          this.#json = { value: undefined, error: `not JSON: ${(err as Error).message}` };
        }
      }
    }
    return this.#json;
  }

  /** The error code of an error envelope, if the body is one. */
  get errorCode(): string | undefined {
    const b = this.body as { error?: { code?: unknown } } | undefined;
    return typeof b?.error?.code === 'string' ? b.error.code : undefined;
  }

  /** One line for "Actual:": status, code and the start of the body. */
  describe(max = 300): string {
    if (this.status === 0) return `no HTTP response (${this.error ?? 'unknown transport error'})`;
    const ct = this.headers.get('content-type');
    const body = this.text.length > max ? `${this.text.slice(0, max)}…` : this.text;
    return `${this.status}${ct === null ? '' : ` (${ct})`} ${body.replace(/\s+/g, ' ').trim()}`.trim();
  }
}

export interface HttpClientOptions {
  baseUrl: string;
  channel: Channel;
  secrets: Secrets;
  sink: () => ExchangeSink;
  defaultTimeoutMs?: number;
  /** Sees every answer with its unredacted body (the run's manifest audit: harness/exchange-audit.ts; the run's ledger). */
  observe?: (result: HttpResult, method: string, url: string) => void;
  /** A reason to send nothing more (the run was interrupted: harness/ledger.ts), or undefined. */
  stopped?: () => string | undefined;
}

/** Joins a base URL (which may carry a path prefix) and an absolute path with its query. */
export function joinUrl(baseUrl: string, path: string, query?: Query): string {
  const base = baseUrl.replace(/\/+$/, '');
  let url = `${base}${path.startsWith('/') ? '' : '/'}${path}`;
  if (query !== undefined) {
    const entries: ReadonlyArray<readonly [string, string]> = Array.isArray(query)
      ? (query as ReadonlyArray<readonly [string, string]>)
      : Object.entries(query as Record<string, unknown>)
          .filter(([, v]) => v !== undefined && v !== null)
          .map(([k, v]) => [k, String(v)] as const);
    if (entries.length > 0) {
      const qs = entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
      url += (url.includes('?') ? '&' : '?') + qs;
    }
  }
  return url;
}

function transportError(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'timeout';
  const cause = e.cause;
  if (cause !== undefined) return [cause.code, cause.message].filter(Boolean).join(': ') || String(e.message);
  return e.message ?? String(err);
}

function isStaleSocket(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } }).cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'UND_ERR_CLOSED' || code === 'EPIPE';
}

export function headersRecord(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

export class HttpClient {
  readonly baseUrl: string;
  readonly channel: Channel;
  readonly #secrets: Secrets;
  readonly #sink: () => ExchangeSink;
  readonly #timeout: number;
  readonly #observe: HttpClientOptions['observe'];
  readonly #stopped: HttpClientOptions['stopped'];

  constructor(options: HttpClientOptions) {
    this.baseUrl = options.baseUrl;
    this.channel = options.channel;
    this.#secrets = options.secrets;
    this.#sink = options.sink;
    this.#timeout = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#observe = options.observe;
    this.#stopped = options.stopped;
  }

  /** The default per-request timeout of this client. */
  get timeoutMs(): number {
    return this.#timeout;
  }

  url(path: string, query?: Query): string {
    return joinUrl(this.baseUrl, path, query);
  }

  get(path: string, options: RequestOptions = {}): Promise<HttpResult> {
    return this.request('GET', path, options);
  }

  post(path: string, options: RequestOptions = {}): Promise<HttpResult> {
    return this.request('POST', path, options);
  }

  put(path: string, options: RequestOptions = {}): Promise<HttpResult> {
    return this.request('PUT', path, options);
  }

  patch(path: string, options: RequestOptions = {}): Promise<HttpResult> {
    return this.request('PATCH', path, options);
  }

  delete(path: string, options: RequestOptions = {}): Promise<HttpResult> {
    return this.request('DELETE', path, options);
  }

  /**
   * Builds the request headers and body, and the record of the request. The
   * record keeps the bytes as sent (checks may read it); only the curl line,
   * which is output alone, is redacted here (harness/secrets.ts).
   */
  prepare(
    method: string,
    path: string,
    options: RequestOptions,
  ): {
    url: string;
    init: RequestInit;
    recorded: RecordedRequest;
    curlHeaders: Record<string, string>;
    curlBody?: CurlInput['body'];
  } {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = {};
    const authorization =
      options.authorization ?? (options.token === undefined || options.token === null ? undefined : `Bearer ${options.token}`);
    if (authorization !== undefined) headers['authorization'] = authorization;
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.body !== undefined) {
      body = options.body;
      if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    } else if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
    // The curl line repeats what matters to the target, not the suite's User-Agent.
    const curlHeaders = this.#secrets.redactHeaders(headers);
    headers['user-agent'] ??= USER_AGENT;

    const recorded: RecordedRequest = { method, url, headers: { ...headers } };
    let curlBody: CurlInput['body'];
    if (typeof body === 'string') {
      const shown = cut(body);
      recorded.body = shown.text;
      recorded.bodyBytes = Buffer.byteLength(body);
      // A text cut for the report is not what was sent: its curl line takes the whole text as bytes.
      curlBody = shown.truncated ? { bytes: Buffer.from(this.#secrets.redact(body)) } : { text: this.#secrets.redact(recorded.body) };
    } else if (body !== undefined) {
      recorded.body = `<${body.byteLength} bytes of binary data>`;
      recorded.bodyBytes = body.byteLength;
      curlBody = { bytes: body };
    }
    const init: RequestInit = { method, headers, redirect: 'manual' };
    if (body !== undefined) init.body = body;
    return { url, init, recorded, curlHeaders, ...(curlBody === undefined ? {} : { curlBody }) };
  }

  /** Records an exchange made outside request() (the SSE reader uses it). */
  record(exchange: Omit<Exchange, 'seq'>): Exchange {
    return this.#sink()(exchange);
  }

  /** For output only (curl lines): never for what a check reads. */
  redact(text: string): string {
    return this.#secrets.redact(text);
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> {
    const stopped = this.#stopped?.();
    if (stopped !== undefined) throw new Error(stopped);
    const { url, init, recorded, curlHeaders, curlBody } = this.prepare(method, path, options);
    const timeoutMs = options.timeoutMs ?? this.#timeout;
    const started = Date.now();
    const notes: string[] = [];
    let status = 0;
    let statusText = '';
    let headers = new Headers();
    let text = '';
    let bytes = 0;
    let error: string | undefined;
    let truncated = false;
    for (let attempt = 1; attempt <= 2; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new DOMException('timeout', 'TimeoutError')), timeoutMs);
      try {
        const res = await fetch(url, { ...init, signal: controller.signal });
        status = res.status;
        statusText = res.statusText;
        headers = res.headers;
        if (
          options.skipEventStream === true &&
          res.status === 200 &&
          (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
        ) {
          await res.body?.cancel();
          truncated = true;
          notes.push('did not read the event stream: its status and headers were all this probe needed');
          error = undefined;
          break;
        }
        const read = await readBody(res, options.readBodyMs);
        text = read.text;
        bytes = read.bytes;
        if (read.stopped) {
          truncated = true;
          notes.push(`stopped reading the body after ${options.readBodyMs} ms (the stream was still open)`);
        }
        error = undefined;
        break;
      } catch (err) {
        error = controller.signal.aborted ? `timeout: no complete response within ${timeoutMs} ms` : transportError(err);
        // A keep-alive connection the target closed (e.g. on a Control API restart)
        // can fail the next request before it is sent: try once more on a new one.
        if (attempt === 1 && !controller.signal.aborted && isStaleSocket(err) && status === 0) {
          notes.push(`retried once after a transport error (${error}) on a reused connection`);
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        break;
      } finally {
        clearTimeout(timer);
      }
    }
    const durationMs = Date.now() - started;
    let response: RecordedResponse | undefined;
    if (status !== 0) {
      const body = cut(text);
      response = { status, statusText, headers: headersRecord(headers), body: body.text, bodyBytes: bytes };
      if (body.truncated || truncated) response.truncated = true;
    }
    const partial: Omit<Exchange, 'seq'> = {
      channel: this.channel,
      ...(options.label === undefined ? {} : { label: options.label }),
      startedAt: new Date(started).toISOString(),
      durationMs,
      request: recorded,
      ...(response === undefined ? {} : { response }),
      ...(error === undefined ? {} : { error }),
      curl: curlLine({
        method,
        url: this.#secrets.redact(url),
        headers: curlHeaders,
        ...(curlBody === undefined ? {} : { body: curlBody }),
      }),
      ...(notes.length === 0 ? {} : { notes }),
    };
    const answer = (exchange: Exchange): HttpResult =>
      new HttpResult({ status, headers, text, bytes, ...(error === undefined ? {} : { error }), exchange });
    let exchange: Exchange;
    try {
      exchange = this.#sink()(partial, curlBody !== undefined && 'bytes' in curlBody && omitsBody(curlBody) ? curlBody.bytes : undefined);
    } catch (err) {
      // The check ran out of time (its sink is closed), but what this request created is still the run's to remove.
      if (!truncated) this.#observe?.(answer({ seq: 0, ...partial }), method, url);
      throw err;
    }
    const result = answer(exchange);
    if (!truncated) this.#observe?.(result, method, url);
    return result;
  }
}

async function readBody(res: Response, readBodyMs: number | undefined): Promise<{ text: string; bytes: number; stopped: boolean }> {
  if (res.body === null) return { text: '', bytes: 0, stopped: false };
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let stopped = false;
  const deadline = readBodyMs === undefined ? Infinity : Date.now() + readBodyMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      stopped = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      reader.read(),
      new Promise<'deadline'>((resolve) => {
        if (Number.isFinite(remaining)) timer = setTimeout(() => resolve('deadline'), remaining);
      }),
    ]);
    if (timer !== undefined) clearTimeout(timer);
    if (next === 'deadline') {
      stopped = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    if (next.done) break;
    chunks.push(next.value);
    bytes += next.value.byteLength;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), bytes, stopped };
}
