/**
 * Summary quality on real meetings: QMSum (bench/qmsum.ts) transcripts
 * summarized with every template of the extractive summarizer, scored by
 * ROUGE-1/2/L F1 (bench/rouge.ts) against the human summary of the whole
 * meeting, per domain (product = AMI, academic = ICSI, committee) and split,
 * beside LEAD (the transcript's first words, as many as the human summary
 * has), with the summary's length and the time taken. Decision 079.
 *
 *   node bench/summary-quality.ts [--qmsum <dir>] [--splits train,val] [--limit N] [--api N] [--transcripts DIR]
 *     (--qmsum: a QMSum checkout; default $QMSUM_REPO, else the clone `npm run qmsum:fetch` makes)
 *   npm run bench -- --only summary-quality
 *
 * - train is for development, val for the report; the test split is never read.
 * - Every meeting is summarized through the summarizer module directly (an
 *   hour-long meeting through the API costs little more, but the bench runs
 *   hundreds); the first `--api` meetings of each domain and split (default 1)
 *   also go through a real reference gateway (bench/gateway-child.ts): seeded
 *   with POST /control/meetings, summarized with POST …/summary/regenerate,
 *   read back with GET …/summary, and the text must equal the direct one.
 * - --transcripts DIR scores transcripts produced elsewhere (the simulator
 *   renders QMSum meetings as audio and the pipeline transcribes them:
 *   DIR/<split>/<meeting>.json = {meeting, split, domain, transcript: [{speaker, content, start, end}]})
 *   with the same summarizer against the same human summaries, in a second column.
 * - The time marks of the items ("(05:40)") are not words of the summary:
 *   they are left out of the scored text and of its length.
 *
 * Without QMSum the bench says how to get it and exits 2. It is not part of `npm test`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarizeExtractively } from '../server/adapters/summarize/extractive.ts';
import { TEMPLATE_IDS } from '../server/adapters/summarize/templates.ts';
import { startGatewayChild, httpCall, type GatewayChild } from './gateway-child.ts';
import { machine, readFlags, runCli, type BenchReport, type BenchRunOptions } from './lib.ts';
import {
  loadQmsum,
  QMSUM_DOMAINS,
  QmsumMissingError,
  type QmsumDomain,
  type QmsumMeeting,
  type QmsumSplit,
  type QmsumTurn,
} from './qmsum.ts';
import { defaultQmsumRepo } from '../simulator/qmsum/qmsum-repo.ts';
import { rouge, rougeTokens, type RougeScores } from './rouge.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
/** A fixed meeting date, so due dates in the notes are the same at every run. */
const MEETING_DATE = '2026-11-20T09:00:00.000Z';

export interface SummaryQualityConfig {
  source: string;
  splits: QmsumSplit[];
  limit: number | undefined;
  /** Meetings per domain and split also summarized through the API. */
  api: number;
  transcripts: string | undefined;
}

interface Scored extends RougeScores {
  words: number;
  ms: number;
}

interface MeetingResult {
  meeting: string;
  split: QmsumSplit;
  domain: QmsumDomain;
  reference_words: number;
  transcript_words: number;
  lead: RougeScores;
  /** template id → scores on the human transcript. */
  templates: Record<string, Scored>;
  /** meeting_notes on the pipeline's transcript (--transcripts), when there is one. */
  pipeline?: Scored;
  /** meeting_notes on the human transcript cut to the same stretch the pipeline rendered (--transcripts). */
  human_cut?: Scored;
  /** Through the API: the same text as the direct call, and its time; or why the call failed. */
  api?: { same_text: boolean; ms: number } | { error: string };
}

interface Cell {
  meetings: number;
  reference_words: number;
  lead: RougeScores;
  templates: Record<string, Scored>;
  pipeline?: Scored & { meetings: number };
  human_cut?: Scored & { meetings: number };
}

/** The summary's scored text: its sections' lines, without the items' time marks. */
export function scoredText(sections: readonly { text: string }[]): string {
  return sections
    .map((s) => s.text)
    .join('\n')
    .replace(/\((?:\d+:)?\d{1,2}:\d{2}\)\s?/g, '');
}

function segmentsOf(turns: readonly QmsumTurn[]) {
  return turns.map((t) => ({ speaker: t.speaker, speaker_name: null, start: t.start, end: t.end, text: t.content }));
}

