/**
 * The shape of a row of the operations table (operations.ts), and the helpers
 * the router builds from it. Feature tables (operations-*.ts) use these too.
 */
import type { z } from 'zod';
import type { QueryParam } from './http/query.ts';
import type { RequiredScope } from './scopes.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
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

/** A matcher for a template, used to tell "unknown path" from "known path, other method". */
export function pathMatcher(template: string): RegExp {
  const pattern = template
    .split(/\{[a-z_]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${pattern}/?$`);
}
