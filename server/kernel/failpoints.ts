/**
 * Failpoints: named places in the gateway where a fault test can make it
 * stop for a while, so that a kill lands there (docs/decisions/024-faults.md).
 *
 * Driven only by the environment variable MAS_FAILPOINTS, a comma-separated
 * list of `name=milliseconds` (e.g. `migration.before-commit=3000`). Unset or
 * empty, every failpoint is inert: `pause()` returns at once and costs one
 * map lookup. Unknown names are ignored. Read once per process.
 *
 * Failpoints (grep for `failpoint(`):
 * - migration.before-commit: inside each schema migration's transaction,
 *   after its SQL ran and before COMMIT (server/kernel/store/database.ts).
 */
let table: Map<string, number> | null = null;

function parse(raw: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of (raw ?? '').split(',')) {
    const [name, value] = item.split('=').map((s) => s.trim());
    if (name === undefined || name === '' || value === undefined) continue;
    const ms = Number(value);
    if (Number.isFinite(ms) && ms > 0) out.set(name, Math.min(ms, 600_000));
  }
  return out;
}

/**
 * Blocks the whole process (synchronously, like the database work around it)
 * for the time MAS_FAILPOINTS gives `name`; does nothing when it gives none.
 */
export function failpoint(name: string, env: NodeJS.ProcessEnv = process.env): void {
  table ??= parse(env.MAS_FAILPOINTS);
  const ms = table.get(name);
  if (ms === undefined) return;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
