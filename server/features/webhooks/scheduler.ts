/**
 * Timers behind an interface, so retry waits can be driven by a test.
 *
 * The default calls the global setTimeout at the moment of scheduling (not a
 * reference taken at import), so sinon's fake timers, installed after this
 * module loaded, still drive it. Timers are unref'd: a pending retry never
 * keeps the process alive on its own.
 */
export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const globalScheduler: Scheduler = {
  setTimeout(fn, ms) {
    const handle = globalThis.setTimeout(fn, ms);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout(handle) {
    globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};
