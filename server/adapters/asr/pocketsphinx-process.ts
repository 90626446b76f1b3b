/**
 * The pocketsphinx_continuous process: one run with its arguments, its
 * stdout read line by line, cancellation and pausing through the stage's
 * control, and a failure told in the tool's own words (the last ERROR or
 * FATAL line of its log); then the `-time yes` word lines it prints.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { CancelledError, StageError, type StageControl } from '../../pipeline/types.ts';
import type { FileWord } from './spans.ts';

/**
 * Runs pocketsphinx_continuous with `args`, handing each stdout line to
 * `onLine`; a failure becomes a StageError with the last error line of
 * `logFile` (its -logfn) or stderr, a missing binary one marked dependencyMissing.
 */
export async function runPocketSphinx(
  binary: string,
  args: string[],
  logFile: string,
  control: StageControl,
  onLine: (line: string) => void,
): Promise<void> {
  // A function, not the property: the signal may fire at any await (and, within track(), before the listener is added).
  const cancelled = (): boolean => control.signal.aborted;
  if (cancelled()) throw new CancelledError();
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const untrack = control.track(child);
  const kill = () => child.kill('SIGKILL'); // SIGKILL also ends a paused (SIGSTOPped) process
  control.signal.addEventListener('abort', kill, { once: true });
  // A cancel (or a sibling's failure, decision 094) that came while the process was being registered.
  if (cancelled()) kill();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  const lines = createInterface({ input: child.stdout });
  lines.on('line', onLine);
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
    if (cancelled()) throw new CancelledError();
    if (exit.code !== 0) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      const detail = lastErrorLine(`${log}\n${stderr}`);
      const how = exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      throw new StageError(`pocketsphinx ${how}${detail === '' ? '' : `: ${detail}`}`, { retryable: true });
    }
  } catch (err) {
    if (cancelled()) throw new CancelledError();
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new StageError(`${binary} was not found: install the pocketsphinx package`, {
        retryable: true,
        dependencyMissing: true,
        cause: err,
      });
    }
    if (err instanceof StageError) throw err;
    throw new StageError(`pocketsphinx could not run: ${(err as Error).message}`, { retryable: true, cause: err });
  } finally {
    control.signal.removeEventListener('abort', kill);
    lines.close();
    untrack();
  }
}

/**
 * `base` with each option that `overrides` names taking its value there, and
 * the options only `overrides` names appended: pocketsphinx_continuous parses
 * its arguments strictly and refuses an option given twice, so a measurement's
 * options (PocketSphinxOptions.extraArgs) replace the recognizer's defaults
 * rather than repeat them. Both lists are "-name value" pairs.
 */
export function overrideOptions(base: readonly string[], overrides: readonly string[]): string[] {
  const named = new Set(overrides.filter((_, i) => i % 2 === 0));
  const kept: string[] = [];
  for (let i = 0; i + 1 < base.length; i += 2) if (!named.has(base[i]!)) kept.push(base[i]!, base[i + 1]!);
  return [...kept, ...overrides];
}

function lastErrorLine(log: string): string {
  const lines = log.split('\n').filter((l) => /ERROR|FATAL/.test(l));
  return (lines.at(-1) ?? '').trim().slice(0, 300);
}

/** A word line of `-time yes` output: "<word> <start> <end> <posterior>" (the word may hold spaces for keyphrases). */
export function parseTimedLine(line: string): FileWord | null {
  const m = /^(.*\S)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$/.exec(line);
  if (m === null) return null;
  const start = Number(m[2]);
  const end = Number(m[3]);
  if (!(end >= start)) return null;
  // The posterior is printed as exp(log posterior): already a probability, only rounding takes it past 1.
  return { text: m[1]!, start, end, confidence: clamp01(Number(m[4])) };
}

/** Silence, noise and hesitation tokens are not words of the transcript. */
export function isSpokenWord(token: string): boolean {
  if (/^[<[+]/.test(token)) return false; // <s>, </s>, <sil>, [NOISE], [BREATH], ++GARBAGE++
  return !HESITATIONS.has(stripAlternate(token));
}

const HESITATIONS = new Set(['uh', 'um', 'uhm', 'er', 'erm', 'hmm', 'mm', 'mhm']);

/** "yesterday(2)" is the second pronunciation of "yesterday". */
export function stripAlternate(token: string): string {
  return token.replace(/\(\d+\)$/, '');
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.max(0, Math.min(1, x)) : 0;
}
