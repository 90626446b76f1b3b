/**
 * Model-based testing (fast-check's fc.commands + fc.asyncModelRun): a
 * Model of what the spec says the target's state is, one Command per action
 * with check (precondition on the model), run (act on the target, compare
 * with the model through ctx.expect, update the model) and toString. A
 * failing sequence is shrunk to a minimal one, and the report carries its
 * seed, path and the commands (with fast-check's replayPath).
 *
 * Used by the jobs, recording and webhook state-machine checks; the target
 * is reset (or a fresh resource made) by `setup` before every sequence.
 */
import fc from 'fast-check';
import type { CheckContext } from './context.ts';

/** An action on the target: check is the precondition on the model; run acts and verifies. */
export type Command<Model extends object, Real> = fc.AsyncCommand<Model, Real, boolean>;

export interface ModelRunOptions<Model extends object, Real> {
  /** The commands that may be generated (each an arbitrary, so commands carry data). */
  commands: Array<fc.Arbitrary<Command<Model, Real>>>;
  /** A fresh model and the real system for one sequence (e.g. reset the target, seed a job). */
  setup: () => Promise<{ model: Model; real: Real }>;
  maxCommands?: number;
  runs?: number;
  /** Called after every sequence, passed or not (e.g. to stop a recording). */
  teardown?: (real: Real) => Promise<void>;
}

/** Runs sequences of commands against the target as a ctx.property; returns whether all held. */
export function modelRun<Model extends object, Real>(
  ctx: CheckContext,
  name: string,
  options: ModelRunOptions<Model, Real>,
): Promise<boolean> {
  return ctx.property(
    name,
    fc.commands(options.commands, { maxCommands: options.maxCommands ?? 12 }),
    async (cmds) => {
      const setup = await options.setup();
      try {
        await fc.asyncModelRun(() => setup, cmds);
      } finally {
        await options.teardown?.(setup.real);
      }
    },
    { runs: options.runs ?? ctx.runs(0.3) },
  );
}

/**
 * A Command from plain functions, for checks that do not want a class per
 * action: command('pause', (m) => m.state === 'running', async (m, r) => {...}).
 */
export function command<Model extends object, Real>(
  label: string,
  check: (m: Readonly<Model>) => boolean,
  run: (m: Model, r: Real) => Promise<void>,
): Command<Model, Real> {
  return { check, run, toString: () => label };
}
