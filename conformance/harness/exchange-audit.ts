/**
 * Every API answer of a run, kept with its unredacted body so the checks that
 * hold the target to its own manifest (openapi/manifest-exchanges,
 * openapi/manifest-deleted-stays-gone) can look at all of them once the other
 * checks are done. Redaction applies to what reports show; a schema is
 * validated against the bytes the target sent.
 */
import type { Exchange } from './exchange.ts';
import type { HttpResult } from './http.ts';

/** Bodies above this are not kept (their status still is): a schema check of a multi-megabyte body is not worth its memory. */
const AUDIT_BODY_LIMIT = 512 * 1024;
/** At most this many answers are kept per run; later ones are counted. */
const AUDIT_MAX_ENTRIES = 50_000;

export interface AuditedExchange {
  /** The check that made the request. */
  checkId: string;
  method: string;
  /** The request path relative to the base URL (a base URL's own path prefix removed), without the query. */
  path: string;
  status: number;
  contentType: string | null;
  /** The raw body, or null when it was above AUDIT_BODY_LIMIT. */
  text: string | null;
  /** The record as reported (redacted), to copy into the auditing check's report. */
  exchange: Exchange;
  /** Milliseconds since the audit began: the order of the run. */
  at: number;
}

export class ExchangeAudit {
  readonly entries: AuditedExchange[] = [];
  omitted = 0;
  readonly #basePath: string;
  readonly #started = Date.now();

  constructor(baseUrl: string) {
    let base: string;
    try {
      base = new URL(baseUrl).pathname.replace(/\/+$/, '');
    } catch {
      base = '';
    }
    this.#basePath = base;
  }

  /** The path of a URL relative to the base URL, or null when the URL is not under it. */
  relativePath(url: string): string | null {
    let pathname: string;
    try {
      pathname = new URL(url).pathname;
    } catch {
      return null;
    }
    if (this.#basePath === '') return pathname;
    if (pathname !== this.#basePath && !pathname.startsWith(`${this.#basePath}/`)) return null;
    return pathname.slice(this.#basePath.length) || '/';
  }

  add(checkId: string, method: string, url: string, result: HttpResult): void {
    if (result.status === 0) return; // no HTTP answer: nothing the manifest describes
    const path = this.relativePath(url);
    if (path === null) return;
    if (this.entries.length >= AUDIT_MAX_ENTRIES) {
      this.omitted += 1;
      return;
    }
    this.entries.push({
      checkId,
      method: method.toUpperCase(),
      path,
      status: result.status,
      contentType: result.headers.get('content-type'),
      text: result.text.length > AUDIT_BODY_LIMIT ? null : result.text,
      exchange: result.exchange,
      at: Date.now() - this.#started,
    });
  }
}
