/** The soak's report: its text and Markdown tables and its charts (bench/soak.ts). */
import { lineChart } from './charts.ts';
import { fmt, formatRows, type BenchReport, type Chart } from './lib.ts';
import type { SoakFigures, SoakSample } from './soak-types.ts';

function figuresOf(report: BenchReport): SoakFigures | undefined {
  return report.benchmarks['soak'] as SoakFigures | undefined;
}

export function table(report: BenchReport): string {
  const f = figuresOf(report);
  if (f === undefined) return 'no figures';
  const c = f.counts;
  const rows = [
    ['figure', 'value'],
    ['duration (warm-up)', `${fmt(f.duration_s, 0)} s (${fmt(f.warmup_s, 0)} s)`],
    ['reads (unexpected)', `${c.reads} (${c.reads_unexpected}) ${JSON.stringify(c.reads_by_status)}`],
    ['waits right / all', `${c.waits_right} / ${c.waits} in ${c.wait_rounds} rounds`],
    ['timeout waits right / all', `${c.timeout_waits_right} / ${c.timeout_waits}`],
    ['imports succeeded / all (429)', `${c.imports_succeeded} / ${c.imports} (${c.imports_refused_budget})`],
    [
      'webhook events received / expected',
      `${f.webhooks.received_events} / ${f.webhooks.expected_events} (${f.webhooks.deliveries} deliveries, ${f.webhooks.bad_signatures} bad signatures)`,
    ],
    [
      'RSS slope, 2nd half (MiB/min)',
      `${fmt(f.slopes_second_half.rss_mb_per_min, 3)} (Theil–Sen ${fmt(f.slopes_second_half.rss_theil_sen_mb_per_min, 3)})`,
    ],
    [
      'heap slope, 2nd half (MiB/min)',
      `${fmt(f.slopes_second_half.heap_mb_per_min, 3)} (Theil–Sen ${fmt(f.slopes_second_half.heap_theil_sen_mb_per_min, 3)})`,
    ],
    ['descriptors, quiet: after warm-up → end', `${f.fds_quiet.after_warmup} → ${f.fds_quiet.end}`],
    [
      'event-loop delay: median p50 / max p99 / max',
      `${fmt(f.eld_ms.p50_median, 2)} / ${fmt(f.eld_ms.p99_max, 1)} / ${fmt(f.eld_ms.max, 1)} ms`,
    ],
    ['unexpected, all kinds', String(f.unexpected_total)],
  ];
  const lines = [formatRows(rows), ''];
  for (const e of [...c.read_examples, ...c.wait_examples, ...c.import_failures, ...c.activity_errors, ...f.logged_failure_examples])
    lines.push(`! ${e}`);
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`${name}: ${fmt(value, 3)}`);
  for (const [name, t] of Object.entries(report.targets))
    lines.push(`target ${name} ${t.target}: ${fmt(t.value, 3)} → ${t.met ? 'met' : 'NOT met'}`);
  return lines.join('\n');
}

