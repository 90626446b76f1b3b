/**
 * The benchmark machinery works and writes a well-formed report. A tiny run
 * (fractions of a second, a few hundred requests, stores of 10 and 20
 * meetings) goes through bench/run.ts exactly as `npm run bench` does.
 * Nothing here depends on timing: shapes are asserted, never speeds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { COMMON_TERM, meetingSeed, PHRASE, QUERY_MIX, RARE_TERM } from './corpus.ts';
import { HTTP_FIGURES, httpSeconds, perRoundRatios, throughput } from './core.ts';
import { latencyStats, percentile, ratio, target } from './lib.ts';
import { BENCHMARKS, parseArgs } from './run.ts';

const RUN = fileURLToPath(new URL('./run.ts', import.meta.url));

function isStats(value: unknown): boolean {
  const s = value as Record<string, unknown>;
  return ['count', 'mean', 'p50', 'p90', 'p99', 'max'].every((k) => typeof s[k] === 'number');
}

test('a tiny core run through run.ts writes a well-formed bench-core.json', { timeout: 120_000 }, async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'mas-bench-test-'));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [RUN, '--only', 'core', '--tiny', `--out-dir=${outDir}`], {
      timeout: 110_000,
      maxBuffer: 8 * 2 ** 20,
    });
    assert.match(stdout, /bench core/);
    assert.match(stdout, /whoami_vs_bare_express/);

    const report = JSON.parse(readFileSync(join(outDir, 'bench-core.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(report).sort(), ['baselines', 'benchmarks', 'config', 'generated_at', 'machine', 'ratios', 'targets']);
    assert.ok(!Number.isNaN(Date.parse(report['generated_at'] as string)));

    const m = report['machine'] as Record<string, unknown>;
    assert.equal(typeof m['cpus'], 'number');
    assert.equal(m['node'], process.version);
    assert.equal(typeof m['platform'], 'string');

    const b = report['benchmarks'] as Record<string, Record<string, unknown>>;
    for (const key of HTTP_FIGURES.map(([k]) => k)) {
      assert.ok(b[key] !== undefined, key);
      assert.ok((b[key]['requests'] as number) > 0, `${key} made requests`);
      assert.equal(b[key]['errors'], 0, `${key}: no connection error`);
      assert.equal(b[key]['non2xx'], 0, `${key}: every answer was 2xx`);
      assert.equal(typeof b[key]['rps'], 'number');
      assert.equal((b[key]['rounds_rps'] as unknown[]).length, 1, `${key}: one round in a tiny run`);
      const latency = b[key]['latency_ms'] as Record<string, unknown>;
      for (const k of ['mean', 'p50', 'p90', 'p99', 'max']) assert.equal(typeof latency[k], 'number', `${key} latency ${k}`);
    }
    for (const [key, meetings] of [
      ['search_small', 10],
      ['search_large', 20],
    ] as const) {
      assert.equal(b[key]!['meetings'], meetings);
      assert.equal(b[key]!['segments'], meetings * 5);
      assert.equal(b[key]!['errors'], 0);
      assert.ok((b[key]!['queries'] as number) > 0);
      assert.ok(isStats(b[key]!['latency_ms']));
      const byQuery = b[key]!['by_query'] as Record<string, unknown>;
      assert.deepEqual(Object.keys(byQuery), [...QUERY_MIX]);
      for (const stats of Object.values(byQuery)) assert.ok(isStats(stats));
    }

    const ratios = report['ratios'] as Record<string, unknown>;
    assert.deepEqual(Object.keys(ratios).sort(), [
      'meetings_vs_bare_http',
      'meetings_vs_bare_http_cpu',
      'search_p99_growth',
      'search_vs_bare_http',
      'search_vs_bare_http_cpu',
      'whoami_vs_bare_express',
      'whoami_vs_bare_express_cpu',
      'whoami_vs_bare_http',
      'whoami_vs_bare_http_cpu',
    ]);
    for (const [name, v] of Object.entries(ratios)) {
      // CPU is counted in 10 ms ticks: a one-second tiny run on a busy machine may count none for a server.
      if (name.endsWith('_cpu')) assert.ok(v === null || typeof v === 'number', name);
      else assert.equal(typeof v, 'number', name);
    }

    const targets = report['targets'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(targets).sort(), [
      'meetings_vs_bare_http',
      'search_p99_growth',
      'search_vs_bare_http',
      'whoami_vs_bare_express',
    ]);
    for (const t of Object.values(targets)) {
      assert.equal(typeof t['target'], 'string');
      assert.equal(typeof t['met'], 'boolean');
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});

test('percentiles are nearest-rank; stats of an empty sample are NaN, not a crash', () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(sorted, 50), 50);
  assert.equal(percentile(sorted, 99), 99);
  assert.equal(percentile(sorted, 100), 100);
  assert.equal(percentile([7], 99), 7);
  assert.ok(Number.isNaN(percentile([], 50)));
  const stats = latencyStats([3, 1, 2]);
  assert.deepEqual([stats.count, stats.p50, stats.max, stats.mean], [3, 2, 3, 2]);
  assert.ok(Number.isNaN(latencyStats([]).p99));
});

test('ratios and targets: a missing figure never meets a target', () => {
  assert.equal(ratio(9, 10), 0.9);
  assert.equal(ratio(null, 10), null);
  assert.equal(ratio(1, 0), null);
  assert.deepEqual(target(0.95, { min: 0.9 }), { target: '>= 0.9', value: 0.95, met: true });
  assert.deepEqual(target(3.5, { max: 3 }), { target: '<= 3', value: 3.5, met: false });
  assert.equal(target(null, { min: 0.9 }).met, false);
});

test('a throughput figure is the median round; its totals cover every round', () => {
  const round = (rps: number, p99: number) => ({
    rps,
    requests: rps * 8,
    errors: 0,
    non2xx: rps === 300 ? 2 : 0,
    latency_ms: { mean: 1, p50: 1, p90: 1, p99, max: 9 },
    server_cpu_us: rps === 100 ? null : 1e4 / rps,
  });
  const t = throughput([round(300, 3), round(100, 1), round(200, 2)]);
  assert.equal(t.rps, 200);
  assert.equal(t.latency_ms.p99, 2, 'the latency of the median round');
  assert.deepEqual(t.rounds_rps, [300, 100, 200]);
  assert.equal(t.requests, 4800);
  assert.equal(t.non2xx, 2);
  assert.equal(t.server_cpu_us, (1e4 / 300 + 1e4 / 200) / 2, 'the median of the rounds that have the figure');
  assert.equal(throughput([]).rps, null);
});

test('each ratio comes twice: throughput (gateway over baseline) and CPU per request (baseline over gateway)', () => {
  const fig = (rps: number, cpu: number | null) => ({
    rps,
    requests: rps,
    errors: 0,
    non2xx: 0,
    latency_ms: { mean: 1, p50: 1, p90: 1, p99: 1, max: 1 },
    server_cpu_us: cpu,
  });
  const r = perRoundRatios({
    whoami_gateway: [fig(900, 110), fig(1000, 100), fig(1100, 90)],
    whoami_bare_express: [fig(1000, 100), fig(1000, 100), fig(1000, 100)],
    meetings_gateway: [fig(500, 400)],
    meetings_bare_http: [fig(1000, null)],
  });
  assert.equal(r['whoami_vs_bare_express'], 1, 'the median of 0.9, 1, 1.1');
  assert.equal(r['whoami_vs_bare_express_cpu'], 1, 'the median of 100/110, 1, 100/90');
  assert.equal(r['meetings_vs_bare_http'], 0.5);
  assert.equal(r['meetings_vs_bare_http_cpu'], null, 'a round without the CPU figure');
  assert.equal(r['search_vs_bare_http'], null, 'no rounds at all');
});

test('--http-seconds shortens the throughput figures; nonsense is refused', () => {
  assert.equal(httpSeconds(undefined, 8), 8);
  assert.equal(httpSeconds({ 'http-seconds': '2' }, 8), 2);
  assert.equal(httpSeconds({ 'http-seconds': '0.5' }, 8), 0.5);
  assert.throws(() => httpSeconds({ 'http-seconds': '0' }, 8), /above 0/);
  assert.throws(() => httpSeconds({ 'http-seconds': 'soon' }, 8), /above 0/);
  assert.equal(parseArgs(['--only', 'core', '--http-seconds', '2']).options['http-seconds'], '2');
});

test('run.ts arguments: all benchmarks but the opt-in ones by default, --only picks, unknown names are refused', () => {
  // summary-quality needs the QMSum data set, rtf takes hours, detection idles ten minutes, identification
  // transcribes many meetings: each runs only when named.
  const optIn = ['summary-quality', 'rtf', 'detection', 'identification'];
  assert.deepEqual(
    parseArgs([]).only,
    Object.keys(BENCHMARKS).filter((name) => !optIn.includes(name)),
  );
  for (const name of optIn) assert.deepEqual(parseArgs(['--only', name]).only, [name]);
  assert.deepEqual(parseArgs(['--only', 'summary-quality']).only, ['summary-quality']);
  assert.deepEqual(parseArgs(['--only', 'rtf', '--lengths', '5']).only, ['rtf']);
  assert.ok(parseArgs([]).only.includes('core'));
  assert.equal(parseArgs([]).tiny, false);
  assert.deepEqual(parseArgs(['--only', 'core', '--tiny']).only, ['core']);
  assert.equal(parseArgs(['--only=core', '--tiny']).tiny, true);
  assert.throws(() => parseArgs(['--only', 'nope']), /no benchmark named nope/);
  assert.throws(() => parseArgs(['--fast']), /unknown argument/);
});

test('the corpus is deterministic and plants the query terms at about their rates', () => {
  assert.deepEqual(meetingSeed(42, 10), meetingSeed(42, 10));
  assert.notDeepEqual(meetingSeed(42, 10), meetingSeed(43, 10));
  const segments = Array.from({ length: 400 }, (_, i) => meetingSeed(i, 50).segments).flat();
  const share = (re: RegExp): number => segments.filter((s) => re.test(s.text)).length / segments.length;
  const common = share(new RegExp(`\\b${COMMON_TERM}\\b`));
  assert.ok(common > 0.015 && common < 0.06, `${COMMON_TERM} in ${common}`);
  assert.ok(share(new RegExp(`\\b${PHRASE.join(' ')}\\b`)) > 0.001);
  assert.ok(share(new RegExp(`\\b${RARE_TERM}\\b`)) < 0.001);
  const seed = meetingSeed(5, 3);
  assert.equal(seed.segments.length, 3);
  assert.ok(seed.segments.every((s) => s.end > s.start));
  assert.ok(!Number.isNaN(Date.parse(seed.created_at)));
});

test('a bench script asked for --help prints its usage and exits 0; a mistyped flag gets one line and exit 2', async () => {
  const run = promisify(execFile);
  const script = fileURLToPath(new URL('./rtf.ts', import.meta.url));
  const help = await run(process.execPath, [script, '--help']);
  assert.match(help.stdout, /^use node bench\/rtf\.ts \[--lengths/);
  const wrong = await run(process.execPath, [script, '--lenghts=5']).then(
    () => assert.fail('a mistyped flag must not run the benchmark'),
    (err: unknown) => err as { code: number; stderr: string },
  );
  assert.equal(wrong.code, 2);
  assert.equal(wrong.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
  assert.match(wrong.stderr, /unknown argument --lenghts/);
  const nonsense = await run(process.execPath, [script, '--lengths=0']).then(
    () => assert.fail('a nonsense value must not run the benchmark'),
    (err: unknown) => err as { code: number; stderr: string },
  );
  assert.equal(nonsense.code, 2, 'a value the script refuses is a usage error too');
  assert.match(nonsense.stderr, /^--lengths: minutes from above 0/);
});
