/**
 * The one run queue of the gateway's background work: import jobs,
 * recording processing and summary operations each run on a RunQueue
 * (decision 117).
 *
 * A feature describes a lane: what waits (`next`), what taking an item means
 * (`begin`), the work itself (`work`: its stages, told through the Run it is
 * handed), how progress and the current stage read (`progress`, `stage`),
 * what each ending means (`succeeded`, `cancelled`, `failed`) and how a stop
 * is settled at the next start (`recover`). The queue owns everything that
 * moves: when an item starts, how many run at once, the stage control
 * (pause with SIGSTOP, resume with SIGCONT, cancel with SIGKILL, the
 * checkpoint between chunks), stopping, and calling recovery before anything
 * runs again. No feature keeps a loop of its own.
 *
 * After stop() no hook that writes is called any more: the store is about to
 * close, and the lane's recover() at the next start settles whatever was in
 * flight.
 */
import type { ChildProcess } from 'node:child_process';
import { CancelledError, type StageControl } from '../pipeline/types.ts';

/** What a lane's work is handed: the stage control of its stages and where it tells its stage. */
export interface Run<S extends string> {
  control: StageControl;
  /** The stage now running: shown through the lane's `stage` hook, and named by a failure. */
  stage: (stage: S) => void;
  /** true once the queue was stopped: nothing may be written any more. */
  readonly stopped: boolean;
}

/** One kind of background work, as its feature describes it to the queue. */
export interface Lane<T, R, S extends string> {
  /** At most this many items run at once (1 unless said). */
  readonly concurrency?: number;
  /**
   * 'next-turn' (the default): a taken item runs on the next turn of the
   * event loop, so the reply of the request that queued it goes out first.
   * 'now': it begins synchronously (a summary operation is already running
   * when the request that made it returns).
   */
  readonly startOn?: 'next-turn' | 'now';
  /** The next item waiting, without taking it; null when none waits. Lanes fed only by runNow() have none. */
  next?(): T | null;
  /** What pause, resume and cancel name an item by. */
  key(item: T): string;
  /** Synchronously, as the queue takes the item (e.g. queued → running); returns the item its work receives. */
  begin?(item: T): T;
  /** The work: its stages, told through `run`. */
  work(item: T, run: Run<S>): Promise<R>;
  /** How progress reads: a fraction clamped to 0..1 and rounded to thousandths. */
  progress?(item: T, fraction: number): void;
  /** How the current stage reads. */
  stage?(item: T, stage: S): void;
  /** A pause asked of a run was reached at a checkpoint (pausing → paused). */
  pausedAt?(item: T): void;
  succeeded?(item: T, result: R): void;
  /** The run was cancelled (cancel(), or a CancelledError from its stages). */
  cancelled?(item: T): void;
  /** The run failed; `stage` is the last stage it told, null if none. */
  failed?(item: T, err: unknown, stage: S | null): void;
  /** At start, before anything runs: settles what a stop left in flight and re-queues what can run again. */
  recover?(): void;
}

interface Execution<S extends string> {
  key: string;
  abort: AbortController;
  paused: boolean;
  resumeWaiters: (() => void)[];
  children: Set<ChildProcess>;
  stage: S | null;
}

/** What pause() found: no such run, a run whose processes stopped at once, or one that stops at its next checkpoint. */
export type PauseOutcome = 'not-running' | 'stopped-now' | 'at-checkpoint';

export class RunQueue<T, R, S extends string> {
  readonly #lane: Lane<T, R, S>;
  readonly #logError: (err: unknown) => void;
  readonly #running = new Set<Execution<S>>();
  #stopped = false;
  #idleWaiters: (() => void)[] = [];

