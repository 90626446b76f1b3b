/**
 * The stand-in for a virtual device where PulseAudio cannot run: the device's
 * timeline delivered in real time by a timer straight to the recorder that
 * opened it, inside this process. Same timeline, same pacing as the pacat
 * player; only the transport differs (no sink, no monitor, no parec). Always
 * reported as simulated.
 */
import { DEVICE_SAMPLE_RATE, type PlayTimeline } from './timeline.ts';

const TICK_MS = 20;

export interface InProcessStream {
  close(): void;
}

/** The stream clock of an in-process device: sample index by wall time since it was plugged in. */
export class InProcessClock {
  readonly #t0 = performance.now();

  get now(): number {
    return Math.floor(((performance.now() - this.#t0) * DEVICE_SAMPLE_RATE) / 1000);
  }
}

/**
 * Delivers the timeline from "now" on, every 20 ms, to `onData`. The first
 * chunk comes on the first tick.
 */
export function openInProcessStream(timeline: PlayTimeline, clock: InProcessClock, onData: (samples: Int16Array) => void): InProcessStream {
  let delivered = clock.now;
  let closed = false;
  const timer = setInterval(() => {
    if (closed) return;
    const now = clock.now;
    if (now <= delivered) return;
    const chunk = timeline.read(delivered, now - delivered);
    delivered = now;
    onData(chunk);
  }, TICK_MS);
  return {
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
