/**
 * The runner's aggregate (bench.json, bench.md) and the wrapping of
 * bench/recording.ts, on made-up reports; and a tiny recording run through
 * run.ts when bench/recording.ts is there. Shapes only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { machine, type BenchModule, type BenchReport } from './lib.ts';
import {
  aggregate,
  baselineOf,
  BENCHMARKS,
  commandFor,
  findLongSoak,
  OVERVIEW,
  overviewChart,
  parseArgs,
  recordingModule,
  renderHtml,
  renderMarkdown,
  RECORDING_CONFIG,
  writeCharts,
} from './run.ts';

const RUN = fileURLToPath(new URL('./run.ts', import.meta.url));
const RECORDING = fileURLToPath(new URL('./recording.ts', import.meta.url));

function fakeReport(over: Partial<BenchReport> = {}): BenchReport {
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {},
    benchmarks: { a: { rps: 10 } },
    ratios: { a_vs_b: 0.5, growth: 2 },
    baselines: { growth: 'the small store' },
    targets: { a_vs_b: { target: '>= 0.9', value: 0.5, met: false } },
    ...over,
  };
}

test('every benchmark is listed: core, pipeline, webhooks, and recording while bench/recording.ts exists', () => {
  const names = Object.keys(BENCHMARKS);
  for (const n of ['core', 'pipeline', 'webhooks']) assert.ok(names.includes(n), n);
  assert.equal(names.includes('recording'), existsSync(RECORDING));
  assert.deepEqual(parseArgs(['--only', 'pipeline,webhooks', '--tiny']).only, ['pipeline', 'webhooks']);
  assert.equal(commandFor('webhooks', true), 'npm run bench -- --only webhooks --tiny');
  assert.equal(commandFor('core', false), 'npm run bench -- --only core');
});

test('every ratio gets a baseline: given by the report, known for core, or read from <figure>_vs_<baseline>', () => {
  const r = fakeReport();
  assert.equal(baselineOf('x', 'growth', r), 'the small store');
  assert.equal(baselineOf('x', 'a_vs_b', r), 'b');
  assert.match(baselineOf('core', 'search_p99_growth', fakeReport({ baselines: {} })), /small store/);
  assert.equal(baselineOf('x', 'odd', fakeReport({ baselines: {} })), 'not stated');
});

test('the aggregate holds every figure, ratio (with its baseline) and target, and bench.md shows them with the command', () => {
  const args = parseArgs(['--only', 'core,webhooks']);
  const reports = { core: fakeReport() };
  const parts = {
    core: { seconds: 12.3, ok: true, report_file: 'bench-core.json' },
    webhooks: { seconds: 1, ok: false, report_file: null, error: 'boom' },
  };
  const agg = aggregate(args, parts, reports, 13.3);
  assert.equal(agg.command, 'npm run bench -- --only core,webhooks');
  assert.deepEqual(agg.figures['core'], { config: {}, a: { rps: 10 } });
  assert.deepEqual(agg.ratios, [
    { benchmark: 'core', name: 'a_vs_b', value: 0.5, baseline: 'b' },
    { benchmark: 'core', name: 'growth', value: 2, baseline: 'the small store' },
  ]);
  assert.deepEqual(agg.targets, [{ benchmark: 'core', name: 'a_vs_b', target: '>= 0.9', value: 0.5, met: false }]);
  assert.equal(aggregate(parseArgs([]), {}, {}, 1).command, 'npm run bench');
  assert.equal(aggregate(parseArgs(['--tiny']), {}, {}, 1).command, 'npm run bench -- --tiny');

  const mod: BenchModule = {
    run: () => Promise.resolve(fakeReport()),
    table: () => 'TEXT TABLE\n\na_vs_b: 0.500\ntarget a_vs_b >= 0.9: 0.500 → NOT met',
  };
  const md = renderMarkdown(agg, reports, { core: mod });
  assert.match(md, /^# Benchmarks/);
  assert.match(md, /\| core \| 12\.3 s \| 0 of 1 \| bench-core\.json \| `npm run bench -- --only core` \|/);
  assert.match(md, /\| webhooks \| 1\.0 s \| failed: boom \|/);
  assert.match(md, /```\nTEXT TABLE\n```/, 'a module without markdown() gets its text table');
  assert.match(md, /\| growth \| 2\.000 \| the small store \|/);
  assert.match(md, /\| a_vs_b \| >= 0\.9 \| 0\.500 \| \*\*no\*\* \|/);
});

test('bench/recording.ts is wrapped into a report: figures kept, its config and machine carried over', async () => {
  const seen: unknown[] = [];
  const mod = recordingModule(async (opts) => {
    seen.push({ minutes: opts.minutes, baselineSeconds: opts.baselineSeconds });
    return {
      generated_at: '2026-01-01T00:00:00.000Z',
      machine: machine(),
      config: { script: 'x' },
      fidelity: { correlation: 1, offset_ms: 2 },
      delay: { stop_to_summary_s: null },
    };
  });
  const report = await mod.run({ tiny: true, log: () => undefined });
  assert.deepEqual(seen, [{ ...RECORDING_CONFIG.tiny }]);
  assert.equal(report.generated_at, '2026-01-01T00:00:00.000Z');
  assert.deepEqual(report.config, { script: 'x', tiny: true });
  assert.deepEqual(report.benchmarks, { fidelity: { correlation: 1, offset_ms: 2 }, delay: { stop_to_summary_s: null } });
  assert.deepEqual(report.ratios, {});
  assert.match(mod.markdown!(report), /\| fidelity\.correlation \| 1 \|/);
  assert.match(mod.table(report), /delay\.stop_to_summary_s/);
});

test(
  'a tiny recording run through run.ts writes bench-recording.json',
  { timeout: 180_000, skip: !existsSync(RECORDING) && 'bench/recording.ts is not there' },
  async (t) => {
    const outDir = mkdtempSync(join(tmpdir(), 'mas-bench-test-'));
    try {
      let stdout = '';
      try {
        ({ stdout } = await promisify(execFile)(process.execPath, [RUN, '--only', 'recording', '--tiny', `--out-dir=${outDir}`], {
          timeout: 170_000,
          maxBuffer: 8 * 2 ** 20,
        }));
      } catch (err) {
        const agg = JSON.parse(readFileSync(join(outDir, 'bench.json'), 'utf8')) as { parts: Record<string, { error?: string }> };
        const error = agg.parts['recording']?.error ?? '';
        // Off CI a machine may lack PulseAudio; CI installs it, so there a missing real path fails.
        if (/PulseAudio is not available/.test(error) && (process.env['CI'] ?? '') === '') {
          t.skip(error);
          return;
        }
        throw err;
      }
      assert.match(stdout, /bench recording/);
      const report = JSON.parse(readFileSync(join(outDir, 'bench-recording.json'), 'utf8')) as BenchReport;
      assert.deepEqual(Object.keys(report).sort(), ['benchmarks', 'config', 'generated_at', 'machine', 'ratios', 'targets']);
      assert.equal(report.config['tiny'], true);
      assert.ok(Object.keys(report.benchmarks).length > 0);
      assert.match(readFileSync(join(outDir, 'bench.md'), 'utf8'), /## recording/);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  },
);

test('every benchmark of the report is listed, the load work of issue 7 included', () => {
  const names = Object.keys(BENCHMARKS);
  for (const n of ['core', 'pipeline', 'webhooks', 'recording', 'load', 'sse-waits', 'soak', 'slow-clients'])
    assert.ok(names.includes(n), n);
});

test('charts: written under charts/, linked from bench.md, inlined in bench.html; the overview charts every ratio', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'mas-bench-charts-'));
  try {
    const reports = { core: fakeReport() };
    const agg = aggregate(parseArgs(['--only', 'core']), { core: { seconds: 1, ok: true, report_file: 'bench-core.json' } }, reports, 1);
    const mod: BenchModule = {
      run: () => Promise.resolve(fakeReport()),
      table: () => 'T',
      charts: () => [{ name: 'latency', title: 'Latency <ms>', svg: '<svg xmlns="http://www.w3.org/2000/svg"><title>x</title></svg>' }],
    };
    const files = writeCharts(outDir, agg, reports, { core: mod });
    assert.deepEqual(files['core'], [{ file: 'charts/core-latency.svg', title: 'Latency <ms>' }]);
    assert.equal(files[OVERVIEW]?.[0]?.file, 'charts/overview-ratios.svg');
    assert.ok(existsSync(join(outDir, 'charts', 'core-latency.svg')));
    assert.match(readFileSync(join(outDir, 'charts', 'overview-ratios.svg'), 'utf8'), /core: a \/ b/);
    const md = renderMarkdown(agg, reports, { core: mod }, files);
    assert.match(md, /^Reproduce the whole report with `make bench`/m);
    assert.match(md, /Machine: \d+ cores/);
    assert.match(md, /!\[Latency <ms>\]\(charts\/core-latency\.svg\)/);
    assert.match(md, /!\[[^\]]+\]\(charts\/overview-ratios\.svg\)/);
    const html = renderHtml(md, outDir);
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /<figure><svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"><title>x<\/title><\/svg>/);
    assert.match(html, /<table><thead><tr><th>benchmark<\/th>/);
    assert.equal(overviewChart(aggregate(parseArgs(['--only', 'core']), {}, {}, 1)), null, 'no ratios, no overview chart');
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});

test('the longest soak report left by make soak is found by its file name', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'mas-bench-soaks-'));
  try {
    assert.equal(findLongSoak(outDir), null);
    for (const f of ['bench-soak.json', 'bench-soak-2min.json', 'bench-soak-20min.json', 'bench-soak-0_5min.json'])
      writeFileSync(join(outDir, f), '{}');
    assert.deepEqual(findLongSoak(outDir), { name: 'soak-20min', file: 'bench-soak-20min.json', minutes: 20 });
    assert.equal(findLongSoak(join(outDir, 'missing')), null);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});
