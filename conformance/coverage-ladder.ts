#!/usr/bin/env node
/**
 * How much of the catalog a target without (all of) the Control API gets
 * checked: runs the suite against a spawned reference gateway (reference.ts)
 * the way an implementer would, and counts the clauses each run exercised,
 * by area:
 *
 *   token        one full-scope first-party token (the gateway's startup token), no Control API
 *   tokens-file  the same, plus a tokens file (one token per description the checks ask for)
 *   caps:…       the tokens file plus the Control API limited to some capabilities
 *                (--control-capabilities), added in turn (CAPABILITY_STEPS); the
 *                last step holds every capability
 *   everything   the Control API with every capability, no token
 *
 * Before the token-only runs the gateway's settings are set the way an
 * implementer would set their own application's (webhooks switched on), the
 * tokens of the file are created, and the machine is given a microphone (a
 * simulated input device plugged in, which GET /v1/devices then lists: this
 * machine has no sound hardware, so the reference lists none of its own), all
 * through the Control API, which the suite itself is then not given
 * (docs/decisions/077-conformance-premises-through-the-api.md). Prints a Markdown table (conformance/README.md
 * publishes it); --json FILE writes the counts (coverage-ladder.test.ts reads
 * them from a run of its own).
 *
 *   node conformance/coverage-ladder.ts                      every rung: token, tokens-file, then each capability step
 *   node conformance/coverage-ladder.ts --only 'token tokens-file' [--json FILE] [--keep DIR]
 *   node conformance/coverage-ladder.ts --only capabilities  the capability steps only
 *   node conformance/coverage-ladder.ts --no-microphone ...  without the microphone (a target listing no input device)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startReference } from './reference.ts';
import type { Reference } from './reference.ts';

export const RUNGS = ['token', 'tokens-file', 'everything'] as const;
/**
 * Control API capabilities added in turn to the tokens-file run (cumulative),
 * in the order that unlocks the most first; the last step is every capability.
 */
const CAPABILITY_STEPS: readonly string[][] = [
  ['meetings'],
  ['settings', 'restart'],
  ['webhook-approval'],
  ['jobs'],
  ['devices', 'recording-fault'],
  ['pairings', 'tokens', 'reset'],
];
/** 'token', 'tokens-file', 'everything', or 'caps:meetings,settings,…' (the tokens file plus these capabilities). */
export type Rung = (typeof RUNGS)[number] | `caps:${string}`;

/** The rungs of the capability ladder: caps:meetings, caps:meetings,settings,restart, … */
function capabilityRungs(): Rung[] {
  const out: Rung[] = [];
  let acc: string[] = [];
  for (const step of CAPABILITY_STEPS) {
    acc = [...acc, ...step];
    out.push(`caps:${acc.join(',')}`);
  }
  return out;
}

/**
 * The tokens file: one token per description the checks ask for (scope set,
 * origin, kind), two where a check needs two owners of one description.
 * `scopes: ['admin']` is minted as a token holding no scope.
 */
export const TOKENS_FILE_SPECS: ReadonlyArray<{ scopes: string[]; origin?: string; kind?: string; count?: number }> = [
  { scopes: ['read'], count: 2 },
  { scopes: ['record'] },
  { scopes: ['write'] },
  { scopes: ['delete'] },
  { scopes: ['admin'] },
  { scopes: ['read', 'record'] },
  { scopes: ['read', 'write'], count: 4 },
  { scopes: ['read', 'delete'] },
  { scopes: ['read', 'record', 'write'] },
  { scopes: ['read', 'write', 'delete'] },
  { scopes: ['read', 'record', 'write', 'delete'], count: 2 },
  { scopes: ['read', 'delete'], kind: 'first_party' },
  { scopes: ['read', 'record', 'write'], kind: 'first_party' },
  { scopes: ['read', 'record', 'write', 'delete'], origin: 'paired' },
  { scopes: ['read', 'record'], origin: 'paired' },
  { scopes: ['record'], origin: 'lan' },
  { scopes: ['read', 'record'], origin: 'lan' },
  { scopes: ['write'], kind: 'assistant' },
];

/**
 * The input device plugged in before every rung but 'everything', standing for
 * the microphone of an implementer's machine: without the Control API the
 * recording checks record from an input device GET /v1/devices lists
 * (harness/devices.ts). Silence: the checks grade the recorder, not the audio.
 */
export const MICROPHONE = { name: 'Implementer Microphone', device_type: 'input', script: null } as const;

export interface RungCount {
  rung: Rung;
  exercised: number;
  checkable: number;
  byArea: Record<string, { exercised: number; checkable: number }>;
  outcomes: Record<string, number>;
  seconds: number;
}

const CLI = path.join(import.meta.dirname, 'cli.ts');

function runCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
    child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

