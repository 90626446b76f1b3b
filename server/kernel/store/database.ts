/**
 * Opens the gateway's SQLite file (node:sqlite, built into Node 24) and brings
 * its schema up to date.
 *
 * Durability: WAL journal with synchronous=FULL, so a transaction that has
 * returned is on disk even if the process is killed or the machine loses
 * power right after; a transaction cut short by a crash is rolled back on the
 * next open. Foreign keys are on, so deleting a meeting cascades to its
 * transcript, labels and summary in the same transaction.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { failpoint } from '../failpoints.ts';
import type { Migration } from './migration.ts';
import { MIGRATIONS } from './migrations.ts';
import { prepareDatabaseFile, tightenDatabaseFiles } from './owner-only.ts';

export type Database = DatabaseSync;

/**
 * The rows of a query, typed as the caller's row shape. node:sqlite types a
 * row as a loose record of column values; the SQL text decides which columns
 * there are, so the one cast of a result set lives here.
 */
export function allRows<Row extends object>(statement: StatementSync, ...params: SQLInputValue[]): Row[] {
  return statement.all(...params) as unknown as Row[];
}

export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Database {
  // Owner-only before SQLite creates anything: it holds token hashes and webhook secrets (owner-only.ts).
  if (file !== ':memory:') prepareDatabaseFile(file);
  const db = new DatabaseSync(file, { enableForeignKeyConstraints: true });
  if (file !== ':memory:') {
    db.exec('PRAGMA journal_mode = WAL');
    tightenDatabaseFiles(file); // -wal and -shm now exist (or existed, from an older start)
  }
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA busy_timeout = 5000');
  migrate(db, migrations);
  return db;
}

export function schemaVersion(db: Database): number {
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null } | undefined;
  return row?.v ?? 0;
}

function migrate(db: Database, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const current = schemaVersion(db);
  const newest = migrations.at(-1)?.version ?? 0;
  if (current > newest) {
    throw new Error(`the data folder was written by a newer version (schema ${current}, this build knows ${newest})`);
  }
  for (const m of migrations) {
    if (m.version <= current) continue;
    transaction(db, () => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
      // Inert unless MAS_FAILPOINTS names it: lets the fault tests kill the process mid-migration.
      failpoint('migration.before-commit');
    });
  }
}

/**
 * Runs `work` in one IMMEDIATE transaction: all of it commits, or none of it.
 * Nested calls join the outer transaction.
 */
export function transaction<T>(db: Database, work: () => T): T {
  if (db.isTransaction) return work();
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    // SQLite may already have rolled back by itself (SQLITE_FULL, SQLITE_IOERR …): a second
    // ROLLBACK would throw "no transaction is active" and hide the real error (found by the
    // disk-full fault test, decision 024).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- work() or SQLite may have ended the transaction
    if (db.isTransaction) db.exec('ROLLBACK');
    throw err;
  }
}
