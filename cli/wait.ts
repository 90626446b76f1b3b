/**
 * Following long work to its end: the SSE wait re-opened until a real event
 * or --timeout, and the once-a-second progress redraw beside it. The
 * followers of a job, a summary operation and the recorder live with their
 * commands (cli/commands/).
 */
import type { WaitOperation, WaitResult } from '../client/client.ts';
import { EXIT, Exit, fail, type Context } from './context.ts';

/**
 * Opens waits until one ends with a real event; a timeout event re-opens the
 * wait (the service caps one at an hour) unless the caller's --timeout is spent.
 */
export async function untilEvent<O extends WaitOperation>(
  c: Context,
  timeoutSeconds: number | undefined,
  open: (seconds: number) => Promise<WaitResult<O>>,
  what: string,
): Promise<string> {
  const deadline = timeoutSeconds === undefined ? null : performance.now() + timeoutSeconds * 1000;
  for (;;) {
    const left = deadline === null ? 3600 : Math.max(0, Math.ceil((deadline - performance.now()) / 1000));
    const w = await open(Math.min(3600, left));
    if (!w.ok) fail(c, w);
    if (w.data.event !== 'timeout') return w.data.event;
    if (deadline !== null && performance.now() >= deadline - 500) {
      c.progress.clear();
      c.io.stderr.write(`mas: gave up waiting for ${what} after ${timeoutSeconds ?? 0} s\n`);
      throw new Exit(EXIT.timedOut);
    }
  }
}

/**
 * Redraws the progress line once a second while a terminal watches; nothing
 * otherwise. `line` fetches the text to show (undefined: keep the last). A
 * fetch still in flight when polling stops is dropped, so no stale line lands
 * after the final one. Returns the stop function.
 */
export function poll(c: Context, line: () => Promise<string | undefined>): () => void {
  if (!c.progress.enabled) return () => undefined;
  let stopped = false;
  const run = () => {
    if (stopped) return;
    line().then(
      (text) => {
        if (!stopped && text !== undefined) c.progress.update(text);
      },
      () => undefined,
    );
  };
  run();
  const timer = setInterval(run, 1000);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
