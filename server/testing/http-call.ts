/**
 * One HTTP call on its own connection, for tests against real listeners (a
 * restart closes the API's connections, so a pooled one would break). The
 * body is parsed as JSON when it is JSON, and kept as text otherwise.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface CallReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function call(
  url: string,
  opts: { method?: string; bearer?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<CallReply> {
  return new Promise((resolve, reject) => {
    // A Buffer goes as raw bytes (an import); anything else as JSON.
    const raw = Buffer.isBuffer(opts.body);
    const payload = opts.body === undefined ? undefined : raw ? (opts.body as Buffer) : JSON.stringify(opts.body);
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.bearer !== undefined) headers.authorization = `Bearer ${opts.bearer}`;
    if (payload !== undefined) {
      headers['content-type'] ??= raw ? 'application/octet-stream' : 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text === '' ? undefined : text;
        try {
          if (text !== '') body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
