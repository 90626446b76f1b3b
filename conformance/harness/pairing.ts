/** The pairing request's answer does not name its id field (a gap): find it. */
import type { HttpResult } from './http.ts';

/** The path to poll: from a poll/status URL field, or from an id field. */
export function pollPath(res: HttpResult): string | null {
  const body = res.body as Record<string, unknown> | undefined;
  if (body === undefined || body === null || typeof body !== 'object') return null;
  for (const key of ['poll_url', 'status_url', 'url', 'href']) {
    const v = body[key];
    if (typeof v === 'string' && /\/v1\/pair\/[^/]+$/.test(v)) return new URL(v, 'http://x').pathname;
  }
  for (const key of ['id', 'pairing_id', 'request_id', 'pair_id', 'code']) {
    const v = body[key];
    if (typeof v === 'string' && v.length > 0) return `/v1/pair/${encodeURIComponent(v)}`;
  }
  const location = res.headers.get('location');
  if (location !== null && /\/v1\/pair\/[^/]+$/.test(location)) return new URL(location, 'http://x').pathname;
  return null;
}
