/** A curl command line that repeats a request from a report. */

/** Quotes for a POSIX shell: single quotes, with ' written as '\''. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export interface CurlInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Text body, or a description of a binary one. */
  body?: { text: string } | { binaryBytes: number };
  /** Add -N (no buffering) for event streams. */
  stream?: boolean;
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
  if (input.body !== undefined) {
    if ('text' in input.body) parts.push('--data-binary', shellQuote(input.body.text));
    else parts.push('--data-binary', `@body.bin  # ${input.body.binaryBytes} bytes of binary data`);
  }
  return parts.join(' ');
}