  constructor(lane: Lane<T, R, S>, opts: { logError?: (err: unknown) => void } = {}) {
    this.#lane = lane;
    this.#logError = opts.logError ?? (() => undefined);
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  // ── Start and stop ──────────────────────────────────────────────────────
  /** Restart recovery first, then whatever waits starts. */
  start(): void {
    this.#lane.recover?.();
    this.kick();
  }

  /**
   * Restart or quit: every run in flight is aborted and its processes killed;
   * nothing else starts. What they leave is the lane's recover()'s at the next start.
   */
  stop(): void {
    this.#stopped = true;
    for (const exec of this.#running) {
      exec.abort.abort();
      killAll(exec);
    }
  }

  /** After a stop that was a reset (everything deleted): the queue takes work again. */
  reopen(): void {
    this.#stopped = false;
  }

  // ── Running ─────────────────────────────────────────────────────────────
  /** Something may be waiting (queued, retried): it starts if there is room. */
  kick(): void {
    while (this.#running.size < (this.#lane.concurrency ?? 1)) {
      const item = this.#stopped ? null : (this.#lane.next?.() ?? null);
      if (item === null) {
        if (this.#running.size === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
        return;
      }
      // Its ending was told to the lane's hooks; nobody waits on the promise.
      this.#launch(item).catch(() => undefined);
    }
  }

  /**
   * Runs an item at once, beside whatever runs (a summary asked for by a
   * request or by the import that waits for it). Resolves or rejects as its work does.
   */
  runNow(item: T): Promise<R> {
    return this.#launch(item);
  }

  /** Resolves once nothing runs and nothing waits (tests, tools, shutdown). */
  idle(): Promise<void> {
    if (this.#running.size === 0 && (this.#stopped || (this.#lane.next?.() ?? null) === null)) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  isRunning(key: string): boolean {
    return this.#find(key) !== null;
  }

  // ── Stage control ───────────────────────────────────────────────────────
  /** Stops the run's processes now (SIGSTOP); its pure code stops at its next checkpoint. */
  pause(key: string): PauseOutcome {
    const exec = this.#find(key);
    if (exec === null) return 'not-running';
    exec.paused = true;
    for (const child of exec.children) child.kill('SIGSTOP');
    return exec.children.size > 0 ? 'stopped-now' : 'at-checkpoint';
  }

  /** Continues a paused run; false when it is not running. */
  resume(key: string): boolean {
    const exec = this.#find(key);
    if (exec === null) return false;
    exec.paused = false;
    for (const child of exec.children) child.kill('SIGCONT');
    for (const wake of exec.resumeWaiters.splice(0)) wake();
    return true;
  }

  /** Aborts the run and kills its processes; its ending comes through the lane's `cancelled`. False when it is not running. */
  cancel(key: string): boolean {
    const exec = this.#find(key);
    if (exec === null) return false;
    exec.abort.abort();
    killAll(exec);
    for (const wake of exec.resumeWaiters.splice(0)) wake();
    return true;
  }

  // ── Internals ───────────────────────────────────────────────────────────
  #find(key: string): Execution<S> | null {
    for (const exec of this.#running) if (exec.key === key) return exec;
    return null;
  }

  #launch(item: T): Promise<R> {
    const exec: Execution<S> = {
      key: this.#lane.key(item),
      abort: new AbortController(),
      paused: false,
      resumeWaiters: [],
      children: new Set(),
      stage: null,
    };
    this.#running.add(exec);
    const taken = this.#lane.begin?.(item) ?? item;
    const go = () =>
      this.#execute(taken, exec).finally(() => {
        this.#running.delete(exec);
        this.kick();
      });
    if (this.#lane.startOn === 'now') return go();
    return new Promise<R>((resolve, reject) => {
      setImmediate(() => {
        go().then(resolve, reject);
      });
    });
  }

  async #execute(item: T, exec: Execution<S>): Promise<R> {
    const lane = this.#lane;
    const isStopped = () => this.#stopped;
    const run: Run<S> = {
      control: this.#control(item, exec),
      stage: (stage) => {
        exec.stage = stage;
        if (!this.#stopped) lane.stage?.(item, stage);
      },
      get stopped() {
        return isStopped();
      },
    };
    try {
      const result = await lane.work(item, run);
      if (!this.#stopped) this.#tell(() => lane.succeeded?.(item, result));
      return result;
    } catch (err) {
      if (!this.#stopped) {
        if (err instanceof CancelledError || exec.abort.signal.aborted) this.#tell(() => lane.cancelled?.(item));
        else this.#tell(() => lane.failed?.(item, err, exec.stage));
      }
      throw err;
    }
  }

  /** An ending hook that throws is a fault of the gateway: logged, and the queue goes on. */
  #tell(hook: () => void): void {
    try {
      hook();
    } catch (err) {
      this.#logError(err);
    }
  }

  #control(item: T, exec: Execution<S>): StageControl {
    return {
      signal: exec.abort.signal,
      checkpoint: async () => {
        if (exec.abort.signal.aborted || this.#stopped) throw new CancelledError();
        if (!exec.paused) return;
        this.#lane.pausedAt?.(item);
        await new Promise<void>((resolve) => {
          exec.resumeWaiters.push(resolve);
          exec.abort.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a cancel may have come while paused
        if (exec.abort.signal.aborted) throw new CancelledError();
      },
      track: (child) => {
        exec.children.add(child);
        if (exec.abort.signal.aborted) child.kill('SIGKILL');
        else if (exec.paused) child.kill('SIGSTOP');
        const forget = () => exec.children.delete(child);
        child.once('exit', forget);
        return () => {
          forget();
        };
      },
      progress: (fraction) => {
        if (this.#stopped) return;
        this.#lane.progress?.(item, Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 1000);
      },
    };
  }
}

function killAll(exec: Execution<string>): void {
  for (const child of exec.children) {
    child.kill('SIGCONT'); // a stopped process cannot handle the kill until continued
    child.kill('SIGKILL');
  }
}
