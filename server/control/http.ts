/**
 * The two helpers every Control API route uses: read a validated JSON body,
 * write a JSON reply. Errors go through the API's registry like the API's own.
 */
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { ApiError } from '../kernel/errors.ts';
import { readJsonBody } from '../kernel/http/json-body.ts';
import { formatIssues } from '../kernel/http/validation.ts';

/** Reads and validates a JSON body: 400 when it is not JSON, 422 when it breaks the schema. */
export async function readBody<S extends z.ZodType>(req: Request, schema: S, required: true): Promise<z.output<S>>;
export async function readBody<S extends z.ZodType>(req: Request, schema: S, required: false): Promise<z.output<S> | undefined>;
export async function readBody<S extends z.ZodType>(req: Request, schema: S, required: boolean): Promise<z.output<S> | undefined> {
  const raw = await readJsonBody(req);
  if (raw === undefined) {
    if (required) throw new ApiError('invalid_request', 'this call needs a JSON body');
    return undefined;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ApiError('invalid_request', formatIssues(parsed.error.issues));
  return parsed.data;
}

export function json(res: Response, status: number, body: unknown): void {
  res.status(status).setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(JSON.stringify(body));
}
