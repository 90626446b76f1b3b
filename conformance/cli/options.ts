/**
 * The options of a run (node:util parseArgs) and the readers of their values:
 * a bad value is a UsageError (exit 2) naming the option.
 */
import type { parseArgs } from 'node:util';
import { UsageError } from '../gate.ts';

export const OPTIONS = {
  'base-url': { type: 'string' },
  'control-url': { type: 'string' },
  'control-secret': { type: 'string' },
  token: { type: 'string' },
  tokens: { type: 'string' },
  'control-capabilities': { type: 'string' },
  'receiver-host': { type: 'string' },
  'lan-host': { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  'min-coverage': { type: 'string' },
  'wait-for-target': { type: 'string' },
  reporter: { type: 'string', multiple: true },
  config: { type: 'string' },
  jobs: { type: 'string' },
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  shard: { type: 'string' },
  slow: { type: 'boolean' },
  fresh: { type: 'boolean' },
  list: { type: 'boolean' },
  seed: { type: 'string' },
  runs: { type: 'string' },
  replay: { type: 'string' },
  'rerun-failed': { type: 'string' },
  'expected-failures': { type: 'string' },
  'write-expected-failures': { type: 'string' },
  'max-failures': { type: 'string' },
  json: { type: 'string' },
  junit: { type: 'string' },
  html: { type: 'string' },
  md: { type: 'string' },
  timeout: { type: 'string' },
  'no-retry': { type: 'boolean' },
  'no-reset': { type: 'boolean' },
  'recorder-alone': { type: 'boolean' },
  keep: { type: 'boolean' },
  'public-webhook-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'help-all': { type: 'boolean' },
  version: { type: 'boolean' },
} as const;

export function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`--${name} must be an integer, got ${JSON.stringify(text)}`);
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function url(name: string, text: string): string {
  try {
    const u = new URL(text);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    return text.replace(/\/+$/, '');
  } catch {
    throw new UsageError(`--${name} must be an http:// or https:// URL, got ${JSON.stringify(text)}`);
  }
}

/** The values of a run's options, as parseArgs reads them. */
export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];
