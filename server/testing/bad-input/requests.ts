/** Request descriptions of the bad-input test and the generators of their methods, paths and queries: small values, materialized only when sent, so a counterexample stays readable. */
import fc from 'fast-check';
import { OPERATIONS, type Operation } from '../../operations.ts';
import { CONFIG_SECTION_NAMES } from '../../features/config/schemas.ts';

import { SEEDS } from './gateway.ts';

// ── Request descriptions ───────────────────────────────────────────────────
//
// Generated values are small descriptions, materialized only when sent, so a
// counterexample stays readable (a 1.5 MB body prints as {kind: "huge"}).

export type PathPart = string | { meeting: number };

export type AuthSpec =
  | { kind: 'none' }
  | { kind: 'token'; slot: number; scheme: string; trailing: string }
  | { kind: 'disabled' }
  | { kind: 'unknown'; value: string }
  | { kind: 'raw'; value: string }
  | { kind: 'twice'; slot: number };

export type BodySpec =
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: number[] }
  | { kind: 'latin1'; text: string }
  | { kind: 'deep'; depth: number; shape: 'array' | 'object' | 'title' | 'labels' | 'config' }
  | { kind: 'huge'; bytes: number; shape: 'title' | 'text' | 'prompt' | 'garbage' };

export interface RequestSpec {
  method: string;
  path: PathPart[];
  query: string;
  auth: AuthSpec;
  contentType: string | null;
  body: BodySpec | null;
  chunked: boolean;
  extraHeaders: Record<string, string>;
}

// ── Generators ─────────────────────────────────────────────────────────────

const COMMON_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
/** Methods node's HTTP parser knows (an unknown token is refused before Express runs). */
const ODD_METHODS = [
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'PURGE',
  'TRACE',
  'SEARCH',
  'REPORT',
  'LOCK',
  'UNLOCK',
  'COPY',
  'MOVE',
  'QUERY',
  'LINK',
  'M-SEARCH',
  'NOTIFY',
];

export const methodArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...COMMON_METHODS) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD_METHODS) },
);

/** Percent-encodes the UTF-8 bytes of a string, keeping RFC 3986 unreserved characters. */
function pct(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const MALFORMED_PCT = [
  '%E0%A4%A',
  '%',
  '%%',
  '%zz',
  '%0',
  '%00',
  'a%00b',
  '%C0%AF',
  '%ED%A0%80',
  '%ED%B0%80',
  '%FF',
  '%F4%90%80%80',
  '%E2%82',
  '%u0041',
  '%2F',
  '%2f..%2f',
  '%252F',
  '%2e%2e',
  '%0D%0A',
  '%7F',
];

/** Printable ASCII that node's request-line parser accepts as is. */
const rawAsciiArb = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 12 });
export const controlArb = fc.string({
  unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 4,
});

/** One path segment, already in wire form. */
export const segmentArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...MALFORMED_PCT) },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(pct) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }).map(pct) },
  { weight: 1, arbitrary: controlArb.map(pct) },
  { weight: 2, arbitrary: rawAsciiArb.map((s) => s.replaceAll('/', '').replaceAll('?', '').replaceAll('#', '')) },
  { weight: 1, arbitrary: fc.constantFrom('.', '..', '', '~', '__proto__', 'constructor', 'null', 'undefined', '0', '-1', 'NaN') },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 7000 }).map((n) => 'a'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: 600 }).map((n) => '%F0%9F%98%80'.repeat(n)) },
);

const idArb: fc.Arbitrary<PathPart> = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: SEEDS.length - 1 }).map((i) => ({ meeting: i })) },
  { weight: 4, arbitrary: segmentArb },
);

const sectionArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...CONFIG_SECTION_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...CONFIG_SECTION_NAMES).map((s) => s.toUpperCase()) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'vad%00', 'v%61d', 'all', '') },
  { weight: 2, arbitrary: segmentArb },
);

/** A table path with its placeholders filled in. */
export function templatePathArb(template: string): fc.Arbitrary<PathPart[]> {
  const pieces = template.split(/(\{[a-z_]+\})/).filter((p) => p !== '');
  return fc.tuple(
    ...pieces.map((p): fc.Arbitrary<PathPart> => {
      if (p === '{id}') return idArb;
      if (p === '{section}') return sectionArb;
      if (p.startsWith('{')) return segmentArb;
      return fc.constant(p);
    }),
  );
}

type PathMutation = 'none' | 'trailing' | 'upper' | 'first-upper' | 'dot' | 'dotdot' | 'double-slash' | 'encoded-char' | 'suffix' | 'v2';

