/**
 * A small dependency-free SVG writer for the benchmark report: line charts
 * (time series: memory, descriptors, event-loop delay over a soak) and
 * grouped bar charts (latency histograms, throughput against baselines).
 * The SVG is self-contained (no scripts, no external fonts or styles), so it
 * renders as an <img> in Markdown viewers and can be inlined into HTML.
 *
 * Non-finite values are skipped (a gap, not a crash); an empty chart still
 * renders its frame with a "no data" note.
 */

export interface LineSeries {
  name: string;
  /** [x, y] points; x ascending. */
  points: readonly (readonly [number, number])[];
}

export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly LineSeries[];
  width?: number;
  height?: number;
  /** Force the y axis to start here (default: 0 when every value is >= 0). */
  yMin?: number;
  /** Dashed vertical markers, e.g. the end of the warm-up. */
  markers?: readonly { x: number; label: string }[];
}

export interface BarSeries {
  name: string;
  /** One value per category; null or non-finite draws no bar. */
  values: readonly (number | null)[];
}

export interface BarChartOptions {
  title: string;
  yLabel: string;
  categories: readonly string[];
  series: readonly BarSeries[];
  width?: number;
  height?: number;
  /** Show every n-th category label (long histograms). */
  labelEvery?: number;
}

/** Colour-blind-friendly palette (Okabe–Ito). */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];

const FONT = 'font-family="sans-serif"';
const MARGIN = { top: 40, right: 20, bottom: 58, left: 70 };