function summarize(turns: readonly QmsumTurn[], templateId: string, title: string): { text: string; scored: string; ms: number } {
  const started = performance.now();
  const out = summarizeExtractively({ title, language: 'en', templateId, meetingDate: MEETING_DATE, segments: segmentsOf(turns) });
  return { text: out.text, scored: scoredText(out.sections), ms: performance.now() - started };
}

function score(text: string, reference: string, ms: number): Scored {
  return { ...rouge(text, reference), words: rougeTokens(text).length, ms };
}

/** LEAD: the transcript's first words, as many as the human summary has. */
export function leadText(turns: readonly QmsumTurn[], words: number): string {
  return rougeTokens(turns.map((t) => t.content).join(' '))
    .slice(0, words)
    .join(' ');
}

/**
 * The pipeline's transcript of a meeting: DIR/<split>/<meeting>.json, or
 * DIR/<meeting>.json when DIR is already the split's folder. Only the fields
 * the bench needs are read (the renderer writes more: wer, der, voices …).
 * `seconds` is how much of the meeting was rendered: its `minutes` field, else
 * the last turn's end.
 */
function readPipelineTranscript(
  dir: string,
  m: Pick<QmsumMeeting, 'split' | 'meeting'>,
): { turns: QmsumTurn[]; seconds: number } | undefined {
  const file = [join(dir, m.split, `${m.meeting}.json`), join(dir, `${m.meeting}.json`)].find((f) => existsSync(f));
  if (file === undefined) return undefined;
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {
    split?: unknown;
    minutes?: unknown;
    transcript?: { speaker?: unknown; content?: unknown; start?: unknown; end?: unknown }[];
  };
  if (typeof doc.split === 'string' && doc.split !== m.split) return undefined;
  const num = (x: unknown, fallback: number) => (typeof x === 'number' && Number.isFinite(x) ? x : fallback);
  const turns = (Array.isArray(doc.transcript) ? doc.transcript : []).map((t) => ({
    speaker: typeof t.speaker === 'string' ? t.speaker : 'Speaker',
    content: typeof t.content === 'string' ? t.content : '',
    start: num(t.start, 0),
    end: num(t.end, num(t.start, 0)),
  }));
  const seconds = typeof doc.minutes === 'number' && doc.minutes > 0 ? doc.minutes * 60 : Math.max(0, ...turns.map((t) => t.end));
  return { turns, seconds };
}

/** Whether DIR holds a pipeline transcript of the meeting (the bench then scores only those meetings). */
function hasPipelineTranscript(dir: string, m: Pick<QmsumMeeting, 'split' | 'meeting'>): boolean {
  return existsSync(join(dir, m.split, `${m.meeting}.json`)) || existsSync(join(dir, `${m.meeting}.json`));
}

