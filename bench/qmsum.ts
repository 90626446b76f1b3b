/**
 * QMSum meetings (Yale-LILY/QMSum, MIT licence) for the summary-quality
 * benchmark: the transcript and the human summary of the whole meeting
 * (general_query_list's "Summarize the whole meeting."), by domain and split.
 *
 * Only the train and val splits are ever listed or read: the test split is
 * kept for independent evaluation, so `loadQmsum` refuses it and nothing here
 * builds a path into it.
 *
 * The source is a checkout of the QMSum repository (the clone `npm run
 * qmsum:fetch` makes, the default; simulator/qmsum/qmsum-repo.ts) or a bare
 * git mirror of it, read with `git show HEAD:path`.
 *
 * QMSum transcripts carry annotation marks ({vocalsound}, {disfmarker},
 * {gap}) and tokenised punctuation ("meeting ." ); both are cleaned so the
 * summarizer sees what a recognizer with punctuation would give. QMSum has
 * no timings: each turn gets a start and end from its word count at
 * WORDS_PER_SECOND, so item times in the notes are plausible, not real.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { qmsumMissingMessage } from '../simulator/qmsum/qmsum-repo.ts';

export const QMSUM_DOMAINS = ['product', 'academic', 'committee'] as const;
export type QmsumDomain = (typeof QMSUM_DOMAINS)[number];
const QMSUM_SPLITS = ['train', 'val'] as const;
export type QmsumSplit = (typeof QMSUM_SPLITS)[number];

const DOMAIN_FOLDERS: Record<QmsumDomain, string> = { product: 'Product', academic: 'Academic', committee: 'Committee' };
const WORDS_PER_SECOND = 2.5;

export interface QmsumTurn {
  speaker: string;
  content: string;
  start: number;
  end: number;
}

export interface QmsumMeeting {
  meeting: string;
  split: QmsumSplit;
  domain: QmsumDomain;
  transcript: QmsumTurn[];
  /** The human summary of the whole meeting. */
  reference: string;
}

export class QmsumMissingError extends Error {
  constructor(source: string) {
    super(qmsumMissingMessage(source, '--qmsum'));
    this.name = 'QmsumMissingError';
  }
}

interface Source {
  list(folder: string): string[];
  read(path: string): string;
}

function openSource(source: string): Source {
  if (!existsSync(source)) throw new QmsumMissingError(source);
  const bare = existsSync(join(source, 'HEAD')) && existsSync(join(source, 'objects')) && !existsSync(join(source, 'data'));
  if (bare) {
    const git = (...args: string[]) => execFileSync('git', ['-C', source, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
    return {
      list: (folder) =>
        git('ls-tree', '--name-only', `HEAD:${folder}`)
          .split('\n')
          .filter((n) => n.endsWith('.json')),
      read: (path) => git('show', `HEAD:${path}`),
    };
  }
  if (!existsSync(join(source, 'data')) || !statSync(join(source, 'data')).isDirectory()) throw new QmsumMissingError(source);
  return {
    list: (folder) => (existsSync(join(source, folder)) ? readdirSync(join(source, folder)).filter((n) => n.endsWith('.json')) : []),
    read: (path) => readFileSync(join(source, path), 'utf8'),
  };
}

/** QMSum's marks and tokenised punctuation out: "Um {vocalsound} the kick-off meeting ." → "Um the kick-off meeting." */
export function cleanQmsumText(text: string): string {
  return text
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\s+([.,!?;:%])/g, '$1')
    .replace(/\s+(n't|'s|'re|'ve|'ll|'d|'m)\b/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface LoadOptions {
  /** A QMSum checkout or bare mirror (the caller's default: defaultQmsumRepo()). */
  source: string;
  splits: readonly QmsumSplit[];
  domains?: readonly QmsumDomain[];
  /** At most this many meetings per domain and split (first by name). */
  limit?: number;
  /** Only these meetings (names without .json). */
  meetings?: readonly string[];
}

export function loadQmsum(opts: LoadOptions): QmsumMeeting[] {
  const src = openSource(opts.source);
  const out: QmsumMeeting[] = [];
  for (const split of opts.splits) {
    // A guard, not a convenience: the test split must never be read (DATA DISCIPLINE, decision 079).
    if (!(QMSUM_SPLITS as readonly string[]).includes(split)) throw new Error(`the ${split} split is not read by this benchmark`);
    for (const domain of opts.domains ?? QMSUM_DOMAINS) {
      const folder = `data/${DOMAIN_FOLDERS[domain]}/${split}`;
      let names = src.list(folder).sort();
      if (opts.meetings !== undefined) names = names.filter((n) => opts.meetings!.includes(n.replace(/\.json$/, '')));
      if (opts.limit !== undefined) names = names.slice(0, opts.limit);
      for (const name of names) out.push(parseMeeting(src.read(`${folder}/${name}`), name.replace(/\.json$/, ''), split, domain));
    }
  }
  return out;
}

interface RawQmsum {
  general_query_list?: { query?: string; answer?: string }[];
  meeting_transcripts?: { speaker?: string; content?: string }[];
}

function parseMeeting(json: string, meeting: string, split: QmsumSplit, domain: QmsumDomain): QmsumMeeting {
  const raw = JSON.parse(json) as RawQmsum;
  const general = raw.general_query_list ?? [];
  const whole = general.find((q) => /summari[sz]e the whole meeting/i.test(q.query ?? '')) ?? general[0];
  const transcript: QmsumTurn[] = [];
  let clock = 0;
  for (const t of raw.meeting_transcripts ?? []) {
    const content = cleanQmsumText(t.content ?? '');
    if (content === '' || !/[\p{L}\p{N}]/u.test(content)) continue;
    const seconds = Math.max(0.5, content.split(' ').length / WORDS_PER_SECOND);
    transcript.push({ speaker: (t.speaker ?? 'Speaker').trim() || 'Speaker', content, start: round(clock), end: round(clock + seconds) });
    clock += seconds + 0.2;
  }
  return { meeting, split, domain, transcript, reference: (whole?.answer ?? '').trim() };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
