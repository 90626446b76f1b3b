/**
 * A tiny webhook run through bench/run.ts, as `npm run bench -- --only
 * webhooks --tiny` runs it: 50 signed deliveries and 50 plain POSTs, the
 * first two retry gaps, and a queue bound of 1,000 filled and passed by 10.
 * Shapes only, and what is not a speed: every signature verifies, and every
 * event past the bound is counted as dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TINY } from './webhooks.ts';

const RUN = fileURLToPath(new URL('./run.ts', import.meta.url));

type Obj = Record<string, unknown>;
const num = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

test('a tiny webhook run through run.ts writes a well-formed bench-webhooks.json', { timeout: 120_000 }, async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'mas-bench-test-'));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [RUN, '--only', 'webhooks', '--tiny', `--out-dir=${outDir}`], {
      timeout: 110_000,
      maxBuffer: 8 * 2 ** 20,
    });
    assert.match(stdout, /bench webhooks/);
    assert.match(stdout, /signed_vs_plain/);

    const report = JSON.parse(readFileSync(join(outDir, 'bench-webhooks.json'), 'utf8')) as Obj;
    assert.deepEqual(Object.keys(report).sort(), ['baselines', 'benchmarks', 'config', 'generated_at', 'machine', 'ratios', 'targets']);
    const b = report['benchmarks'] as Record<string, Obj>;
    assert.deepEqual(Object.keys(b).sort(), ['plain_posts', 'queue_memory', 'retry_waits', 'signed_deliveries']);

    const signed = b['signed_deliveries']!;
    assert.equal(signed['events'], TINY.events);
    assert.ok(num((signed['deliveries_per_s'] as Obj)['best']));
    assert.equal(signed['signatures_verified'], TINY.events * TINY.rounds, 'every delivery carried a valid signature');
    assert.equal(signed['signatures_failed'], 0);
    assert.ok((signed['envelope_bytes'] as number) > 0);
    const plain = b['plain_posts']!;
    assert.ok(num((plain['deliveries_per_s'] as Obj)['best']));
    assert.equal(plain['failed'], 0);

    const retry = b['retry_waits']!;
    assert.equal(retry['attempts_recorded'], TINY.retry_attempts);
    const gaps = retry['gaps'] as Obj[];
    assert.deepEqual(
      gaps.map((g) => g['nominal_s']),
      [1, 2],
    );
    for (const g of gaps) assert.ok(num(g['gap_s']) && num(g['error_ms']));

    const memory = b['queue_memory']!;
    assert.equal(memory['queue_limit'], TINY.queue_limit);
    assert.equal(memory['held_after'], TINY.queue_limit, 'the queue was filled to its bound');
    assert.equal(memory['events_dropped'], TINY.over_limit_events, 'every event past the bound was counted as dropped');
    assert.equal(memory['dropped_as_expected'], true);
    assert.ok(num((memory['bytes_per_queued_event'] as Obj)['heap_used']));

    const ratios = report['ratios'] as Obj;
    assert.deepEqual(Object.keys(ratios).sort(), ['signed_vs_plain', 'signed_vs_plain_median']);
    for (const v of Object.values(ratios)) assert.ok(num(v));
    for (const k of Object.keys(ratios)) assert.equal(typeof (report['baselines'] as Obj)[k], 'string');
    const t = (report['targets'] as Record<string, Obj>)['signed_deliveries_per_s']!;
    assert.equal(t['target'], '>= 1000');
    assert.equal(typeof t['met'], 'boolean');
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});
