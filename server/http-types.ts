/**
 * The types a handler is written against: its context, typed by its row of
 * the operations table and by the services its feature declared, and the
 * reply it returns. Types only: the features' handlers import this file, the
 * router (app.ts) and the assembly of the handlers (handlers.ts) import it
 * too, and none of them imports the others back (no import cycle, type
 * imports included; docs/decisions/084-one-composition-root.md).
 */
import type { Request, Response } from 'express';
import type { Caller } from './kernel/auth.ts';
import type { BodyOf, HasCaller, ParamsOf, QueryOf, ReplyOf } from './kernel/operation-types.ts';
import type { Operation, OperationId, OPERATIONS } from './operations.ts';

/**
 * What every handler receives. `deps` holds the services of the handler's
 * feature and nothing else (features/<name>/handlers.ts declares them; the
 * composition root, deps.ts, builds them).
 */
export interface HandlerContext<Deps = unknown> {
  op: Operation;
  caller: Caller | null;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  deps: Deps;
  req: Request;
  /** For the handlers that stream (SSE waits); every other handler returns a Reply. */
  res: Response;
}

export type Reply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; text: string; contentType: string; headers?: Record<string, string> }
  /** The handler wrote the response itself (an SSE stream), or there is nobody left to answer. */
  | { streamed: true };

/** A handler as the router holds it: untyped by its row (app.ts parses by that row before it calls it). */
export type Handler<Deps = unknown> = (ctx: HandlerContext<Deps>) => Reply | Promise<Reply>;

/** The row of an operationId in the operations table. */
type RowOf<Id extends OperationId> = Extract<(typeof OPERATIONS)[number], { operationId: Id }>;

/** What a handler receives: the context with params, query and body typed by its row, and its feature's services. */
export type ContextFor<Id extends OperationId, Deps> = Omit<HandlerContext<Deps>, 'caller' | 'params' | 'query' | 'body'> & {
  caller: HasCaller<RowOf<Id>> extends true ? Caller : Caller | null;
  params: ParamsOf<RowOf<Id>>;
  query: QueryOf<RowOf<Id>>;
  body: BodyOf<RowOf<Id>>;
};

/** A handler typed by its row: no cast of params, query or body, and replies its row documents. */
export type HandlerFor<Id extends OperationId, Deps> = (ctx: ContextFor<Id, Deps>) => ReplyOf<RowOf<Id>> | Promise<ReplyOf<RowOf<Id>>>;

/**
 * The handlers of a feature's rows; `satisfies HandlersFor<Ids, FeatureDeps>`
 * types each one by its row and gives it its feature's services only.
 */
export type HandlersFor<Id extends OperationId, Deps> = { [K in Id]: HandlerFor<K, Deps> };
