/**
 * The shape of the command table: each `mas` command is a row of data (its
 * name, arguments, options and the function it runs), and command groups
 * (`mas jobs …`) are rows holding rows. cli/commands/ holds one module of rows
 * per resource of API.md; program.ts turns the table into commander commands.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { Context } from './context.ts';

export interface CommandRow {
  name: string;
  description: string;
  /** Positional arguments in commander's notation: ['<id>', 'meeting id']. */
  args?: readonly (readonly [string, string])[];
  options?: readonly OptionRow[];
  /** Receives the positional arguments, then the options object. */
  run: (c: Context, ...args: never[]) => Promise<void>;
}

/** An option as data; program.ts makes a fresh commander Option of it for each program built. */
export interface OptionRow {
  flags: string;
  description: string;
  /** Validates and converts the value (commander's argParser). */
  parse?: (raw: string, previous: never) => unknown;
  choices?: readonly string[];
  default?: string;
  mandatory?: boolean;
}

export interface GroupRow {
  name: string;
  description: string;
  commands: readonly CommandRow[];
}

export type TableRow = CommandRow | GroupRow;

export function isGroup(row: TableRow): row is GroupRow {
  return 'commands' in row;
}

/** An option row in one line: `option('--limit <n>', 'results per page', intArg('--limit', 0))`. */
export function option(flags: string, description: string, parse?: OptionRow['parse']): OptionRow {
  return parse === undefined ? { flags, description } : { flags, description, parse };
}

/** The commander Option of a row. */
export function commanderOption(row: OptionRow): Option {
  const o = new Option(row.flags, row.description);
  // commander types a parser by the value it returns; a row's parser may return any value.
  if (row.parse !== undefined) o.argParser(row.parse as (raw: string, previous: never) => never);
  if (row.choices !== undefined) o.choices(row.choices);
  if (row.default !== undefined) o.default(row.default);
  if (row.mandatory === true) o.makeOptionMandatory();
  return o;
}

/** A whole number of at least `min` (--limit, --timeout, --speakers). */
export function intArg(name: string, min: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < min) throw new InvalidArgumentError(`${name} must be a whole number of at least ${min}`);
    return Number(raw);
  };
}

/** A comma-separated list; the option may also be repeated. */
export function listArg(raw: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  ];
}

/** --timeout, as every waiting command takes it; `withWait` says it only counts with --wait. */
export function timeoutOption(withWait: boolean, what = 'give up after this long (exit 4)'): OptionRow {
  return option('--timeout <seconds>', withWait ? `with --wait: ${what}` : what, intArg('--timeout', 0));
}
