/**
 * What makes a run usable as a release gate: a config file that can hold any
 * option, the extra failing conditions (--fail-on, --min-coverage), waiting
 * for the target to come up, TLS options for an HTTPS target, and hints that
 * name the command the suite was started with.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
// The module object, not named imports: getCACertificates and setDefaultCACertificates are newer than
// some Node 22 releases the release bundle runs on, and a missing named import fails the whole bundle at
// load, before its Node version check can say anything (applyTls feature-detects them).
import tls from 'node:tls';
import type { CheckResult, Coverage, Outcome } from './runner/result.ts';

export class UsageError extends Error {}

/** The outcomes --fail-on can turn into a failed run (FAIL and ERROR always fail it). */
const FAIL_ON = ['skipped', 'flaky', 'non_strict', 'informational'] as const;
export type FailOn = (typeof FAIL_ON)[number];
const OUTCOME_OF: Record<FailOn, Outcome> = {
  skipped: 'SKIPPED',
  flaky: 'FLAKY',
  non_strict: 'NON_STRICT',
  informational: 'INFORMATIONAL',
};

export function parseFailOn(values: readonly string[] | undefined): FailOn[] {
  const out: FailOn[] = [];
  for (const part of (values ?? []).flatMap((v) => v.split(','))) {
    const name = part.trim().toLowerCase().replace(/-/g, '_');
    if (name === '') continue;
    if (!(FAIL_ON as readonly string[]).includes(name))
      throw new UsageError(`--fail-on takes ${FAIL_ON.join(', ')}; got ${JSON.stringify(part.trim())}`);
    if (!out.includes(name as FailOn)) out.push(name as FailOn);
  }
  return out;
}

export function parsePercent(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.trim().replace(/%$/, ''));
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100)
    throw new UsageError(`--min-coverage must be a percentage from 0 to 100, got ${JSON.stringify(text)}`);
  return n;
}

/** Why the run fails the gate beyond FAIL and ERROR; empty when it passes. */
export function gateReasons(
  results: readonly CheckResult[],
  cov: Coverage,
  gate: { failOn: readonly FailOn[]; minCoverage?: number | undefined },
): string[] {
  const reasons: string[] = [];
  for (const f of gate.failOn) {
    const hit = results.filter((r) => r.outcome === OUTCOME_OF[f]);
    if (hit.length > 0) {
      const names = hit
        .slice(0, 5)
        .map((r) => r.id)
        .join(', ');
      reasons.push(
        `--fail-on ${f}: ${hit.length} check${hit.length === 1 ? '' : 's'} ${OUTCOME_OF[f]} (${names}${hit.length > 5 ? ', …' : ''})`,
      );
    }
  }
  if (gate.minCoverage !== undefined) {
    const pct = cov.checkable === 0 ? 0 : (cov.exercised / cov.checkable) * 100;
    if (pct < gate.minCoverage)
      reasons.push(
        `--min-coverage ${gate.minCoverage}%: ${cov.exercised} of ${cov.checkable} checkable clauses exercised (${pct.toFixed(1)}%)`,
      );
  }
  return reasons;
}

// ------------------------------------------------------------------ config file

/** Looked for in the working folder when --config is not given. */
const CONFIG_FILE = 'mas-conformance.config.json';

type OptionSpec = Readonly<Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>;

/**
 * The options of a config file, as parseArgs would give them. Keys are the
 * long option names (`base-url`) or their camelCase (`baseUrl`); a string
 * option may hold a number, a repeatable one a list. Unknown keys and wrong
 * types are usage errors: a typo must not silently widen a gate.
 */
