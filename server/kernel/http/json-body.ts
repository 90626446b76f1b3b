/**
 * Reads a JSON request body with the checks API.md's error envelope needs:
 * content type, size cap, UTF-8, syntax. Every refusal is an ApiError, so the
 * caller never sees body-parser's HTML or a stack trace.
 *
 * Decisions (docs/decisions/003-request-validation.md): a body on a JSON route
 * must say Content-Type application/json (any +json type and a charset of
 * utf-8 are accepted) → otherwise 400 bad_request; above the cap → 413
 * payload_too_large; invalid UTF-8 or JSON → 400 bad_request.
 *
 * A body that has not arrived whole within the listener's bodyTimeoutMs
 * (docs/decisions/023-slow-clients.md; 30 s by default, so at least ~35 kB/s
 * for a full 1 MiB body) → 400 bad_request and the connection is closed: a
 * body trickled a byte at a time would otherwise keep the request, and its
 * connection, open for ever (node's whole-request timeout is off for imports).
 * 408 is not in API.md's error registry; 400 is what client-error.ts answers
 * for slow headers too.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.ts';
import { requestLimitsOf } from './connection-limits.ts';

const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * Past the cap a refused body is still read and thrown away, up to this many
 * bytes, so a client that sends the whole body before reading the answer gets
 * the 413 and can reuse its connection; beyond it the connection is closed.
 */
const DISCARD_LIMIT = 16 * 1024 * 1024;

/** Returns undefined when the request carries no body at all. */
export async function readJsonBody(req: IncomingMessage, limit = JSON_BODY_LIMIT): Promise<unknown> {
  const declared = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (declared === undefined || declared === '0')) return undefined;
  if (declared !== undefined && Number(declared) > limit) {
    throw tooLarge(req, limit, Number(declared));
  }
  checkContentType(req.headers['content-type']);
  if (req.headers['content-encoding'] !== undefined && req.headers['content-encoding'] !== 'identity') {
    throw new ApiError('bad_request', 'compressed request bodies are not accepted');
  }

  const body = await collect(req, limit, requestLimitsOf(req).bodyTimeoutMs);
  if (body === null) throw tooLarge(req, limit, Infinity);
  if (body.length === 0) return undefined;

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new ApiError('bad_request', 'the request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('bad_request', 'the request body is not valid JSON');
  }
}

/**
 * Reads the body with plain 'data' events (an async iterator would destroy
 * the socket when abandoned). Resolves null as soon as the cap is passed; the
 * rest keeps flowing into nowhere (connection-limits.ts bounds how long).
 * Rejects when the body has not ended within timeoutMs.
 */
function collect(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => {
      chunks.length = 0;
      // Close: the rest of a trickled body is not worth waiting for.
      settle(() =>
        reject(new ApiError('bad_request', `the request body did not arrive within ${seconds(timeoutMs)}`, { Connection: 'close' })),
      );
    }, timeoutMs);
    timer.unref();
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (settled) {
        if (size > DISCARD_LIMIT) req.socket.destroy();
        return;
      }
      if (size > limit) {
        chunks.length = 0;
        settle(() => resolve(null));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle(() => resolve(Buffer.concat(chunks, size))));
    req.on('error', (err) => settle(() => reject(Object.assign(err, { status: 400 }))));
  });
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function tooLarge(req: IncomingMessage, limit: number, declared: number): ApiError {
  const headers: Record<string, string> = {};
  if (declared > DISCARD_LIMIT) {
    // Not worth reading: answer, then let node:http close the connection.
    headers['Connection'] = 'close';
  } else if (req.readableFlowing !== true) {
    req.resume();
  }
  return new ApiError('payload_too_large', `the JSON body is larger than ${limit} bytes`, headers);
}

function checkContentType(header: string | undefined): void {
  if (header === undefined) {
    throw new ApiError('bad_request', 'expected Content-Type application/json, got none');
  }
  const [mediaType = '', ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  const isJson = mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
  if (!isJson) throw new ApiError('bad_request', `expected Content-Type application/json, got ${mediaType || 'an empty type'}`);
  for (const p of params) {
    if (p.startsWith('charset=') && !['utf-8', 'utf8', '"utf-8"'].includes(p.slice(8))) {
      throw new ApiError('bad_request', `expected charset utf-8, got ${p.slice(8)}`);
    }
  }
}
