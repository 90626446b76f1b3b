/** Generators of the bad-input test's tokens, content types, bodies and headers, and the whole-request generators built from them. */
import fc from 'fast-check';
import { OPERATIONS, type Operation } from '../../operations.ts';

import {
  type AuthSpec,
  type BodySpec,
  type RequestSpec,
  controlArb,
  methodArb,
  mutatePath,
  mutationArb,
  pathArb,
  queryArb,
  queryValueArb,
  segmentArb,
  templatePathArb,
} from './requests.ts';

const authArb: fc.Arbitrary<AuthSpec> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<AuthSpec>({ kind: 'none' }) },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('token' as const),
      slot: fc.nat({ max: 19 }),
      scheme: fc.oneof(
        { weight: 8, arbitrary: fc.constant('Bearer ') },
        { weight: 2, arbitrary: fc.constantFrom('bearer  ', 'BEARER ', 'Bearer\t', 'Bearer', 'Token ', 'Basic ', ' Bearer ') },
      ),
      trailing: fc.oneof(
        { weight: 8, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.constantFrom(' ', '  ', ' x', 'x', '\t', ',', '\u00e9') },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant<AuthSpec>({ kind: 'disabled' }) },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 60 })
      .map((value): AuthSpec => ({ kind: 'unknown', value })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        'Bearer',
        'Bearer ',
        'Basic x',
        'Basic dXNlcjpwYXNz',
        'bearer',
        'Bearer a b',
        'Bearer mas_',
        'Bearer \u00e9\u00ff',
        `Bearer ${'x'.repeat(513)}`,
        `Bearer ${'x'.repeat(8000)}`,
        '',
        ' ',
        'Digest x',
        'Bearer\t\ttok',
        'Bearer "tok"',
      )
      .map((value): AuthSpec => ({ kind: 'raw', value })),
  },
  { weight: 1, arbitrary: fc.nat({ max: 19 }).map((slot): AuthSpec => ({ kind: 'twice', slot })) },
);

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=ISO-8859-1',
  'application/json; charset="utf-8"',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/problem+json; charset=utf-16',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/xml',
  '',
  ';',
  'application/json; boundary',
  'json',
  '*/*',
];

const contentTypeArb: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** Bodies of the right shape for one route or another. */
const validShapeArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    { title: 'Renamed meeting' },
    { title: 'a'.repeat(500) },
    { title: 'a'.repeat(501) },
    { title: '' },
    { title: '   ' },
    { title: 'tab\there' },
    { title: '😀'.repeat(500) },
    { title: '😀'.repeat(501) },
    { text: 'A new summary.' },
    { text: '' },
    { labels: { S1: 'Alice', S2: null } },
    { labels: {} },
    { labels: { S1: '' } },
    { labels: { '': 'x' } },
    { labels: { S1: 'line\nbreak' } },
    { enabled: true },
    { enabled: false, threshold: 0.3 },
    { threshold: 2 },
    { speaker_count: null },
    { auto_record: true },
    { auto_record: false, apps: ['zoom'] },
    { words: ['Kubernetes', 'Postgres'] },
    { prompt: 'Meeting about budgets.' },
    { playback_rate: 1.5, volume: 0.5 },
    { known_speakers: [{ name: 'Alice' }] },
    {},
  ),
  fc.record({ title: fc.string({ unit: 'grapheme', maxLength: 40 }) }),
  fc.record({ text: fc.string({ unit: 'binary', maxLength: 60 }) }),
  fc.record({
    labels: fc.dictionary(fc.string({ maxLength: 6 }), fc.option(fc.string({ unit: 'grapheme', maxLength: 10 }), { nil: null }), {
      maxKeys: 4,
    }),
  }),
  fc.record({ enabled: fc.boolean(), threshold: fc.double() }),
);

const WRONG_TYPES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  'title',
  [],
  [{ title: 'x' }],
  { title: 123 },
  { title: null },
  { title: ['a'] },
  { title: { toString: 'x' } },
  { title: true },
  { text: 42 },
  { text: null },
  { labels: [] },
  { labels: 'S1' },
  { labels: { S1: 1 } },
  { labels: { S1: ['Alice'] } },
  { labels: null },
  { enabled: 'yes' },
  { threshold: '0.5' },
  { min_speech_ms: 1.5 },
  { title: 'ok', extra: 1 },
  { Title: 'ok' },
];

const INVALID_JSON = [
  '{',
  '}',
  '{"title":',
  '{"title":"x"',
  "{'title':'x'}",
  '{title:"x"}',
  'undefined',
  'NaN',
  '[1,]',
  '{"a":1,}',
  '{"title":"x"}}',
  '{"title":"x"} trailing',
  '\uFEFF{"title":"x"}',
  '01',
  '"\\x"',
  '"\\u12"',
  '{"title":"a\u0001b"}',
  '{"title":"line\nbreak"}',
  'nul',
  ' ',
  '\n',
  '\u0000',
  '{"title":"x"}\u0000',
  '{"__proto__":{"admin":true},"title":"x"}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"labels":{"__proto__":"x"}}',
  '{"labels":{"__proto__":null}}',
  '{"labels":{"constructor":"x","toString":"y"}}',
  '{"title":"\\ud800"}',
  '{"title":"\\udc00x\\ud800"}',
  '{"labels":{"\\ud800":"x"}}',
  '{"labels":{"S1":"\\udfff"}}',
  '{"text":"\\u0000"}',
  '{"title":"\\u0000"}',
  '{"title":"x","title":"y"}',
  '1e999999',
  '-',
  '[]]',
];