export function readConfig(
  file: string | undefined,
  options: OptionSpec,
  cwd = process.cwd(),
): { file: string | null; values: Record<string, string | boolean | string[]> } {
  const path = file === undefined ? resolve(cwd, CONFIG_FILE) : resolve(cwd, file);
  if (file === undefined && !existsSync(path)) return { file: null, values: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`the config file ${path} cannot be read as JSON: ${(err as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new UsageError(`the config file ${path} must hold a JSON object of options`);
  const values: Record<string, string | boolean | string[]> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const name = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const spec = options[name];
    if (spec === undefined || name === 'config' || name === 'help' || name === 'version')
      throw new UsageError(`the config file ${path}: unknown option ${JSON.stringify(key)}`);
    const bad = (): never => {
      throw new UsageError(
        `the config file ${path}: ${JSON.stringify(key)} must be ${spec.type === 'boolean' ? 'true or false' : spec.multiple === true ? 'a string or a list of strings' : 'a string or a number'}`,
      );
    };
    if (spec.type === 'boolean') {
      if (typeof value !== 'boolean') bad();
      values[name] = value as boolean;
    } else if (spec.multiple === true) {
      const list = Array.isArray(value) ? value : [value];
      if (!list.every((v) => typeof v === 'string' || typeof v === 'number')) bad();
      values[name] = list.map(String);
    } else {
      if (typeof value !== 'string' && typeof value !== 'number') bad();
      values[name] = String(value);
    }
  }
  return { file: path, values };
}

// ------------------------------------------------------------------ how the suite was started

let releaseInvocation: string | undefined;

/** Set by the release bundle's entry (conformance/release/entry.ts), which knows how it was started. */
export function setInvocation(prefix: string): void {
  releaseInvocation = prefix;
}

/**
 * The command prefix a printed hint should use: the packed bin under npx,
 * `npm run conformance --` in a checkout started through npm, else node with
 * the script's path.
 */
export function invocation(env: NodeJS.ProcessEnv = process.env, script: string = import.meta.filename): string {
  if (releaseInvocation !== undefined) return releaseInvocation;
  if (env.npm_lifecycle_event === 'conformance') return 'npm run conformance --';
  if (env.npm_lifecycle_event === 'conformance:reference') return 'npm run conformance:reference --';
  if (/[\\/]dist[\\/]conformance[\\/]/.test(script) || script.endsWith('.js')) return 'npx mas-conformance';
  return 'node conformance/cli.ts';
}

// ------------------------------------------------------------------ the target

/**
 * Polls GET /health until the target answers (below 500; with `anyStatus`, any HTTP answer at all) or
 * `seconds` pass: null once it does, else why not (cli/run-suite.ts exits 3 with it).
 */
export async function waitForTarget(
  baseUrl: string,
  seconds: number,
  userAgent: string,
  options: { anyStatus?: boolean } = {},
): Promise<string | null> {
  const until = Date.now() + seconds * 1000;
  let last: string;
  for (;;) {
    try {
      const res = await fetch(new URL('health', baseUrl.replace(/\/?$/, '/')), {
        signal: AbortSignal.timeout(2000),
        headers: { 'user-agent': userAgent },
      });
      await res.arrayBuffer();
      if (res.status < 500 || options.anyStatus === true) return null;
      last = `status ${res.status}`;
    } catch (err) {
      const e = err as { message?: string; cause?: { code?: string; message?: string } };
      last = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
    }
    if (Date.now() >= until) return `the target did not answer GET /health within ${seconds} s (last: ${last})`;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * TLS for an HTTPS target: --ca adds a certificate (e.g. the LAN listener's
 * self-signed one) to those this process trusts; --insecure skips
 * verification altogether (for a throwaway target only).
 */
export function applyTls(options: { insecure?: boolean; ca?: string }): void {
  if (options.ca !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(options.ca, 'utf8');
    } catch (err) {
      throw new UsageError(`--ca ${options.ca} cannot be read: ${(err as Error).message}`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca ${options.ca} holds no PEM certificate`);
    const { getCACertificates, setDefaultCACertificates } = tls as Partial<typeof tls>;
    if (getCACertificates === undefined || setDefaultCACertificates === undefined)
      throw new UsageError(
        `--ca needs tls.setDefaultCACertificates (Node 24.5 or later, or a recent 22): on ${process.version} start the suite with NODE_EXTRA_CA_CERTS=${options.ca} instead`,
      );
    setDefaultCACertificates([...getCACertificates('default'), pem]);
  }
  // Read by every TLS connection this process makes, fetch included.
  if (options.insecure === true) process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
}
