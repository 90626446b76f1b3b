/**
 * Where a QMSum meeting is read from: a JSON file (the vendored excerpt in
 * fixtures/qmsum/, or any copy) or a git copy of the QMSum repository, a
 * clone or a bare mirror, read with `git show` (qmsum-repo.ts says which:
 * by default the clone `npm run qmsum:fetch` makes).
 *
 * Data discipline (decision 080): the train split is for development, the
 * validation split for reported figures, and the test split is never read:
 * a reference into it, by split name or by a path through a test folder, is
 * refused before anything is opened.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { qmsumDomain, qmsumMeetingSchema } from './qmsum-meeting.ts';
import type { QmsumDomain, QmsumMeeting } from './qmsum-meeting.ts';
import { defaultQmsumRepo, isQmsumRepo, qmsumMissingMessage } from './qmsum-repo.ts';

const execFileAsync = promisify(execFile);

/** The splits this project may read; QMSum's "test" is held out. */
export const QMSUM_SPLITS = ['train', 'val'] as const;
export type QmsumSplit = (typeof QMSUM_SPLITS)[number];

export class QmsumSourceError extends Error {}

export interface LoadedQmsumMeeting {
  meeting: string;
  /** The split the meeting belongs to, when the reference tells ("val/ES2006a", a path through a val folder). */
  split: QmsumSplit | null;
  domain: QmsumDomain;
  data: QmsumMeeting;
  /** Where it was read: a file path, or the QMSum copy and the path inside it. */
  source: string;
}

function refuseTest(reference: string): void {
  if (reference.split(/[\\/]/).some((part) => part.toLowerCase() === 'test' || /^test\.jsonl?$/i.test(part))) {
    throw new QmsumSourceError(`"${reference}" is in QMSum's test split, which this project never reads (decision 080)`);
  }
}

/** The meeting id of a file: its name up to the first "-" or "." (fixtures/qmsum/val/ES2006a-excerpt.json → ES2006a). */
export function meetingIdOf(file: string): string {
  return /^[A-Za-z0-9_]+/.exec(path.basename(file))?.[0] ?? path.basename(file);
}

function parseMeeting(text: string, source: string): QmsumMeeting {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new QmsumSourceError(`${source}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = qmsumMeetingSchema.safeParse(json);
  if (!parsed.success) {
    throw new QmsumSourceError(
      `${source}: not a QMSum meeting (${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')})`,
    );
  }
  return parsed.data;
}

function requireRepo(repo: string): void {
  if (!isQmsumRepo(repo)) throw new QmsumSourceError(qmsumMissingMessage(repo));
}

/** Lists the meetings of a split in the QMSum copy, sorted (file names only; nothing is opened). */
export async function listQmsumMeetings(split: QmsumSplit, repo = defaultQmsumRepo()): Promise<string[]> {
  refuseTest(split);
  requireRepo(repo);
  const { stdout } = await execFileAsync('git', ['-C', repo, 'ls-tree', '--name-only', 'HEAD', `data/ALL/${split}/`]);
  return stdout
    .split('\n')
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.basename(f, '.json'))
    .sort();
}

/**
 * A meeting by reference: "val/ES2006a" or "train/ES2002a" from the QMSum copy, or
 * a path to a QMSum JSON file (its split taken from a train or val folder on
 * the path, if any).
 */
export async function loadQmsumMeeting(reference: string, repo = defaultQmsumRepo()): Promise<LoadedQmsumMeeting> {
  refuseTest(reference);
  const fromMirror = /^(train|val)\/([A-Za-z0-9_]+)$/.exec(reference);
  if (fromMirror !== null && !reference.endsWith('.json')) {
    requireRepo(repo);
    const split = fromMirror[1] as QmsumSplit;
    const meeting = fromMirror[2]!;
    const inRepo = `data/ALL/${split}/${meeting}.json`;
    let text: string;
    try {
      ({ stdout: text } = await execFileAsync('git', ['-C', repo, 'show', `HEAD:${inRepo}`], { maxBuffer: 64 * 1024 * 1024 }));
    } catch (error) {
      throw new QmsumSourceError(`no QMSum meeting ${reference} in ${repo} (${(error as Error).message.split('\n')[0]})`);
    }
    return { meeting, split, domain: qmsumDomain(meeting), data: parseMeeting(text, reference), source: `${repo}:${inRepo}` };
  }
  let text: string;
  try {
    text = await readFile(reference, 'utf8');
  } catch (error) {
    throw new QmsumSourceError(`cannot read ${reference}: ${(error as Error).message}`);
  }
  const meeting = meetingIdOf(reference);
  const folders = path.resolve(reference).split(path.sep);
  const split = QMSUM_SPLITS.find((s) => folders.includes(s)) ?? null;
  return { meeting, split, domain: qmsumDomain(meeting), data: parseMeeting(text, reference), source: reference };
}
