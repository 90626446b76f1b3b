/**
 * Expectations as values (h2spec style): each helper compares what came with
 * what the spec allows and returns a Verdict holding the Expected list and
 * the Actual text. The context records failed verdicts against a clause.
 * Helpers are pure, so they are unit-tested without a target.
 */
import type { Exchange } from './exchange.ts';
import type { HttpResult } from './http.ts';

export interface Verdict {
  ok: boolean;
  /** Acceptable outcomes (any one of them conforms). */
  expected: string[];
  actual: string;
  /**
   * The exchange whose response was judged, set by the helpers that take one: a failure's curl line
   * repeats this request, whatever source the check passes (docs/decisions/076-ci-reports.md).
   */
  exchange?: Exchange;
}

export function verdict(ok: boolean, expected: string | string[], actual: string): Verdict {
  return { ok, expected: Array.isArray(expected) ? expected : [expected], actual };
}

/** Every verdict must hold; the first failing one is returned. */
export function all(...verdicts: Verdict[]): Verdict {
  return (
    verdicts.find((v) => !v.ok) ??
    verdict(
      true,
      verdicts.flatMap((v) => v.expected),
      verdicts.map((v) => v.actual).join('; '),
    )
  );
}

export function show(value: unknown, max = 300): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

// ---------------------------------------------------------------- HTTP

/** The verdict, marked with the response it rests on. */
function on(res: HttpResult, v: Verdict): Verdict {
  return { ...v, exchange: res.exchange };
}

/** The status is one of `allowed`. */
export function status(res: HttpResult, ...allowed: number[]): Verdict {
  return on(
    res,
    verdict(
      allowed.includes(res.status),
      allowed.map((s) => `status ${s}`),
      res.describe(),
    ),
  );
}

export function success(res: HttpResult): Verdict {
  return on(res, verdict(res.ok, 'a 2xx status', res.describe()));
}

/** The body is API.md's error envelope {"error": {"code": string, "message": string}}. */
export function envelope(res: HttpResult): Verdict {
  const expected = '{"error": {"code": <string>, "message": <string>}}';
  if (res.status === 0) return on(res, verdict(false, expected, res.describe()));
  const body = res.body as { error?: { code?: unknown; message?: unknown } } | undefined;
  if (res.jsonError !== undefined) return on(res, verdict(false, expected, `${res.status} body ${res.jsonError}: ${res.describe(200)}`));
  const ok =
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    body.error !== null &&
    typeof body.error === 'object' &&
    typeof body.error.code === 'string' &&
    body.error.code.length > 0 &&
    typeof body.error.message === 'string';
  return on(res, verdict(ok, expected, res.describe()));
}

/** An error answer: this status, and (when given) one of these codes in the envelope. */
export function error(res: HttpResult, statusCode: number, code?: string | readonly string[]): Verdict {
  const codes = code === undefined ? [] : typeof code === 'string' ? [code] : [...code];
  const expected =
    codes.length === 0
      ? [`${statusCode} with the error envelope`]
      : codes.map((c) => `${statusCode} {"error": {"code": "${c}", "message": …}}`);
  const env = envelope(res);
  const ok = res.status === statusCode && env.ok && (codes.length === 0 || codes.includes(res.errorCode ?? ''));
  return on(res, verdict(ok, expected, res.describe()));
}

/** Some 4xx answer carrying the error envelope (for "refused" with no status stated). */
export function refused(res: HttpResult, preferred?: number): Verdict {
  const ok = res.status >= 400 && res.status < 500 && envelope(res).ok;
  return on(
    res,
    verdict(
      ok,
      preferred === undefined ? 'a 4xx status with the error envelope' : [`a 4xx status with the error envelope (${preferred} presumed)`],
      res.describe(),
    ),
  );
}

/** A JSON body (application/json or +json) that parses. */
export function json(res: HttpResult): Verdict {
  const mt = res.mediaType;
  const typed = mt === 'application/json' || mt.endsWith('+json');
  const ok = typed && res.jsonError === undefined;
  return on(
    res,
    verdict(
      ok,
      'Content-Type application/json and a JSON body',
      res.status === 0
        ? res.describe()
        : `${res.status} Content-Type ${res.headers.get('content-type') ?? '(none)'}${res.jsonError === undefined ? '' : `, body ${res.jsonError}`}`,
    ),
  );
}

/** Not an auth refusal (401, 402, or 403 with one of the gate codes). */
const AUTH_REFUSAL_CODES = [
  'unauthorized',
  'insufficient_scope',
  'api_disabled',
  'license_required',
  'consumer_disabled',
  'forbidden',
] as const;

export function notAuthRefused(res: HttpResult): Verdict {
  const code = res.errorCode ?? '';
  const refusedByAuth =
    res.status === 401 || res.status === 402 || (res.status === 403 && (AUTH_REFUSAL_CODES as readonly string[]).includes(code));
  return on(
    res,
    verdict(
      res.status !== 0 && !refusedByAuth,
      'not refused by authentication (no 401, 402, or 403 ' +
        'unauthorized/insufficient_scope/api_disabled/license_required/consumer_disabled)',
      res.describe(),
    ),
  );
}

// ---------------------------------------------------------------- values

/**
 * A field type: 'string', 'number', 'integer', 'boolean', 'array', 'object',
 * 'timestamp' (RFC 3339 text, or a number of seconds/milliseconds), 'any'.
 * A trailing '?' makes the field optional: it may be absent or null.
 */
type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'timestamp' | 'any';
export type FieldSpec = FieldType | `${FieldType}?`;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

export function isTimestamp(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0;
  return typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
}

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'any':
      return value !== undefined;
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'timestamp':
      return isTimestamp(value);
  }
}

/** The value is an object holding these fields with these types. */
export function fields(value: unknown, spec: Record<string, FieldSpec>, label = 'body'): Verdict {
  const expected = `${label} with ${Object.entries(spec)
    .map(([k, t]) => `${k}: ${t}`)
    .join(', ')}`;
  if (!hasType(value, 'object')) return verdict(false, expected, `${label} is ${typeName(value)}: ${show(value, 200)}`);
  const obj = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, raw] of Object.entries(spec)) {
    const optional = raw.endsWith('?');
    const type = (optional ? raw.slice(0, -1) : raw) as FieldType;
    const v = obj[key];
    if (v === undefined || (v === null && optional)) {
      if (!optional) problems.push(`${key} missing`);
      continue;
    }
    if (!hasType(v, type)) problems.push(`${key} is ${typeName(v)} ${show(v, 60)}, not ${type}`);
  }
  return verdict(
    problems.length === 0,
    expected,
    problems.length === 0 ? `${label} ${show(value, 200)}` : `${label}: ${problems.join('; ')} in ${show(value, 200)}`,
  );
}

export function equal(actual: unknown, expected: unknown, label = 'value'): Verdict {
  return verdict(deepEqual(actual, expected), `${label} = ${show(expected)}`, `${label} = ${show(actual)}`);
}

export function that(ok: boolean, expected: string | string[], actual: string): Verdict {
  return verdict(ok, expected, actual);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => deepEqual(ao[k], bo[k]));
}

/** Does the string occur anywhere inside the value (keys excluded)? */
export function containsString(value: unknown, needle: string): boolean {
  if (typeof value === 'string') return value.includes(needle);
  if (Array.isArray(value)) return value.some((v) => containsString(v, needle));
  if (value !== null && typeof value === 'object') return Object.values(value).some((v) => containsString(v, needle));
  return false;
}

/** Index of the first UTF-16 unit where two texts differ, or -1 when equal. */
export function firstDifference(a: string, b: string): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}