async function control(ref: Reference, method: string, route: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${ref.controlUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${ref.controlSecret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Control API ${method} ${route} answered ${res.status} ${text.slice(0, 200)}`);
  return text.length === 0 ? undefined : (JSON.parse(text) as unknown);
}

/** The startup token the gateway printed (full scope, first party). */
function startupToken(ref: Reference): string {
  const m = /Startup token\s+(\S+)/.exec(ref.log());
  if (m === null) throw new Error(`the gateway printed no startup token:\n${ref.log().slice(-1000)}`);
  return m[1]!;
}

function counts(rung: Rung, indexFile: string, seconds: number): RungCount {
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as {
    coverage: { checkable: number; exercised: number; byArea: Array<{ area: string; checkable: number; exercised: number }> };
    summary?: { outcomes?: Record<string, number> };
  };
  const byArea: RungCount['byArea'] = {};
  for (const a of index.coverage.byArea) byArea[a.area] = { exercised: a.exercised, checkable: a.checkable };
  return {
    rung,
    exercised: index.coverage.exercised,
    checkable: index.coverage.checkable,
    byArea,
    outcomes: index.summary?.outcomes ?? {},
    seconds,
  };
}

/**
 * Runs the chosen rungs against one spawned reference gateway; every rung gets a fresh gateway so none sees another's data.
 * `microphone: false`: no input device is plugged in first (what a target listing none gets checked).
 */
export async function measure(
  rungs: readonly Rung[],
  extra: string[] = [],
  keep?: string,
  options: { microphone?: boolean } = {},
): Promise<RungCount[]> {
  const out: RungCount[] = [];
  const dir = keep ?? mkdtempSync(path.join(tmpdir(), 'mas-coverage-ladder-'));
  try {
    for (const rung of rungs) {
      const ref = await startReference();
      try {
        const json = path.join(dir, rung);
        const args = [`--base-url=${ref.baseUrl}`, '--seed', '1', `--json=${json}`, ...extra];
        if (rung === 'everything') args.push(`--control-url=${ref.controlUrl}`, `--control-secret=${ref.controlSecret}`);
        if (rung.startsWith('caps:'))
          args.push(
            `--control-url=${ref.controlUrl}`,
            `--control-secret=${ref.controlSecret}`,
            `--control-capabilities=${rung.slice('caps:'.length)}`,
          );
        if (rung !== 'everything') {
          // What an implementer does in their own application before a token-only run: webhooks on, tokens created.
          await control(ref, 'PATCH', '/control/settings', { webhooks_enabled: true });
          if (options.microphone !== false) await control(ref, 'POST', '/control/devices', MICROPHONE);
          args.push(`--token=${startupToken(ref)}`);
          if (rung !== 'token') {
            const tokens: Array<{ token: string; scopes: string[]; origin: string; kind: string }> = [];
            for (const spec of TOKENS_FILE_SPECS) {
              for (let i = 0; i < (spec.count ?? 1); i++) {
                const minted = (await control(ref, 'POST', '/control/tokens', {
                  scopes: spec.scopes,
                  ...(spec.origin === undefined ? {} : { origin: spec.origin }),
                  ...(spec.kind === undefined ? {} : { kind: spec.kind }),
                  name: `tokens file ${tokens.length + 1}`,
                })) as { token: string; scopes: string[] };
                // Written in full: whoami needs a read-satisfying scope, so a delete-only or scopeless token could not describe itself.
                tokens.push({
                  token: minted.token,
                  scopes: minted.scopes,
                  origin: spec.origin ?? 'loopback',
                  kind: spec.kind ?? 'standard',
                });
              }
            }
            const file = path.join(dir, 'tokens.json');
            writeFileSync(file, JSON.stringify({ tokens }, null, 2));
            args.push(`--tokens=${file}`);
          }
        }
        const started = Date.now();
        const r = await runCli(args);
        // A partial Control API (no reset between checks) may leave state behind that another check trips on:
        // those runs are counted with their outcomes; the published rungs must be clean.
        if (r.code !== 0 && !rung.startsWith('caps:')) throw new Error(`the ${rung} run exited ${r.code}:\n${r.out.slice(-6000)}`);
        out.push(counts(rung, path.join(json, 'index.json'), (Date.now() - started) / 1000));
      } finally {
        await ref.stop();
      }
    }
  } finally {
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/** A column head: the rung, or for a capability step the capabilities it adds. */
function rungLabel(rung: Rung): string {
  if (!rung.startsWith('caps:')) return rung;
  const caps = rung.slice('caps:'.length).split(',');
  const steps = capabilityRungs();
  const i = steps.indexOf(rung);
  const before = i <= 0 ? [] : steps[i - 1]!.slice('caps:'.length).split(',');
  return caps
    .filter((c) => !before.includes(c))
    .map((c) => `+${c}`)
    .join(' ');
}

function markdownTable(rows: readonly RungCount[]): string {
  const areas = [...new Set(rows.flatMap((r) => Object.keys(r.byArea)))].sort();
  const head = `| area | checkable | ${rows.map((r) => rungLabel(r.rung)).join(' | ')} |`;
  const rule = `|---|---:|${rows.map(() => '---:').join('|')}|`;
  const lines = areas.map(
    (a) => `| ${a} | ${rows[0]?.byArea[a]?.checkable ?? 0} | ${rows.map((r) => r.byArea[a]?.exercised ?? 0).join(' | ')} |`,
  );
  const total = `| **all** | **${rows[0]?.checkable ?? 0}** | ${rows.map((r) => `**${r.exercised}**`).join(' | ')} |`;
  return [head, rule, ...lines, total].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, json: { type: 'string' }, keep: { type: 'string' }, 'no-microphone': { type: 'boolean' } },
  });
  const rungs: Rung[] =
    values.only === undefined
      ? ['token', 'tokens-file', ...capabilityRungs()]
      : values.only === 'capabilities'
        ? capabilityRungs()
        : (values.only.split(' ') as Rung[]);
  // --keep DIR: the runs' reports (and the tokens file) stay in DIR for a look at what was skipped and why.
  const rows = await measure(rungs, [], values.keep === undefined ? undefined : path.resolve(values.keep), {
    microphone: values['no-microphone'] !== true,
  });
  process.stdout.write(`${markdownTable(rows)}\n\n`);
  for (const r of rows)
    process.stdout.write(
      `${r.rung}: ${r.exercised}/${r.checkable} exercised in ${r.seconds.toFixed(0)} s; ${JSON.stringify(r.outcomes)}\n`,
    );
  if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(rows, null, 2)}\n`);
}
