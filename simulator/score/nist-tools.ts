/**
 * NIST's scoring tools from sctk (the Debian package of the same name): the
 * truth formats and `simulator score` are checked against them
 * (nist-agreement.test.ts, bench/truth-formats-agreement.ts). Found on PATH,
 * else in the folder `sctk path` names (Debian installs them there and puts
 * only the `sctk` front end on PATH).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface SctkTools {
  sclite: string;
  mdEval: string;
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return null;
}

/** sclite and md-eval.pl, or null when sctk is not installed. */
export function findSctk(): SctkTools | null {
  let dir: string | null = null;
  const front = onPath('sctk');
  if (front !== null) {
    try {
      dir = execFileSync(front, ['path'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      dir = null;
    }
  }
  const find = (name: string): string | null =>
    onPath(name) ?? (dir !== null && existsSync(path.join(dir, name)) ? path.join(dir, name) : null);
  const sclite = find('sclite');
  const mdEval = find('md-eval.pl');
  return sclite !== null && mdEval !== null ? { sclite, mdEval } : null;
}

export interface ScliteCounts {
  correct: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  errors: number;
  /** errors / reference words, as a share (sclite prints percent). */
  wer: number;
}

/** Runs `fn` with a scratch folder that is removed afterwards. */
function inScratch<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'sctk-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The "Sum" row of sclite's raw summary (-o rsum): counts, not rounded percentages. */
function parseRsum(out: string): ScliteCounts {
  const m = /\|\s*Sum\s*\|\s*\d+\s+(\d+)\s*\|\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(out);
  if (m === null) throw new Error(`sclite printed no Sum row:\n${out.slice(0, 2000)}`);
  const [words, correct, substitutions, deletions, insertions, errors] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { correct, substitutions, deletions, insertions, errors, wer: errors / Math.max(1, words) };
}

/** sclite on a reference and a hypothesis given as text in sclite's formats (ctm, stm, trn). */
export function runSclite(
  tools: SctkTools,
  ref: { text: string; format: 'ctm' | 'stm' | 'trn' },
  hyp: { text: string; format: 'ctm' | 'trn' },
): ScliteCounts {
  return inScratch((dir) => {
    const refFile = path.join(dir, `ref.${ref.format}`);
    const hypFile = path.join(dir, `hyp.${hyp.format}`);
    writeFileSync(refFile, ref.text);
    writeFileSync(hypFile, hyp.text);
    const args = ['-r', refFile, ref.format, '-h', hypFile, hyp.format, '-o', 'rsum', 'stdout'];
    if (ref.format === 'trn') args.push('-i', 'rm');
    return parseRsum(execFileSync(tools.sclite, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }));
  });
}

export interface MdEvalFigures {
  scored: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  /** Percent, as md-eval prints it. */
  der: number;
}

/** md-eval.pl on two RTTM texts with a collar (-c) and, optionally, only single-speaker regions scored (-1). */
export function runMdEval(
  tools: SctkTools,
  refRttm: string,
  hypRttm: string,
  opts: { collar: number; ignoreOverlap: boolean },
): MdEvalFigures {
  return inScratch((dir) => {
    writeFileSync(path.join(dir, 'ref.rttm'), refRttm);
    writeFileSync(path.join(dir, 'hyp.rttm'), hypRttm);
    const args = [
      tools.mdEval,
      '-c',
      String(opts.collar),
      ...(opts.ignoreOverlap ? ['-1'] : []),
      '-r',
      path.join(dir, 'ref.rttm'),
      '-s',
      path.join(dir, 'hyp.rttm'),
    ];
    let out: string;
    try {
      out = execFileSync('perl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
    } catch (error) {
      // With nothing left to score (all collar or overlap) md-eval divides by zero and dies; DER is then 0, as scoreMeeting says.
      const stdout = (error as { stdout?: string }).stdout ?? '';
      if (/SCORED TIME =\s+0\.00 secs/.test(stdout)) return { scored: 0, missed: 0, falseAlarm: 0, confusion: 0, der: 0 };
      throw error;
    }
    const figure = (label: string): number => {
      const m = new RegExp(`${label} =\\s+([0-9.]+)`).exec(out);
      if (m === null) throw new Error(`md-eval printed no "${label}"`);
      return Number(m[1]);
    };
    return {
      scored: figure('SCORED SPEAKER TIME'),
      missed: figure('MISSED SPEAKER TIME'),
      falseAlarm: figure('FALARM SPEAKER TIME'),
      confusion: figure('SPEAKER ERROR TIME'),
      der: figure('OVERALL SPEAKER DIARIZATION ERROR'),
    };
  });
}

/** Words as CTM lines of one recording (times needed). */
export function wordsToCtm(words: readonly { text: string; start: number; end: number }[], session: string): string {
  return words.map((w) => `${session} 1 ${w.start.toFixed(3)} ${Math.max(0, w.end - w.start).toFixed(3)} ${w.text}\n`).join('');
}

/**
 * cpWER's pairing as sclite transcripts: one utterance per reference speaker
 * (its words concatenated) against the words of the hypothesis speaker paired
 * with it, and one empty reference utterance per unpaired hypothesis speaker,
 * so sclite's counts are the cpWER's errors for that pairing.
 */
export function cpwerTranscripts(
  ref: readonly { speaker: string; words: readonly string[] }[],
  hyp: readonly { speaker: string; words: readonly string[] }[],
  mapping: Record<string, string | null>,
): { ref: string; hyp: string } {
  const id = (s: string): string => s.replace(/[^A-Za-z0-9]+/g, '_');
  const refLines: string[] = [];
  const hypLines: string[] = [];
  for (const r of ref) {
    const partner = hyp.find((h) => mapping[h.speaker] === r.speaker);
    refLines.push(`${r.words.join(' ')} (ref_${id(r.speaker)})`);
    hypLines.push(`${partner?.words.join(' ') ?? ''} (ref_${id(r.speaker)})`);
  }
  for (const h of hyp) {
    if (mapping[h.speaker] !== null && mapping[h.speaker] !== undefined) continue;
    refLines.push(` (extra_${id(h.speaker)})`);
    hypLines.push(`${h.words.join(' ')} (extra_${id(h.speaker)})`);
  }
  return { ref: `${refLines.join('\n')}\n`, hyp: `${hypLines.join('\n')}\n` };
}
