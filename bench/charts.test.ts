/**
 * The SVG writer: well-formed, self-contained output, escaped text, ticks
 * that cover the data, and gaps (not crashes) for missing values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { barChart, escapeXml, histogramLabels, lineChart, niceTicks, shares, tickLabel } from './charts.ts';

/** Every opened element is closed, in order (a tiny XML well-formedness check for what the writer emits). */
function assertBalanced(svg: string): void {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z]+)([^>]*?)(\/?)>/g)) {
    const [, closing, name, , selfClosing] = m;
    if (selfClosing === '/') continue;
    if (closing === '/') assert.equal(stack.pop(), name, `</${name}> closes the last open element`);
    else stack.push(name!);
  }
  assert.deepEqual(stack, [], 'every element is closed');
}

test('a line chart is a self-contained SVG with its title, axes labels, one path per series and markers', () => {
  const svg = lineChart({
    title: 'RSS <over> time & "more"',
    xLabel: 'minutes',
    yLabel: 'MiB',
    series: [
      {
        name: 'rss',
        points: [
          [0, 100],
          [1, 110],
          [2, 105],
        ],
      },
      {
        name: 'heap',
        points: [
          [0, 20],
          [1, Number.NaN],
          [2, 22],
        ],
      },
    ],
    markers: [{ x: 1, label: 'warm-up ends' }],
  });
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.ok(svg.includes('RSS &lt;over&gt; time &amp; &quot;more&quot;'));
  assert.ok(!svg.includes('<over>'));
  assert.equal((svg.match(/<path /g) ?? []).length, 2);
  // The NaN point splits the heap line into two pieces: two moves in its path.
  const heapPath = /<path d="([^"]+)"[^>]*><title>heap<\/title>/.exec(svg)?.[1] ?? '';
  assert.equal((heapPath.match(/M/g) ?? []).length, 2);
  assert.ok(svg.includes('warm-up ends'));
  assert.ok(!/script|href=/i.test(svg), 'no scripts, no external references');
  assertBalanced(svg);
});

test('a bar chart draws one rect per finite value and skips nulls; empty data renders a "no data" frame', () => {
  const svg = barChart({
    title: 'req/s',
    yLabel: 'requests per second',
    categories: ['a', 'b'],
    series: [
      { name: 'gw', values: [10, null] },
      { name: 'bare', values: [20, 30] },
    ],
  });
  assert.equal((svg.match(/<rect [^>]*fill="#(0072B2|E69F00)"><title>/g) ?? []).length, 3);
  assertBalanced(svg);
  for (const empty of [
    barChart({ title: 't', yLabel: 'y', categories: [], series: [] }),
    lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 's', points: [] }] }),
  ]) {
    assert.ok(empty.includes('no data'));
    assertBalanced(empty);
  }
});

test('ticks are round and cover the data; labels are short', () => {
  assert.deepEqual(niceTicks(0, 10), [0, 2, 4, 6, 8, 10]);
  const t = niceTicks(3.2, 97.1);
  assert.ok(t[0]! <= 3.2 && t[t.length - 1]! >= 97.1);
  assert.deepEqual(niceTicks(5, 5).length > 1, true, 'a flat series still gets an axis');
  assert.equal(tickLabel(0.30000000000000004), '0.3');
  assert.equal(tickLabel(25_000), '25k');
  assert.equal(tickLabel(3_000_000), '3M');
});

test('histogram helpers: a label per bucket plus the open one; shares add up to 100', () => {
  assert.deepEqual(histogramLabels([1, 10]), ['≤1', '≤10', '>10']);
  assert.deepEqual(shares([1, 1, 2]), [25, 25, 50]);
  assert.deepEqual(shares([0, 0]), [0, 0]);
  assert.equal(escapeXml(`<a href='x'>&</a>`), '&lt;a href=&apos;x&apos;&gt;&amp;&lt;/a&gt;');
});