export function mutatePath(parts: PathPart[], mutation: PathMutation, extra: string): PathPart[] {
  const literalIndex = parts.findIndex((p) => typeof p === 'string' && /[a-z]/.test(p));
  const mapLiterals = (f: (s: string) => string): PathPart[] => parts.map((p) => (typeof p === 'string' && !p.includes('%') ? f(p) : p));
  switch (mutation) {
    case 'none':
      return parts;
    case 'trailing':
      return [...parts, '/'];
    case 'upper':
      return mapLiterals((s) => s.toUpperCase());
    case 'first-upper':
      return parts.map((p, i) => (i === literalIndex && typeof p === 'string' ? p.replace(/[a-z]/, (c) => c.toUpperCase()) : p));
    case 'dot':
      return ['/.', ...parts];
    case 'dotdot':
      return [...parts, '/../', extra];
    case 'double-slash':
      return ['/', ...parts];
    case 'encoded-char':
      return parts.map((p, i) =>
        i === literalIndex && typeof p === 'string'
          ? p.replace(/[a-z]/, (c) => (pct(c) === c ? `%${c.charCodeAt(0).toString(16)}` : pct(c)))
          : p,
      );
    case 'suffix':
      return [...parts, '/', extra];
    case 'v2':
      return parts.map((p) => (typeof p === 'string' ? p.replace('/v1/', '/v2/') : p));
  }
}

export const mutationArb: fc.Arbitrary<PathMutation> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<PathMutation>('none') },
  {
    weight: 5,
    arbitrary: fc.constantFrom<PathMutation>(
      'trailing',
      'upper',
      'first-upper',
      'dot',
      'dotdot',
      'double-slash',
      'encoded-char',
      'suffix',
      'v2',
    ),
  },
);

export const TABLE_PATHS = [...new Set((OPERATIONS as readonly Operation[]).map((op) => op.path))];

const unknownPathArb: fc.Arbitrary<PathPart[]> = fc.oneof(
  fc.constantFrom<PathPart[]>(
    ['/'],
    ['/v1'],
    ['/v1/'],
    ['/health/x'],
    ['/openapi.json/'],
    ['/openapi.yaml'],
    ['/favicon.ico'],
    ['/v1/jobs'],
    ['/v1/jobs/import'],
    ['/v1/webhooks'],
    ['/v1/recording/start'],
    ['/v1/pairings'],
    ['/v1/mcp/client-token'],
    ['/v1/config'],
    ['/v1/meetings/', { meeting: 0 }, '/summary/regenerate'],
    ['/v1/meetings/', { meeting: 0 }, '/summary/operations/x/wait'],
    ['/v1/meetings/', { meeting: 1 }, '/transcript/x'],
    ['/control/reset'],
    ['/*'],
  ),
  fc
    .tuple(fc.constantFrom('/', '/v1/', '/V1/', '//', '/v1//', '/v1/meetings/'), fc.array(segmentArb, { minLength: 0, maxLength: 4 }))
    .map(([prefix, segs]) => [prefix + segs.join('/')]),
);

export const pathArb: fc.Arbitrary<PathPart[]> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom(...TABLE_PATHS).chain(templatePathArb), mutationArb, segmentArb)
      .map(([parts, mutation, extra]) => mutatePath(parts, mutation, extra)),
  },
  { weight: 1, arbitrary: unknownPathArb },
);

const QUERY_KEYS = [
  'limit',
  'offset',
  'q',
  'format',
  'delete_files',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'limit[]',
  'limit[0]',
  'q[a]',
  'prototype',
  '',
];
const QUERY_VALUES = [
  '',
  '0',
  '1',
  '-1',
  '50',
  '200',
  '201',
  '-0',
  '+5',
  '1e3',
  '1e309',
  '1.5',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '99999999999999999999999999999',
  '999999999999999999999999999999999999999',
  '9007199254740993',
  '-9007199254740993',
  '%205',
  '5%20',
  'true',
  'false',
  'TRUE',
  'yes',
  'json',
  'md',
  'txt',
  'markdown',
  'text',
  'JSON',
  'xml',
  'budget',
  'release%20plan',
  '%22budget%22',
  'NEAR(a%20b)',
  'text%3Abudget',
  'a*',
  '%5E',
  '-budget',
  'AND',
  'OR%20NOT',
  '%E2%98%95',
  '%',
  '%E0%A4%A',
  '%00',
  '%ED%A0%80',
  '__proto__',
  'a'.repeat(501),
  '%C3%A9'.repeat(501),
];

export const queryValueArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...QUERY_VALUES) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).map(pct) },
  { weight: 1, arbitrary: controlArb.map(pct) },
  { weight: 1, arbitrary: rawAsciiArb.map((s) => s.replaceAll('#', '').replaceAll('&', '')) },
);

const queryPairArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...QUERY_KEYS) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }).map(pct) },
    ),
    fc.option(queryValueArb, { nil: null, freq: 8 }),
  )
  .map(([k, v]) => (v === null ? k : `${k}=${v}`));

export const queryArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 6, arbitrary: fc.array(queryPairArb, { minLength: 1, maxLength: 5 }).map((pairs) => `?${pairs.join('&')}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('?', '??', '?&&', '?&=&', '?=', '?q', '?q=budget#frag', '?q=budget;limit=1', '?limit=1&limit=2', '?q=a&q=b'),
  },
);
