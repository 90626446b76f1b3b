/**
 * The gateway's background workers in the one order they start in; they stop
 * in the reverse order (decision 117). What must already have happened when
 * a worker starts is what comes before it in the list, and a worker stops
 * only after everything that could still hand it work has stopped.
 */
export interface Worker {
  /** What it is, for a reader of the list. */
  readonly name: string;
  /** At the gateway's start (and each restart): its restart recovery, then it takes work. */
  start(): void;
  /** At restart or quit, synchronously: it takes no more work and writes nothing more. */
  stop(): void;
}

export class Workers {
  readonly #list: readonly Worker[];

  constructor(list: readonly Worker[]) {
    this.#list = list;
  }

  /** The names in start order (tests, readers). */
  get names(): string[] {
    return this.#list.map((w) => w.name);
  }

  start(): void {
    for (const worker of this.#list) worker.start();
  }

  stop(): void {
    for (const worker of [...this.#list].reverse()) worker.stop();
  }
}
