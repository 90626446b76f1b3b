/**
 * The Control API's route table (route-table.ts): every capability GET
 * /control lists is served by rows of the table, and no method and path is
 * claimed twice.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlRouteTable } from './app.ts';
import { CAPABILITIES } from './schemas.ts';

const routes = controlRouteTable({ secret: 'unused', deps: () => assert.fail('no handler runs here'), restart: () => undefined });

test('every capability of CONTROL.md has rows in the table, and every row names one', () => {
  assert.deepEqual(
    CAPABILITIES.filter((c) => !routes.some((r) => r.capability === c)),
    [],
  );
  for (const r of routes) assert.ok((CAPABILITIES as readonly string[]).includes(r.capability), `${r.method} ${r.path}`);
});

test('no method and path is claimed twice, and every path is under /control', () => {
  const keys = routes.map((r) => `${r.method.toUpperCase()} ${r.path}`);
  assert.deepEqual(
    keys.filter((k, i) => keys.indexOf(k) !== i),
    [],
  );
  for (const r of routes) assert.match(r.path, /^\/control\//);
});
