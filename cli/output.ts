/**
 * How `mas` prints: the API's own JSON with --json; otherwise short
 * `key: value` lines for one object and aligned columns for a list. The same
 * plain text on a terminal and in a pipe (no colour, no box drawing); only
 * the progress line (progress.ts) is terminal-only.
 */
import { SUB_CODE_PARENTS } from '../client/spec-values.ts';

export interface Writable {
  write(text: string): unknown;
}

export type Row = Record<string, unknown>;

/** One cell or value as a short string: null as "-", arrays comma-joined, objects as compact JSON. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value))
    return value.every((v) => typeof v !== 'object' || v === null) ? value.map((v) => String(v)).join(',') : JSON.stringify(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return (typeof value === 'string' ? value : scalarText(value)).replace(/[\r\n\t]+/g, ' ');
}

export function table(rows: readonly Row[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)\n';
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...cells.map((row) => row[i]!.length))));
  const fit = (s: string, w: number) => (s.length > w ? `${s.slice(0, w - 1)}…` : s.padEnd(w));
  const line = (parts: string[]) =>
    parts
      .map((p, i) => (i === parts.length - 1 ? p : fit(p, widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n')}\n`;
}

export function fields(obj: Row, only?: readonly string[]): string {
  const keys = only ?? Object.keys(obj);
  const width = Math.max(...keys.map((k) => k.length));
  return `${keys
    .filter((k) => k in obj)
    .map((k) => `${`${k}:`.padEnd(width + 1)} ${cell(obj[k])}`)
    .join('\n')}\n`;
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The one error line: `HTTP 409 conflict/import_not_pausable: <message>`. */
export function errorLine(status: number, error: { code: string; message: string }, retryAfter?: string): string {
  const parent = SUB_CODE_PARENTS[error.code];
  const code = parent !== undefined ? `${parent}/${error.code}` : error.code;
  const retry = retryAfter !== undefined ? ` (retry after ${retryAfter} s)` : '';
  return `mas: HTTP ${status} ${code}: ${error.message.replace(/[\r\n]+/g, ' ')}${retry}\n`;
}

/** A number, boolean, bigint, symbol or function as text (objects are JSON before this is reached). */
function scalarText(value: unknown): string {
  switch (typeof value) {
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'symbol':
      return value.toString();
    default:
      return typeof value;
  }
}