const bodyArb: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 8, arbitrary: validShapeArb.map((value): BodySpec => ({ kind: 'json', value })) },
  { weight: 3, arbitrary: fc.constantFrom(...WRONG_TYPES).map((value): BodySpec => ({ kind: 'json', value })) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value): BodySpec => ({ kind: 'json', value })) },
  { weight: 3, arbitrary: fc.constantFrom(...INVALID_JSON).map((text): BodySpec => ({ kind: 'text', text })) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.oneof(validShapeArb, fc.jsonValue({ maxDepth: 3 })), fc.nat()).map(([value, cut]): BodySpec => {
      const text = JSON.stringify(value) ?? 'null';
      return { kind: 'text', text: text.slice(0, text.length > 1 ? cut % (text.length - 1) : 0) };
    }),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((text): BodySpec => ({ kind: 'text', text })) },
  { weight: 1, arbitrary: controlArb.map((c): BodySpec => ({ kind: 'text', text: `{"title":"${c}"}` })) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 64 })
      .map((bytes): BodySpec => ({ kind: 'bytes', bytes })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<BodySpec>(
      { kind: 'bytes', bytes: [...Buffer.from('{"title":"'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')] },
      { kind: 'bytes', bytes: [...Buffer.from('{"title":"'), 0xc3, ...Buffer.from('"}')] },
      { kind: 'bytes', bytes: [...Buffer.from('{"title":"'), 0xff, 0xfe, ...Buffer.from('"}')] },
      { kind: 'bytes', bytes: [0xff, 0xfe, ...Buffer.from('{"title":"x"}', 'utf16le')] },
      { kind: 'bytes', bytes: [0xef, 0xbb, 0xbf, ...Buffer.from('{"title":"x"}')] },
      { kind: 'latin1', text: '{"title":"café"}' },
      { kind: 'latin1', text: '{"labels":{"S1":"José"}}' },
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        depth: fc.constantFrom(64, 512, 1_000, 10_000),
        shape: fc.constantFrom('array' as const, 'object' as const, 'title' as const, 'labels' as const, 'config' as const),
      })
      .map((d): BodySpec => ({ kind: 'deep', ...d })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        bytes: fc.constantFrom(1_048_000, 1_048_577, 1_500_000),
        shape: fc.constantFrom('title' as const, 'text' as const, 'prompt' as const, 'garbage' as const),
      })
      .map((h): BodySpec => ({ kind: 'huge', ...h })),
  },
);

const extraHeadersArb: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      { 'content-encoding': 'gzip' },
      { 'content-encoding': 'identity' },
      { 'content-encoding': 'br, gzip' },
      { accept: 'text/html' },
      { accept: 'application/xml;q=1, */*;q=0' },
      { 'x-forwarded-for': '10.0.0.1' },
      { 'x-http-method-override': 'DELETE' },
      { origin: 'http://evil.example' },
      { cookie: 'a=b; __proto__=x' },
      { range: 'bytes=0-1' },
      { 'if-none-match': '*' },
      { 'if-none-match': '"abc"' },
      { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
      { 'accept-charset': 'latin1' },
    ),
  },
);

/** Any request at all. */
export const anyRequestArb: fc.Arbitrary<RequestSpec> = fc.record({
  // Half the time the method of a row of the table and a path of any row
  // (often the same path), half the time any method.
  method: fc.oneof(fc.constantFrom(...(OPERATIONS as readonly Operation[]).map((op) => op.method.toUpperCase())), methodArb),
  path: pathArb,
  query: queryArb,
  auth: authArb,
  contentType: contentTypeArb,
  body: fc.option(bodyArb, { nil: null, freq: 4 }),
  chunked: fc.boolean(),
  extraHeaders: extraHeadersArb,
});

/** A table route with its own method, every scope set, and bodies aimed at its schema. */
export const tableRequestArb: fc.Arbitrary<RequestSpec> = fc.constantFrom(...(OPERATIONS as readonly Operation[])).chain((op) =>
  fc.record({
    method: fc.oneof({ weight: 9, arbitrary: fc.constant(op.method.toUpperCase()) }, { weight: 1, arbitrary: methodArb }),
    path: fc.tuple(templatePathArb(op.path), mutationArb, segmentArb).map(([parts, m, extra]) => mutatePath(parts, m, extra)),
    query: fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .array(
            fc.tuple(fc.constantFrom(...Object.keys(op.query ?? { limit: null }), '__proto__'), queryValueArb).map(([k, v]) => `${k}=${v}`),
            { maxLength: 3 },
          )
          .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.join('&')}`)),
      },
      { weight: 1, arbitrary: queryArb },
    ),
    auth: fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('token' as const),
          slot: fc.nat({ max: 19 }),
          scheme: fc.constant('Bearer '),
          trailing: fc.constant(''),
        }),
      },
      { weight: 1, arbitrary: authArb },
    ),
    contentType: contentTypeArb,
    body: op.body === undefined ? fc.option(bodyArb, { nil: null, freq: 5 }) : fc.option(bodyArb, { nil: null, freq: 10 }),
    chunked: fc.boolean(),
    extraHeaders: extraHeadersArb,
  }),
);

/** Write routes with a token that may call them, and nothing but bodies varying. */
export const bodyRequestArb: fc.Arbitrary<RequestSpec> = fc
  .constantFrom(...(OPERATIONS as readonly Operation[]).filter((op) => op.body !== undefined))
  .chain((op) =>
    fc.record({
      method: fc.constant(op.method.toUpperCase()),
      path: templatePathArb(op.path),
      query: fc.constant(''),
      auth: fc.constant<AuthSpec>({ kind: 'token', slot: 15, scheme: 'Bearer ', trailing: '' }),
      contentType: contentTypeArb,
      body: bodyArb,
      chunked: fc.boolean(),
      extraHeaders: extraHeadersArb,
    }),
  );