async function throughApi(gw: GatewayChild, m: QmsumMeeting): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  const seeded = await gw.control<{ id: string }>('POST', '/control/meetings', {
    title: `QMSum ${m.meeting}`,
    created_at: MEETING_DATE,
    segments: m.transcript.map((t) => ({ speaker: t.speaker, start: t.start, end: t.end, text: t.content })),
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await httpCall({ port: gw.apiPort, method, path, token: gw.startupToken, body, timeoutMs: 120_000 });
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 200)}`);
    return JSON.parse(res.text) as Record<string, unknown>;
  };
  const meeting = `/v1/meetings/${encodeURIComponent(seeded.id)}`;
  const op = await call('POST', `${meeting}/summary/regenerate`, { template_id: 'meeting_notes', model: 'extractive' });
  const status = String(op.status_url);
  for (;;) {
    const state = String((await call('GET', status)).state);
    if (state === 'succeeded') break;
    if (state === 'failed') throw new Error(`the regeneration of ${m.meeting} failed`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const summary = await call('GET', `${meeting}/summary`);
  const stored = (summary.result as { text?: unknown } | null)?.text;
  const text = typeof stored === 'string' ? stored : '';
  return { text, ms: performance.now() - started };
}

export async function measure(config: SummaryQualityConfig, log: (line: string) => void): Promise<MeetingResult[]> {
  const loaded = loadQmsum({
    source: config.source,
    splits: config.splits,
    ...(config.limit === undefined ? {} : { limit: config.limit }),
  });
  // With --transcripts, only the meetings the pipeline transcribed are scored.
  const dir = config.transcripts;
  const meetings = dir === undefined ? loaded : loaded.filter((m) => hasPipelineTranscript(dir, m));
  const results: MeetingResult[] = [];
  const apiLeft = new Map<string, number>();
  const gw = config.api > 0 ? await startGatewayChild() : null;
  try {
    for (const m of meetings) {
      const refWords = rougeTokens(m.reference).length;
      const r: MeetingResult = {
        meeting: m.meeting,
        split: m.split,
        domain: m.domain,
        reference_words: refWords,
        transcript_words: rougeTokens(m.transcript.map((t) => t.content).join(' ')).length,
        lead: rouge(leadText(m.transcript, refWords), m.reference),
        templates: {},
      };
      let notesText = '';
      for (const id of TEMPLATE_IDS) {
        const s = summarize(m.transcript, id, m.meeting);
        r.templates[id] = score(s.scored, m.reference, s.ms);
        if (id === 'meeting_notes') notesText = s.text;
      }
      if (config.transcripts !== undefined) {
        const piped = readPipelineTranscript(config.transcripts, m);
        if (piped !== undefined && piped.turns.some((t) => t.content.trim() !== '')) {
          const s = summarize(piped.turns, 'meeting_notes', m.meeting);
          r.pipeline = score(s.scored, m.reference, s.ms);
          // The human transcript cut where the rendering stopped: what the pipeline's figure compares with.
          const cut = m.transcript.filter((t) => t.start < piped.seconds);
          if (cut.length > 0) {
            const h = summarize(cut, 'meeting_notes', m.meeting);
            r.human_cut = score(h.scored, m.reference, h.ms);
          }
        }
      }
      const key = `${m.split}/${m.domain}`;
      if (gw !== null && (apiLeft.get(key) ?? config.api) > 0) {
        apiLeft.set(key, (apiLeft.get(key) ?? config.api) - 1);
        // A transport failure of the loaded machine is reported for that meeting, not fatal to the run.
        try {
          const api = await throughApi(gw, m);
          r.api = { same_text: api.text === notesText, ms: api.ms };
        } catch (err) {
          r.api = { error: err instanceof Error ? err.message : String(err) };
        }
      }
      const n = r.templates['meeting_notes']!;
      log(
        `${m.split} ${m.domain} ${m.meeting}: meeting_notes R1 ${pct(n.rouge1)} R2 ${pct(n.rouge2)} RL ${pct(n.rougeL)} ` +
          `${n.words}/${refWords} words; LEAD R1 ${pct(r.lead.rouge1)}${apiNote(r.api)}`,
      );
      results.push(r);
    }
  } finally {
    await gw?.stop();
  }
  return results;
}

function apiNote(api: MeetingResult['api']): string {
  if (api === undefined) return '';
  return 'error' in api
    ? `; API failed: ${api.error}`
    : `; API ${api.same_text ? 'same text' : 'DIFFERENT text'} in ${api.ms.toFixed(0)} ms`;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function meanScores(rows: readonly RougeScores[]): RougeScores {
  return { rouge1: mean(rows.map((r) => r.rouge1)), rouge2: mean(rows.map((r) => r.rouge2)), rougeL: mean(rows.map((r) => r.rougeL)) };
}

function meanScored(rows: readonly Scored[]): Scored {
  return { ...meanScores(rows), words: mean(rows.map((r) => r.words)), ms: mean(rows.map((r) => r.ms)) };
}

export function cells(results: readonly MeetingResult[]): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  const splits = [...new Set(results.map((r) => r.split))];
  for (const split of splits) {
    for (const domain of [...QMSUM_DOMAINS, 'all'] as const) {
      const rows = results.filter((r) => r.split === split && (domain === 'all' || r.domain === domain));
      if (rows.length === 0) continue;
      const templates: Record<string, Scored> = {};
      for (const id of TEMPLATE_IDS) templates[id] = meanScored(rows.map((r) => r.templates[id]!));
      const piped = rows.flatMap((r) => (r.pipeline === undefined ? [] : [r.pipeline]));
      const cut = rows.flatMap((r) => (r.human_cut === undefined ? [] : [r.human_cut]));
      out[`${split}/${domain}`] = {
        meetings: rows.length,
        reference_words: mean(rows.map((r) => r.reference_words)),
        lead: meanScores(rows.map((r) => r.lead)),
        templates,
        ...(piped.length === 0 ? {} : { pipeline: { ...meanScored(piped), meetings: piped.length } }),
        ...(cut.length === 0 ? {} : { human_cut: { ...meanScored(cut), meetings: cut.length } }),
      };
    }
  }
  return out;
}

function pct(x: number): string {
  return (100 * x).toFixed(1);
}

export function configFrom(opts: Pick<BenchRunOptions, 'tiny' | 'options'>): SummaryQualityConfig {
  const o = opts.options ?? {};
  const limit = o['limit'] !== undefined ? Number(o['limit']) : opts.tiny ? 1 : undefined;
  return {
    source: resolve(o['qmsum'] ?? defaultQmsumRepo()),
    splits: (o['splits'] ?? 'train,val').split(',').map((s) => {
      if (s !== 'train' && s !== 'val') throw new Error(`--splits takes train and val (the test split is never read), not ${s}`);
      return s;
    }),
    limit: limit !== undefined && Number.isFinite(limit) && limit > 0 ? limit : undefined,
    api: o['api'] !== undefined ? Math.max(0, Number(o['api']) || 0) : 1,
    transcripts: o['transcripts'] === undefined ? undefined : resolve(o['transcripts']),
  };
}

export async function run(opts: BenchRunOptions): Promise<BenchReport> {
  const config = configFrom(opts);
  const started = performance.now();
  const results = await measure(config, opts.log);
  const byCell = cells(results);
  const ratios: Record<string, number | null> = {};
  const targets: BenchReport['targets'] = {};
  const valProduct = byCell['val/product'];
  if (valProduct !== undefined) {
    const n = valProduct.templates['meeting_notes']!;
    ratios['val_product_rouge1'] = round3(n.rouge1);
    ratios['val_product_rouge2'] = round3(n.rouge2);
    ratios['val_product_length_vs_human'] = round3(n.words / valProduct.reference_words);
    targets['val_product_rouge1'] = { target: '>= 0.28', value: round3(n.rouge1), met: n.rouge1 >= 0.28 };
    targets['val_product_rouge2'] = { target: '>= 0.06', value: round3(n.rouge2), met: n.rouge2 >= 0.06 };
    targets['val_product_length_vs_human'] = {
      target: '<= 2',
      value: round3(n.words / valProduct.reference_words),
      met: n.words <= 2 * valProduct.reference_words,
    };
  }
  for (const d of QMSUM_DOMAINS) {
    const c = byCell[`val/${d}`];
    if (c === undefined) continue;
    const notes = c.templates['meeting_notes']!;
    ratios[`val_${d}_rouge1_vs_lead`] = c.lead.rouge1 > 0 ? round3(notes.rouge1 / c.lead.rouge1) : null;
    targets[`val_${d}_rouge1_vs_lead`] = {
      target: '> 1',
      value: ratios[`val_${d}_rouge1_vs_lead`] ?? null,
      met: notes.rouge1 > c.lead.rouge1,
    };
  }
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: { ...config, templates: TEMPLATE_IDS, seconds: round3((performance.now() - started) / 1000) },
    benchmarks: { 'summary-quality': { cells: byCell, meetings: results } },
    ratios,
    baselines: { val_product_length_vs_human: 'the human summary of the same meeting' },
    targets,
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function cellsOf(report: BenchReport): Record<string, Cell> {
  return (report.benchmarks['summary-quality'] as { cells: Record<string, Cell> }).cells;
}

export function markdown(report: BenchReport): string {
  const out: string[] = [
    '| split/domain | meetings | human words | template | R-1 | R-2 | R-L | words | ms | LEAD R-1 | LEAD R-2 | LEAD R-L | pipeline R-1/R-2/R-L (words) | human transcript cut the same, R-1/R-2/R-L (words) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [key, c] of Object.entries(cellsOf(report))) {
    for (const id of TEMPLATE_IDS) {
      const t = c.templates[id]!;
      const piped =
        id === 'meeting_notes' && c.pipeline !== undefined
          ? `${pct(c.pipeline.rouge1)} / ${pct(c.pipeline.rouge2)} / ${pct(c.pipeline.rougeL)} (${c.pipeline.words.toFixed(0)}, ${c.pipeline.meetings} meetings)`
          : '';
      const cut =
        id === 'meeting_notes' && c.human_cut !== undefined
          ? `${pct(c.human_cut.rouge1)} / ${pct(c.human_cut.rouge2)} / ${pct(c.human_cut.rougeL)} (${c.human_cut.words.toFixed(0)})`
          : '';
      out.push(
        `| ${key} | ${c.meetings} | ${c.reference_words.toFixed(0)} | ${id} | ${pct(t.rouge1)} | ${pct(t.rouge2)} | ${pct(t.rougeL)} | ` +
          `${t.words.toFixed(0)} | ${t.ms.toFixed(0)} | ${pct(c.lead.rouge1)} | ${pct(c.lead.rouge2)} | ${pct(c.lead.rougeL)} | ${piped} | ${cut} |`,
      );
    }
  }
  return out.join('\n');
}

export function table(report: BenchReport): string {
  const lines = ['split/domain        n  human  notes R1/R2/RL (words)   LEAD R1/R2/RL'];
  for (const [key, c] of Object.entries(cellsOf(report))) {
    const n = c.templates['meeting_notes']!;
    lines.push(
      `${key.padEnd(18)} ${String(c.meetings).padStart(2)}  ${c.reference_words.toFixed(0).padStart(5)}  ` +
        `${pct(n.rouge1)}/${pct(n.rouge2)}/${pct(n.rougeL)} (${n.words.toFixed(0)})`.padEnd(25) +
        `  ${pct(c.lead.rouge1)}/${pct(c.lead.rouge2)}/${pct(c.lead.rougeL)}` +
        (c.pipeline === undefined
          ? ''
          : `  pipeline ${pct(c.pipeline.rouge1)}/${pct(c.pipeline.rouge2)}/${pct(c.pipeline.rougeL)} (${c.pipeline.words.toFixed(0)})`) +
        (c.human_cut === undefined
          ? ''
          : `  human cut the same ${pct(c.human_cut.rouge1)}/${pct(c.human_cut.rouge2)}/${pct(c.human_cut.rougeL)} (${c.human_cut.words.toFixed(0)})`),
    );
  }
  return lines.join('\n');
}

function apiLines(report: BenchReport): string {
  const meetings = (report.benchmarks['summary-quality'] as { meetings: MeetingResult[] }).meetings;
  const lines = meetings.filter((m) => m.api !== undefined).map((m) => `- ${m.split} ${m.domain} ${m.meeting}${apiNote(m.api)}`);
  return lines.length === 0 ? '- none (--api 0)' : lines.join('\n');
}

const USAGE =
  'node bench/summary-quality.ts [--qmsum <dir>] [--splits train,val] [--limit N] [--api N] [--transcripts DIR] [--out-dir DIR] [--tiny] [--help]';

async function main(): Promise<number> {
  const values = readFlags(
    process.argv.slice(2),
    {
      qmsum: { type: 'string' },
      splits: { type: 'string' },
      limit: { type: 'string' },
      api: { type: 'string' },
      transcripts: { type: 'string' },
      'out-dir': { type: 'string' },
      tiny: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    USAGE,
  );
  if (values.help) {
    process.stdout.write(`${USAGE}\n\nTrain is for development, val for the report; the test split is never read (decision 079).\n`);
    return 0;
  }
  const options: Record<string, string> = {};
  for (const k of ['qmsum', 'splits', 'limit', 'api', 'transcripts'] as const) if (values[k] !== undefined) options[k] = values[k];
  const outDir = resolve(values['out-dir'] ?? join(REPO, 'reports'));
  let report: BenchReport;
  try {
    report = await run({ tiny: values.tiny, options, log: (l) => process.stderr.write(`${l}\n`) });
  } catch (err) {
    if (err instanceof QmsumMissingError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'bench-summary-quality.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(
    join(outDir, 'bench-summary-quality.md'),
    `# Summary quality on QMSum (ROUGE F1, %)\n\nGenerated ${report.generated_at}. Command: \`node bench/summary-quality.ts ${process.argv.slice(2).join(' ')}\`.\n\n` +
      `Train is for development, val for the report; the test split is never read. Time marks are left out of the scored text.\n\n${markdown(report)}\n\n` +
      `Through the API (reference gateway, meeting_notes):\n\n${apiLines(report)}\n`,
  );
  process.stdout.write(`${table(report)}\n`);
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runCli(main);
}
