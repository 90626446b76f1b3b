/**
 * The shape of one schema migration. A module of its own so that the list
 * (migrations.ts) and a migration kept in its own file (migration-003-webhooks.ts)
 * both depend on it, and not on each other.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