/** Escapes text for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** About `count` round tick values (1, 2, 5 × 10^k steps) covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi === lo) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1]! < hi) ticks.push(Number((ticks[ticks.length - 1]! + step).toPrecision(12)));
  return ticks;
}

/** A tick label: short, no float noise. */
export function tickLabel(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${Number((v / 1e3).toPrecision(3))}k`;
  return String(Number(v.toPrecision(4)));
}

function frame(width: number, height: number, title: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold" ${FONT}>${escapeXml(title)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

function legend(names: readonly string[], x: number, y: number): string[] {
  const out: string[] = [];
  let cx = x;
  names.forEach((name, i) => {
    out.push(`<rect x="${cx}" y="${y - 9}" width="12" height="12" fill="${PALETTE[i % PALETTE.length]}"/>`);
    out.push(`<text x="${cx + 16}" y="${y + 1}" font-size="12" ${FONT}>${escapeXml(name)}</text>`);
    cx += 28 + name.length * 7;
  });
  return out;
}

function f(n: number): string {
  return String(Math.round(n * 10) / 10);
}

export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? 720;
  const height = o.height ?? 320;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const pts = o.series.flatMap((s) => s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)));
  const body: string[] = [];
  if (pts.length === 0) {
    body.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
    body.push(`<text x="${width / 2}" y="${height / 2}" text-anchor="middle" font-size="13" ${FONT}>no data</text>`);
    return frame(width, height, o.title, body);
  }
  const xs = pts.map(([x]) => x);
  const ys = pts.map(([, y]) => y);
  const xTicks = niceTicks(Math.min(...xs), Math.max(...xs));
  const yLoData = Math.min(...ys);
  const yTicks = niceTicks(o.yMin ?? (yLoData >= 0 ? 0 : yLoData), Math.max(...ys));
  const [x0, x1] = [xTicks[0]!, xTicks[xTicks.length - 1]!];
  const [y0, y1] = [yTicks[0]!, yTicks[yTicks.length - 1]!];
  const px = (x: number): number => MARGIN.left + ((x - x0) / (x1 - x0 || 1)) * plotW;
  const py = (y: number): number => MARGIN.top + plotH - ((y - y0) / (y1 - y0 || 1)) * plotH;

  for (const t of yTicks) {
    body.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${f(py(t))}" y2="${f(py(t))}" stroke="#e5e5e5"/>`);
    body.push(`<text x="${MARGIN.left - 6}" y="${f(py(t) + 4)}" text-anchor="end" font-size="11" ${FONT}>${tickLabel(t)}</text>`);
  }
  for (const t of xTicks) {
    body.push(`<line x1="${f(px(t))}" x2="${f(px(t))}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH + 4}" stroke="#666"/>`);
    body.push(`<text x="${f(px(t))}" y="${MARGIN.top + plotH + 17}" text-anchor="middle" font-size="11" ${FONT}>${tickLabel(t)}</text>`);
  }
  body.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  for (const m of o.markers ?? []) {
    if (!Number.isFinite(m.x) || m.x < x0 || m.x > x1) continue;
    body.push(
      `<line x1="${f(px(m.x))}" x2="${f(px(m.x))}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#888" stroke-dasharray="4 3"/>`,
    );
    body.push(`<text x="${f(px(m.x) + 4)}" y="${MARGIN.top + 12}" font-size="11" fill="#555" ${FONT}>${escapeXml(m.label)}</text>`);
  }
  o.series.forEach((s, i) => {
    const colour = PALETTE[i % PALETTE.length];
    // A gap in the data (a non-finite point) starts a new path segment.
    let d = '';
    let pen = false;
    for (const [x, y] of s.points) {
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${f(px(x))} ${f(py(y))} `;
      pen = true;
    }
    if (d !== '')
      body.push(`<path d="${d.trim()}" fill="none" stroke="${colour}" stroke-width="1.8"><title>${escapeXml(s.name)}</title></path>`);
  });
  body.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${height - 24}" text-anchor="middle" font-size="12" ${FONT}>${escapeXml(o.xLabel)}</text>`,
  );
  body.push(
    `<text transform="translate(16 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-size="12" ${FONT}>${escapeXml(o.yLabel)}</text>`,
  );
  body.push(
    ...legend(
      o.series.map((s) => s.name),
      MARGIN.left,
      height - 6,
    ),
  );
  return frame(width, height, o.title, body);
}

export function barChart(o: BarChartOptions): string {
  const width = o.width ?? 720;
  const height = o.height ?? 320;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const values = o.series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const body: string[] = [];
  if (values.length === 0 || o.categories.length === 0) {
    body.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
    body.push(`<text x="${width / 2}" y="${height / 2}" text-anchor="middle" font-size="13" ${FONT}>no data</text>`);
    return frame(width, height, o.title, body);
  }
  const yTicks = niceTicks(Math.min(0, ...values), Math.max(0, ...values));
  const [y0, y1] = [yTicks[0]!, yTicks[yTicks.length - 1]!];
  const py = (y: number): number => MARGIN.top + plotH - ((y - y0) / (y1 - y0 || 1)) * plotH;
  const slot = plotW / o.categories.length;
  const barW = Math.max(1, (slot * 0.8) / Math.max(1, o.series.length));
  const every = o.labelEvery ?? 1;

  for (const t of yTicks) {
    body.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${f(py(t))}" y2="${f(py(t))}" stroke="#e5e5e5"/>`);
    body.push(`<text x="${MARGIN.left - 6}" y="${f(py(t) + 4)}" text-anchor="end" font-size="11" ${FONT}>${tickLabel(t)}</text>`);
  }
  o.categories.forEach((c, ci) => {
    const sx = MARGIN.left + ci * slot + slot * 0.1;
    o.series.forEach((s, si) => {
      const v = s.values[ci];
      if (v === null || v === undefined || !Number.isFinite(v)) return;
      const top = py(Math.max(0, v));
      const h = Math.abs(py(v) - py(0));
      body.push(
        `<rect x="${f(sx + si * barW)}" y="${f(top)}" width="${f(barW)}" height="${f(h)}" fill="${PALETTE[si % PALETTE.length]}"><title>${escapeXml(`${s.name}, ${c}: ${tickLabel(v)}`)}</title></rect>`,
      );
    });
    if (ci % every === 0) {
      body.push(
        `<text x="${f(MARGIN.left + ci * slot + slot / 2)}" y="${MARGIN.top + plotH + 15}" text-anchor="middle" font-size="10" ${FONT}>${escapeXml(c)}</text>`,
      );
    }
  });
  body.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  body.push(
    `<text transform="translate(16 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-size="12" ${FONT}>${escapeXml(o.yLabel)}</text>`,
  );
  body.push(
    ...legend(
      o.series.map((s) => s.name),
      MARGIN.left,
      height - 8,
    ),
  );
  return frame(width, height, o.title, body);
}

/** A latency histogram (bench/traffic.ts shape) as category labels: "≤0.1", …, ">10000" ms. */
export function histogramLabels(edgesMs: readonly number[]): string[] {
  return [...edgesMs.map((e) => `≤${tickLabel(e)}`), `>${tickLabel(edgesMs[edgesMs.length - 1] ?? 0)}`];
}

/** Counts as percentages of their total (a histogram of one run next to another of a different size). */
export function shares(counts: readonly number[]): number[] {
  const total = counts.reduce((a, b) => a + b, 0);
  return counts.map((c) => (total === 0 ? 0 : Math.round((c / total) * 10000) / 100));
}
