/**
 * The one-line progress display of `mas` (upload bytes and rate, then a
 * job's stage and progress). A small renderer rather than a progress
 * library: the line changes shape between phases, it must vanish entirely
 * when the output is not a terminal, and it is about forty lines
 * (docs/decisions/048-mas-command-line.md).
 *
 * On a terminal it rewrites one line of stderr in place (carriage return and
 * erase-line), at most every 100 ms; when disabled every call is a no-op, so
 * a pipe or a file never sees a control character.
 */
export interface ProgressTarget {
  write(text: string): unknown;
}

export class ProgressLine {
  readonly #out: ProgressTarget;
  readonly #enabled: boolean;
  readonly #now: () => number;
  #last = 0;
  #shown = false;
  #pending: string | null = null;
  #text = '';

  constructor(out: ProgressTarget, enabled: boolean, now: () => number = Date.now) {
    this.#out = out;
    this.#enabled = enabled;
    this.#now = now;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  /** Shows `text` as the current line; `force` skips the rate limit (a phase change). */
  update(text: string, force = false): void {
    if (!this.#enabled || (this.#shown && text === this.#text)) return;
    const now = this.#now();
    if (!force && this.#shown && now - this.#last < 100) {
      this.#pending = text;
      return;
    }
    this.#pending = null;
    this.#last = now;
    this.#shown = true;
    this.#text = text;
    this.#out.write(`\r\x1b[2K${text}`);
  }

  /** Ends the line: shows the final text (or the last one held back) and moves to a new line. */
  done(text?: string): void {
    if (!this.#enabled) return;
    const final = text ?? this.#pending;
    if (final !== null && !(this.#shown && final === this.#text)) this.#out.write(`\r\x1b[2K${final}`);
    if (this.#shown || final !== null) this.#out.write('\n');
    this.#shown = false;
    this.#pending = null;
  }

  /** Removes the line without a trace (before an error message). */
  clear(): void {
    if (!this.#enabled || !this.#shown) return;
    this.#out.write('\r\x1b[2K');
    this.#shown = false;
    this.#pending = null;
  }
}

/** 1536 → "1.5 KB"; decimal units, as file managers show sizes. */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = -1;
  do {
    v /= 1000;
    i += 1;
  } while (v >= 1000 && i < units.length - 1);
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]!}`;
}

/** The upload line: bytes sent of total, percentage and average rate. */
export function uploadLine(name: string, sent: number, total: number | null, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (sent * 1000) / elapsedMs : 0;
  const of = total !== null && total > 0 ? ` / ${formatBytes(total)}  ${Math.floor((sent / total) * 100)}%` : '';
  return `Uploading ${name}  ${formatBytes(sent)}${of}  ${formatBytes(Math.round(rate))}/s`;
}

/** The job line: state, stage and progress. */
export function jobLine(job: { id: string; state: string; stage: string; progress: number }): string {
  return `Job ${job.id}  ${job.state}  ${job.stage}  ${Math.round(job.progress * 100)}%`;
}
