/**
 * What the terminal shows: on a TTY one line that updates in place (counts
 * and the running check), with FAIL/ERROR lines kept above it; otherwise (or
 * with CI=true) one plain line per check. Then a summary with every failure.
 */
import type { ProgressEvent } from '../runner/session-types.ts';
import type { CheckResult, Coverage, Outcome } from '../runner/result.ts';
import { OUTCOMES, countOutcomes } from '../runner/result.ts';
import { failureText } from './text.ts';

export interface Writer {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const COLOR: Record<Outcome, string> = {
  PASS: '32',
  FAIL: '31',
  ERROR: '35',
  NON_STRICT: '33',
  INFORMATIONAL: '36',
  SKIPPED: '90',
  FLAKY: '33',
};

export class ConsoleReporter {
  readonly #out: Writer;
  readonly #live: boolean;
  readonly #color: boolean;
  #counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  #started = Date.now();

  constructor(out: Writer, options: { live?: boolean; color?: boolean } = {}) {
    this.#out = out;
    const ci = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
    this.#live = options.live ?? (out.isTTY === true && !ci);
    this.#color = options.color ?? (out.isTTY === true && process.env.NO_COLOR === undefined);
  }

  #paint(o: Outcome, text: string): string {
    return this.#color ? `\x1b[${COLOR[o]}m${text}\x1b[0m` : text;
  }

  #line(text: string): void {
    if (this.#live) this.#out.write('\r\x1b[2K');
    this.#out.write(`${text}\n`);
  }

  #status(text: string): void {
    const width = (this.#out.columns ?? 100) - 1;
    this.#out.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
  }

  handle = (e: ProgressEvent): void => {
    if (e.type === 'setup') {
      this.#line(e.message);
      return;
    }
    if (e.type === 'start') {
      if (this.#live) {
        const c = this.#counts;
        const elapsed = ((Date.now() - this.#started) / 1000).toFixed(0);
        this.#status(
          `[${String(e.index + 1).padStart(String(e.total).length)}/${e.total}] ${elapsed}s pass ${c.PASS} fail ${c.FAIL} error ${c.ERROR} non-strict ${c.NON_STRICT} info ${c.INFORMATIONAL} skip ${c.SKIPPED} flaky ${c.FLAKY}  ${e.check.id}`,
        );
      }
      return;
    }
    if (e.type === 'retry') {
      if (!this.#live) this.#line(`  ${e.check.id}: ${e.first}, running it once more`);
      return;
    }
    const r = e.result;
    this.#counts[r.outcome] += 1;
    const failing = r.outcome === 'FAIL' || r.outcome === 'ERROR' || r.outcome === 'FLAKY' || r.outcome === 'NON_STRICT';
    if (!this.#live || failing) {
      const why =
        r.outcome === 'SKIPPED'
          ? ` (${r.skipReason})`
          : r.outcome === 'ERROR'
            ? ` (${r.error?.message ?? ''})`
            : r.failures.length > 0
              ? ` (${r.failures
                  .map((f) => f.clause)
                  .filter((v, i, a) => a.indexOf(v) === i)
                  .join(', ')})`
              : '';
      this.#line(`${this.#paint(r.outcome, r.outcome.padEnd(13))} ${r.id} ${r.durationMs} ms${why}`);
    }
    if (this.#live && e.index + 1 === e.total) this.#out.write('\r\x1b[2K');
  };

  /** `expected`: ids of failing checks --expected-failures lists (cli/expected-failures.ts prints them apart). */
  summary(results: readonly CheckResult[], cov: Coverage, files: string[], expected: ReadonlySet<string> = new Set()): void {
    const counts = countOutcomes(results);
    const failing = results.filter((r) => (r.outcome === 'FAIL' || r.outcome === 'ERROR') && !expected.has(r.id));
    if (failing.length > 0) {
      this.#out.write('\n');
      for (const r of failing) {
        this.#out.write(`${this.#paint(r.outcome, `── ${r.outcome} ${r.id}`)}: ${r.description}\n`);
        if (r.error !== undefined)
          this.#out.write(`  Error: ${r.error.message}\n${r.error.curl === undefined ? '' : `  curl: ${r.error.curl}\n`}`);
        for (const f of r.failures) this.#out.write(`${failureText(f, '  ')}\n\n`);
        if (r.retry !== undefined) this.#out.write(`  Second run: ${r.retry.outcome}\n\n`);
      }
    }
    const secs = ((Date.now() - this.#started) / 1000).toFixed(1);
    this.#out.write(
      `\n${OUTCOMES.map((o) => (counts[o] > 0 ? this.#paint(o, `${counts[o]} ${o}`) : `${counts[o]} ${o}`)).join(', ')} in ${secs} s\n`,
    );
    this.#out.write(
      `Clauses: ${cov.covered}/${cov.checkable} checkable clauses have checks; ${cov.exercised}/${cov.checkable} exercised in this run.\n`,
    );
    for (const f of files) this.#out.write(`Report: ${f}\n`);
  }
}
