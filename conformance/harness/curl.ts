/**
 * A curl command line that repeats a request from a report. It never names a
 * file that does not exist: a small binary body travels inside the line
 * (base64, piped to curl's stdin), a larger one is left out with a comment
 * saying so, until a JSON report writes it to a file and the line names that
 * file (withBodyFile; reporters/bodies.ts).
 */

/** Quotes for a POSIX shell: single quotes, with ' written as '\''. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Binary bodies up to this many bytes go inside the curl line (as base64: 4/3 as long). */
const INLINE_BODY_MAX = 2048;

/** Starts the comment of a curl line whose body is left out (withBodyFile replaces it). */
const OMITTED = '  # request body omitted:';

export interface CurlInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** A text body (sent as it is), or the bytes of one a shell word cannot hold. */
  body?: { text: string } | { bytes: Uint8Array };
  /** Add -N (no buffering) for event streams. */
  stream?: boolean;
}

/** Whether the curl line of this body leaves the body out (so a report must keep the bytes to write them). */
export function omitsBody(body: CurlInput['body']): boolean {
  return body !== undefined && 'bytes' in body && body.bytes.byteLength > INLINE_BODY_MAX;
}

/**
 * Header values may hold placeholders such as $MAS_TOKEN (see Secrets): those
 * are put in double quotes so the shell expands them.
 */
export function curlLine(input: CurlInput): string {
  const parts = ['curl', '-sS', '-i'];
  if (input.stream === true) parts.push('-N');
  if (input.method !== 'GET' || input.body !== undefined) parts.push('-X', input.method);
  parts.push(shellQuote(input.url));
  for (const [name, value] of Object.entries(input.headers)) {
    const header = `${name}: ${value}`;
    parts.push('-H', /\$MAS_[A-Z_]+/.test(value) ? `"${header.replace(/["\\`]/g, '\\$&')}"` : shellQuote(header));
  }
  const body = input.body;
  if (body === undefined) return parts.join(' ');
  if ('text' in body) return [...parts, '--data-binary', shellQuote(body.text)].join(' ');
  if (omitsBody(body))
    return `${parts.join(' ')}${OMITTED} ${body.bytes.byteLength} bytes (a JSON report, --json DIR, writes them to DIR/bodies/)`;
  // Small enough to carry: the bytes as base64, decoded into curl's standard input.
  const base64 = Buffer.from(body.bytes).toString('base64');
  return `printf %s ${shellQuote(base64)} | base64 -d | ${[...parts, '--data-binary', '@-'].join(' ')}`;
}

/** The curl line with its omitted body read from `file` instead (a line that carries its body is returned unchanged). */
export function withBodyFile(curl: string, file: string): string {
  const at = curl.indexOf(OMITTED);
  return at < 0 ? curl : `${curl.slice(0, at)} --data-binary @${shellQuote(file)}`;
}
