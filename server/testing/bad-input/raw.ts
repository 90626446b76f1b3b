/** Requests below the HTTP parser for the bad-input test: raw bytes on a fresh socket. */
import assert from 'node:assert/strict';
import type http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';

import { gw, meetingIds, port, refillMeetings, snapshot, tokenSlots } from './gateway.ts';
import { TABLE_PATHS, type PathPart, templatePathArb } from './requests.ts';
import { type Received, checkInvariants } from './exchange.ts';

// ── Requests below the HTTP parser ─────────────────────────────────────────
//
// What node:http's client refuses to send (an unknown method token, raw bytes
// in the request line, broken header lines, contradictory framing) is written
// byte for byte on a fresh socket. Every such request carries its framing
// complete and says Connection: close, so the server owes an answer at once.

interface RawSpec {
  method: string;
  target: PathPart[];
  version: string;
  host: boolean;
  auth: boolean;
  junk: string[];
  body: string;
  framing: 'length' | 'none' | 'chunked' | 'bad-chunked';
}

const RAW_METHODS = [
  'GET',
  'PATCH',
  'PUT',
  'FOO',
  'get',
  'Get',
  'G\u00e9T',
  'GET\u0000',
  'PROPFIND',
  'BREW',
  'GET/',
  'HTTP/1.1',
  'QUERY',
  'PRI',
];
const RAW_TARGET_JUNK = [
  '\u00e9',
  '\u00ff\u00fe',
  '\u0080',
  ' ',
  'a b',
  '\t',
  '\u0001',
  '\u007f',
  '\u0000',
  '"',
  '<script>',
  '{}',
  '|',
  '\\',
  '^`',
];
const RAW_VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.1x', 'HTTP/9.9', 'http/1.1', 'HTTP/1', ''];
const RAW_JUNK_HEADERS = [
  'NoColon',
  'Bad Name: x',
  ' folded: x',
  'X-Folded: a\r\n b',
  `X-Big: ${'a'.repeat(20_000)}`,
  `X-Many: ${'a,'.repeat(4000)}`,
  'Content-Length: -1',
  'Content-Length: abc',
  'Content-Length: 1, 2',
  'Content-Length: 0\r\nContent-Length: 5',
  'Transfer-Encoding: gzip, chunked',
  'Transfer-Encoding: xchunked',
  'Transfer-Encoding: chunked\r\nContent-Length: 3',
  'X-Nul: a\u0000b',
  'X-Del: a\u007fb',
  'X-Latin: caf\u00e9',
  ': empty-name',
  'Authorization: Bearer \u00e9',
  'Host: a\r\nHost: b',
  'Content-Type: application/json; charset=\u00ff',
  'Expect: 100-continue',
  'Upgrade: websocket\r\nConnection: Upgrade',
];

export const rawSpecArb: fc.Arbitrary<RawSpec> = fc.record({
  method: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('GET', 'PATCH', 'PUT') },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_METHODS) },
  ),
  target: fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...TABLE_PATHS).chain(templatePathArb), fc.constantFrom(...RAW_TARGET_JUNK), fc.boolean())
        .map(([parts, junk, inQuery]) => [...parts, inQuery ? `?q=${junk}` : junk]),
    },
    { weight: 2, arbitrary: fc.constantFrom(...TABLE_PATHS).chain(templatePathArb) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<PathPart[]>(
        ['*'],
        [''],
        ['http://127.0.0.1/v1/whoami'],
        ['http://evil.example/v1/meetings/', { meeting: 0 }],
        ['127.0.0.1:80'],
        ['v1/whoami'],
        [`/v1/meetings/${'a'.repeat(20_000)}`],
        [`/v1/search?q=${'b'.repeat(70_000)}`],
      ),
    },
  ),
  version: fc.oneof({ weight: 6, arbitrary: fc.constant('HTTP/1.1') }, { weight: 1, arbitrary: fc.constantFrom(...RAW_VERSIONS) }),
  // Always a Host header: an HTTP/1.1 request without one is a known bug (see the bug tests).
  host: fc.constant(true),
  auth: fc.boolean(),
  junk: fc.oneof(
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    { weight: 3, arbitrary: fc.array(fc.constantFrom(...RAW_JUNK_HEADERS), { minLength: 1, maxLength: 2 }) },
  ),
  body: fc.constantFrom('', '{"title":"raw"}', '{"labels":{"S1":"x"}}', '{', '\u00ff'),
  framing: fc.constantFrom('length' as const, 'none' as const, 'chunked' as const, 'bad-chunked' as const),
});