export function markdown(report: BenchReport): string {
  const f = figuresOf(report);
  if (f === undefined) return 'no figures';
  const c = f.counts;
  const first = f.samples.find((s) => s.phase === 'main');
  const last = f.samples[f.samples.length - 1];
  const out = [
    `${f.minutes} minutes of mixed work (${fmt(f.warmup_s, 0)} s warm-up), ${f.samples.length} samples of the gateway process, each after a full GC.`,
    '',
    '| work | count | right | notes |',
    '|---|---:|---:|---|',
    `| reads (request mix, paced) | ${c.reads} | ${c.reads - c.reads_unexpected} | ${Object.entries(c.reads_by_status)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}; ${c.reads_keepalive_retries} retried after the keep-alive race |`,
    `| SSE waits on held jobs | ${c.waits} | ${c.waits_right} | ${c.wait_rounds} rounds |`,
    `| SSE waits ending in timeout | ${c.timeout_waits} | ${c.timeout_waits_right} | timeout=1 |`,
    `| imports of a synthetic meeting (m4a) | ${c.imports} | ${c.imports_succeeded} | ${c.imports_refused_budget} refused with 429 import_budget_full |`,
    `| webhook job events (signed) | ${f.webhooks.expected_events} | ${f.webhooks.received_events} | ${f.webhooks.deliveries} deliveries, ${f.webhooks.bad_signatures} bad signatures |`,
    '',
    '| gateway process | after warm-up | end | second-half slope (MiB/min) |',
    '|---|---:|---:|---:|',
    `| RSS MiB (post-GC) | ${fmt(first?.rss_mb, 1)} | ${fmt(last?.rss_mb, 1)} | ${fmt(f.slopes_second_half.rss_mb_per_min, 3)} (Theil–Sen ${fmt(f.slopes_second_half.rss_theil_sen_mb_per_min, 3)}) |`,
    `| heap used MiB (post-GC) | ${fmt(first?.heap_used_mb, 1)} | ${fmt(last?.heap_used_mb, 1)} | ${fmt(f.slopes_second_half.heap_mb_per_min, 3)} (Theil–Sen ${fmt(f.slopes_second_half.heap_theil_sen_mb_per_min, 3)}) |`,
    `| open descriptors, nothing in flight | ${f.fds_quiet.after_warmup ?? '–'} | ${f.fds_quiet.end ?? '–'} | |`,
    `| event-loop delay ms: median of p50s / worst p99 / max | ${fmt(f.eld_ms.p50_median, 2)} | ${fmt(f.eld_ms.p99_max, 1)} | max ${fmt(f.eld_ms.max, 1)} |`,
  ];
  for (const e of [...c.read_examples, ...c.wait_examples, ...c.import_failures, ...c.activity_errors, ...f.logged_failure_examples])
    out.push(`- unexpected: ${e.replace(/\|/g, '\\|')}`);
  return out.join('\n');
}

export function charts(report: BenchReport): Chart[] {
  const f = figuresOf(report);
  if (f === undefined) return [];
  const m = (s: SoakSample): number => s.t_s / 60;
  const markers = [{ x: f.warmup_s / 60, label: 'warm-up ends' }];
  return [
    {
      name: 'memory',
      title: `Gateway memory over the ${f.minutes}-minute soak (post-GC)`,
      svg: lineChart({
        title: `Gateway memory over ${f.minutes} minutes (post-GC)`,
        xLabel: 'minutes',
        yLabel: 'MiB',
        series: [
          { name: 'RSS', points: f.samples.map((s) => [m(s), s.rss_mb]) },
          { name: 'heap used', points: f.samples.map((s) => [m(s), s.heap_used_mb]) },
          { name: 'external', points: f.samples.map((s) => [m(s), s.external_mb]) },
        ],
        markers,
      }),
    },
    {
      name: 'fds',
      title: `Gateway open descriptors over the ${f.minutes}-minute soak (with work in flight)`,
      svg: lineChart({
        title: `Open descriptors over ${f.minutes} minutes`,
        xLabel: 'minutes',
        yLabel: 'descriptors',
        series: [{ name: 'fds', points: f.samples.map((s) => [m(s), s.fds ?? Number.NaN]) }],
        markers,
      }),
    },
    {
      name: 'event-loop-delay',
      title: `Gateway event-loop delay over the ${f.minutes}-minute soak`,
      svg: lineChart({
        title: `Event-loop delay over ${f.minutes} minutes (per sample interval)`,
        xLabel: 'minutes',
        yLabel: 'ms',
        series: [
          { name: 'p50', points: f.samples.map((s) => [m(s), s.eld_p50_ms]) },
          { name: 'p99', points: f.samples.map((s) => [m(s), s.eld_p99_ms]) },
          { name: 'max', points: f.samples.map((s) => [m(s), s.eld_max_ms]) },
        ],
        markers,
      }),
    },
  ];
}
