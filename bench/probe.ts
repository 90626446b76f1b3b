/**
 * A preload for the gateway child of the load, wait and soak benchmarks:
 * `node --import bench/probe.ts server/main.ts …`, started with fork() so an
 * IPC channel exists. It measures the gateway process from the inside without
 * a line of bench code in server/:
 *
 *   sample {gc}   process.memoryUsage(), the open file descriptors
 *                 (/proc/self/fd), and the event-loop delay since the
 *                 previous sample (perf_hooks.monitorEventLoopDelay, 10 ms
 *                 resolution). With gc (and --expose-gc) a full GC runs
 *                 *after* the delay histogram is read and the histogram is
 *                 reset after it, so the forced pause never shows up as
 *                 event-loop delay, and the memory figures are post-GC (much
 *                 less noisy than the allocator's RSS at a random moment).
 *
 * Replies use the ChildServer.call protocol of bench/lib.ts ({id, cmd} in,
 * {reply: id, result | error} out). When the parent goes away (the channel
 * disconnects) the probe sends SIGTERM to its own process, so a crashed bench
 * never leaves a gateway behind.
 */
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface ProbeSample {
  /** performance.timeOrigin-independent wall clock of the sample, ms since the epoch. */
  at_ms: number;
  rss: number;
  heap_used: number;
  heap_total: number;
  external: number;
  array_buffers: number;
  /** Entries of /proc/self/fd, or null where /proc is missing. */
  fds: number | null;
  /** Event-loop delay since the previous sample, in ms (NaN-free: 0 when no tick was measured). */
  eld_ms: { mean: number; p50: number; p99: number; max: number };
  gc: boolean;
}

const RESOLUTION_MS = 10;
const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();

function fdCount(): number | null {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return null;
  }
}

/** Nanoseconds of the histogram to ms; monitorEventLoopDelay adds its own resolution to every delay, so it is taken off. */
function ms(ns: number): number {
  if (!Number.isFinite(ns) || ns <= 0) return 0;
  return Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 1000) / 1000);
}

export function takeSample(runGc: boolean): ProbeSample {
  const eld = { mean: ms(histogram.mean), p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
  const gc = (globalThis as { gc?: () => void }).gc;
  const didGc = runGc && gc !== undefined;
  if (didGc) gc();
  const m = process.memoryUsage();
  const sample: ProbeSample = {
    at_ms: Date.now(),
    rss: m.rss,
    heap_used: m.heapUsed,
    heap_total: m.heapTotal,
    external: m.external,
    array_buffers: m.arrayBuffers,
    fds: fdCount(),
    eld_ms: eld,
    gc: didGc,
  };
  histogram.reset();
  return sample;
}

if (process.send !== undefined) {
  process.on('message', (raw) => {
    const msg = raw as { id?: unknown; cmd?: unknown; gc?: unknown } | null;
    if (typeof msg?.id !== 'number' || msg.cmd !== 'sample') return;
    try {
      process.send?.({ reply: msg.id, result: takeSample(msg.gc === true) });
    } catch (err) {
      process.send?.({ reply: msg.id, error: err instanceof Error ? err.message : String(err) });
    }
  });
  // The bench is gone: stop the gateway the way Ctrl+C would.
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The IPC channel must not keep a gateway alive that has stopped serving.
  process.channel?.unref();
}
