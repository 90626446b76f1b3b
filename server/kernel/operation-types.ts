/**
 * The shape of a row of the operations table (operations.ts), and the helpers
 * the router builds from it. Feature tables (features/<name>/operations.ts) use these too.
 */
import type { z } from 'zod';
import type { QueryParam } from './http/query.ts';
import type { RequiredScope } from './scopes.ts';

type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface ResponseSpec {
  description: string;
  /** JSON body schema; omitted for responses with no JSON body. */
  schema?: z.ZodType;
  /** Non-JSON representations (export renders Markdown and text). */
  contentTypes?: readonly string[];
}

export interface PathParam {
  description: string;
  enum?: readonly string[];
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template, e.g. /v1/meetings/{id}. */
  path: string;
  tag: string;
  summary: string;
  /** The enforced minimum scope (x-service-required-scope). */
  scope: RequiredScope;
  /** /health alone answers whatever the API switch and license say. */
  ungated?: boolean;
  readOnly: boolean;
  idempotent: boolean;
  destructive: boolean;
  pathParams?: Record<string, PathParam>;
  query?: Record<string, QueryParam<unknown>>;
  /**
   * The JSON request body. The router validates it against `schema` unless
   * `validatedByHandler` is set (config sections pick their schema by path).
   */
  body?: { schema: z.ZodType; required: boolean; validatedByHandler?: boolean };
  /** A raw (non-JSON) body the handler streams itself: the import upload. */
  rawBody?: { contentType: string; description: string };
  /** Success responses by status. Error responses are added from the registry by openapi.ts. */
  responses: Record<number, ResponseSpec>;
}

/** The x-service-* annotation sets shared by most rows. */
export const READ = { readOnly: true, idempotent: true, destructive: false } as const;
export const REPLACE = { readOnly: false, idempotent: true, destructive: false } as const;
export const OVERWRITE = { readOnly: false, idempotent: true, destructive: true } as const;
export const CREATE = { readOnly: false, idempotent: false, destructive: false } as const;

// ── Types inferred from a row ───────────────────────────────────────────────
// A handler is typed by its own row (http-types.ts, HandlerFor): the path parameters
// it declares, the values its query descriptors parse to, the output of its
// body schema and the input of its response schemas. The router parses every
// request by the same row, so what the types promise is what arrives.

/** `{ id: string }` for a row with pathParams { id }; no keys for a row without. */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- a row without parameters has an empty set of them
export type ParamsOf<R> = R extends { pathParams: infer P } ? { readonly [K in keyof P]: string } : Record<never, string>;

/** Each query parameter as its descriptor parses it (clampedInt → number, boolParam → boolean, ...). */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- a row without query parameters has an empty set of them
export type QueryOf<R> = R extends { query: infer Q } ? QueryValues<Q> : Record<never, never>;
type QueryValues<Q> = { readonly [K in keyof Q]: Q[K] extends QueryParam<infer T> ? T : never };

/**
 * The body after the router's validation: the schema's output, undefined when
 * the body is optional and absent; unknown when the handler validates it
 * itself (config sections pick their schema by path).
 */
export type BodyOf<R> = R extends { body: infer B }
  ? B extends { validatedByHandler: true }
    ? unknown
    : B extends { schema: infer S extends z.ZodType; required: infer Req }
      ? z.output<S> | (Req extends true ? never : undefined)
      : never
  : undefined;

/** A row that needs a scope is only reached with a caller (auth.ts authorize); the others may have none. */
export type HasCaller<R> = R extends { ungated: true } ? false : R extends { scope: 'none' } ? false : true;

type HeadersField = { headers?: Record<string, string> };

/** One status's replies: its JSON schema's input, and text when it names other content types. */
type ReplyAt<Status extends number, S> =
  | (S extends { schema: infer J extends z.ZodType } ? { status: Status; json: z.input<J> } & HeadersField : never)
  | (S extends { schema: z.ZodType }
      ? never
      : S extends { contentTypes: readonly string[] }
        ? never
        : { status: Status; json: unknown } & HeadersField)
  | (S extends { contentTypes: readonly string[] } ? { status: Status; text: string; contentType: string } & HeadersField : never);

/** Every reply the row documents, plus a stream the handler wrote itself. */
export type ReplyOf<R> = R extends { responses: infer Rs }
  ? { [K in keyof Rs]: K extends number ? ReplyAt<K, Rs[K]> : never }[keyof Rs] | { streamed: true }
  : never;