function materializeRaw(spec: RawSpec): Buffer {
  const target = spec.target.map((p) => (typeof p === 'string' ? p : meetingIds[p.meeting]!)).join('');
  const lines = [`${spec.method} ${target}${spec.version === '' ? '' : ` ${spec.version}`}`];
  if (spec.host) lines.push(`Host: 127.0.0.1:${port}`);
  if (spec.auth) lines.push(`Authorization: Bearer ${tokenSlots[15]!.token}`);
  lines.push('Content-Type: application/json', ...spec.junk, 'Connection: close');
  const body = Buffer.from(spec.body, 'utf8');
  let payload = '';
  if (spec.framing === 'length') lines.push(`Content-Length: ${body.length}`);
  if (spec.framing === 'chunked' || spec.framing === 'bad-chunked') {
    lines.push('Transfer-Encoding: chunked');
    payload = spec.framing === 'chunked' ? `${body.length.toString(16)}\r\n${spec.body}\r\n0\r\n\r\n` : `ZZ\r\n${spec.body}\r\n0\r\n\r\n`;
  } else if (spec.framing === 'length') {
    payload = spec.body;
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(payload, 'utf8')]);
}

/** Writes raw bytes on a fresh socket and reads the first response (the server closes after it). */
export function sendRaw(bytes: Buffer, timeoutMs = 5_000, toPort = port): Promise<Received> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(toPort, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (err: Error | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err !== null) {
        reject(err);
        return;
      }
      const parsed = parseRawResponse(Buffer.concat(chunks));
      if (parsed === null)
        reject(new Error(`no complete HTTP response; got ${JSON.stringify(Buffer.concat(chunks).subarray(0, 200).toString('latin1'))}`));
      else resolve(parsed);
    };
    const timer = setTimeout(
      () => finish(parseRawResponse(Buffer.concat(chunks)) === null ? new Error(`no answer within ${timeoutMs} ms`) : null),
      timeoutMs,
    );
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (parseRawResponse(Buffer.concat(chunks)) !== null) finish(null);
    });
    socket.on('end', () => finish(null));
    socket.on('close', () => finish(null));
    // A reset after the answer is written is the server closing a connection it refused; the answer counts.
    socket.on('error', () => finish(null));
    socket.write(bytes);
  });
}

/** The first final response in the bytes (interim 1xx heads skipped), or null while it is incomplete. */
function parseRawResponse(data: Buffer): Received | null {
  while (/^HTTP\/1\.[01] 1\d\d /.test(data.subarray(0, 16).toString('latin1'))) {
    const interimEnd = data.indexOf('\r\n\r\n');
    if (interimEnd < 0) return null;
    data = data.subarray(interimEnd + 4);
  }
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine = '', ...headerLines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (match === null) return null;
  const headers: http.IncomingHttpHeaders = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(match[1]);
  const rest = data.subarray(headEnd + 4);
  const length = headers['content-length'];
  if (length !== undefined) {
    if (rest.length < Number(length)) return null;
    return { status, headers, body: rest.subarray(0, Number(length)) };
  }
  if (status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const body: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) return null;
      const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
      if (Number.isNaN(size)) return null;
      if (size === 0) return { status, headers, body: Buffer.concat(body) };
      if (rest.length < lineEnd + 2 + size + 2) return null;
      body.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  return null;
}

export async function exerciseRaw(spec: RawSpec): Promise<void> {
  gw.errors.length = 0;
  refillMeetings();
  const bytes = materializeRaw(spec);
  const before = snapshot();
  const shown = JSON.stringify(bytes.subarray(0, 300).toString('latin1')) + (bytes.length > 300 ? `…(${bytes.length} bytes)` : '');
  let res: Received;
  try {
    res = await sendRaw(bytes);
  } catch (err) {
    assert.fail(`(b) no answer to the raw request ${shown}: ${(err as Error).message}`);
  }
  const method = /^[A-Z]+ /.exec(spec.method + ' ')?.[0].trim() ?? spec.method;
  checkInvariants(method, res, before, `raw ${shown} → ${res.status} ${JSON.stringify(res.body.subarray(0, 300).toString('utf8'))}`);
}
