/**
 * Every alternative (a differently conforming target built by a proxy in
 * front of the reference) passes the checks it names: no false FAIL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startReference } from '../reference.ts';
import { loadChecks } from '../runner/registry.ts';
import { runChecks } from '../runner/run.ts';
import { openSession } from '../runner/session.ts';
import { ALTERNATIVES } from './alternatives.ts';
import { startProxy } from './proxy.ts';

test('no check FAILs a target that conforms differently', { timeout: 300_000 }, async () => {
  const ref = await startReference();
  const loaded = await loadChecks();
  try {
    for (const alt of ALTERNATIVES) {
      const proxy = await startProxy(ref.baseUrl, { ...alt, expect: {} }, { url: ref.controlUrl, secret: ref.controlSecret });
      try {
        const session = await openSession({
          baseUrl: proxy.url,
          controlUrl: ref.controlUrl,
          controlSecret: ref.controlSecret,
          seed: 1,
          runs: 5,
          slow: false,
          fresh: false,
          requestTimeoutMs: 15_000,
        });
        const results = await runChecks(
          loaded.checks.filter((c) => alt.checks.includes(c.id)),
          session,
          { retry: false },
        );
        await session.close();
        assert.equal(results.length, alt.checks.length);
        for (const r of results) {
          assert.ok(
            r.outcome !== 'FAIL' && r.outcome !== 'ERROR',
            `${alt.name}: ${r.id} ${r.outcome}: ${JSON.stringify(r.failures[0] ?? r.error ?? '')}`,
          );
        }
      } finally {
        await proxy.close();
      }
    }
  } finally {
    await ref.stop();
  }
});
