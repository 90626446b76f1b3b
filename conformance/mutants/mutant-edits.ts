/**
 * The edits mutants are written with: match a request, edit a JSON answer,
 * rewrite an error, answer an SSE event, route webhook deliveries through a
 * relay. Shared by the catalog files (catalog*.ts).
 */
import type { Mutant, ProxyRequest, ProxyResponse } from './proxy.ts';
import { errorAnswer, jsonOf, withJson } from './proxy.ts';
import type { Relay } from './relay.ts';

export type Json = Record<string, unknown>;

export const path = (req: ProxyRequest): string => req.url.pathname;
export const isMeeting = (req: ProxyRequest): boolean => /^\/v1\/meetings\/[^/]+$/.test(path(req));

/** Edits the JSON body of 2xx answers on matching requests. */
export function editJson(match: (req: ProxyRequest) => boolean, edit: (body: Json) => unknown): Mutant['response'] {
  return (req, res) => {
    if (!match(req) || res.status < 200 || res.status >= 300) return res;
    const body = jsonOf(res);
    if (body === null || typeof body !== 'object') return res;
    return withJson(res, edit(body as Json));
  };
}

/** Rewrites error answers: (status, code) → another status and code. */
export function rewriteError(from: { status: number; code: string }, to: { status: number; code: string }): Mutant['response'] {
  return (_req, res) => {
    const code = (jsonOf(res) as { error?: { code?: string } } | undefined)?.error?.code;
    return res.status === from.status && code === from.code ? errorAnswer(to.status, to.code) : res;
  };
}

export function renameKeys(value: unknown, map: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, map));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [map[k] ?? k, renameKeys(v, map)]));
  }
  return value;
}

export function openapiEdit(edit: (doc: { openapi?: string; paths: Record<string, Record<string, Json>> }) => void): Mutant['response'] {
  return editJson(
    (req) => path(req) === '/openapi.json',
    (doc) => {
      edit(doc as { openapi?: string; paths: Record<string, Record<string, Json>> });
      return doc;
    },
  );
}

export const pass = (req: ProxyRequest): ProxyRequest => req;

/** The hooks of a mutant that sends webhook deliveries through a relay (relay.ts). */
export function relayed(relay: Relay): Pick<Mutant, 'request' | 'response'> {
  return { request: (req, tools) => relay.request(req, tools), response: (req, res) => relay.response(req, res) };
}

export function sseAnswer(event: string, data: unknown): ProxyResponse {
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: Buffer.from(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
  };
}
