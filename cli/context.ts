/**
 * What every `mas` command runs with: the process's streams (Io), the client
 * and target built from the global options (Context), the exit codes, and
 * the few helpers every command shares to print a result or end with an error.
 */
import { readFileSync } from 'node:fs';
import type { MasClient, ApiResult, OperationId } from '../client/client.ts';
import { errorLine, json } from './output.ts';
import type { ProgressLine } from './progress.ts';
import { UsageError, type Target } from './settings.ts';
import type { Writable } from './output.ts';

export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3, timedOut: 4, interrupted: 130 } as const;

export interface Io {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl+C. */
  signal: AbortSignal;
  version: string;
}

/** Thrown inside a command to end it with an exit code (after its message is printed). */
export class Exit extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.code = code;
  }
}

export interface Context {
  client: MasClient;
  target: Target;
  io: Io;
  asJson: boolean;
  progress: ProgressLine;
}

/** Runs one API call and prints its data (JSON or the human form), or its error. */
export function show<O extends OperationId>(c: Context, r: ApiResult<O>, human: (data: ApiResult<O> & { ok: true }) => string): void {
  if (!r.ok) fail(c, r);
  c.io.stdout.write(c.asJson ? (typeof r.data === 'string' ? r.data : json(r.data)) : human(r));
}

/** Prints an API error on one line (and its envelope with --json) and ends with the exit code of its class. */
export function fail(
  c: Context,
  r: { ok: false; status: number; error: unknown; headers: Record<string, string | string[] | undefined> },
): never {
  c.progress.clear();
  const error = r.error as { code: string; message: string };
  if (c.asJson) c.io.stdout.write(json({ error }));
  const retryAfter = r.headers['retry-after'];
  c.io.stderr.write(errorLine(r.status, error, typeof retryAfter === 'string' ? retryAfter : undefined));
  if (r.status === 401 && c.target.tokenSource === 'none')
    c.io.stderr.write(`mas: no token: pass --token, set MAS_TOKEN, or put {"token": "…"} in ${c.target.configFile}\n`);
  throw new Exit(r.status >= 500 ? EXIT.unreachable : EXIT.refused);
}

/** Reads a command's text input from a file, or stdin for '-' or none (refused when stdin is a terminal). */
export async function readInput(io: Io, file: string | undefined, what: string): Promise<string> {
  if (file !== undefined && file !== '-') {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (io.stdin.isTTY === true) throw new UsageError(`give ${what} as an argument, a file, or on stdin`);
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** Leaves out the options not given, so the service applies its own defaults. */
export function dropUndefined<T extends Record<string, unknown>>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}
