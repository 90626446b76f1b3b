/**
 * `simulator score` against NIST's sclite and md-eval on the rendered
 * meetings of fixtures/meetings (decision 113): every script rendered clean,
 * its truth written as RTTM, STM and CTM, then scored both ways with real
 * hypotheses: the transcript of stock `pocketsphinx_continuous -time yes` on
 * the whole file, and the gateway's diarizer (decode → front end → voice
 * activity → diarize, the config defaults; as bench/quality-diarizer.ts)
 * giving the speakers. WER and cpWER (`simulator score --alignment sclite`;
 * the default Levenshtein WER beside), DER (collar 0.25 s) and DER with overlap
 * not scored (md-eval -1), ours beside NIST's, and the largest difference;
 * sclite's time-chunked CTM and STM scorings beside them, for information
 * (decision 165).
 *
 *   node bench/truth-formats-agreement.ts                          every script of fixtures/meetings, clean, tidy
 *   node bench/truth-formats-agreement.ts --scripts tiny,two-person-call
 *   node bench/truth-formats-agreement.ts --scripts four-person-standup --scenes clean,office,reverb-only --dynamics natural
 *                                                                  the matrix's meetings as the natural matrix renders them
 *
 * Writes reports/truth-formats-agreement.json and .md (after every meeting, so
 * a long run leaves what it has). Needs sctk, pocketsphinx and the voices.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { diarize } from '../server/pipeline/diarize.ts';
import { enhanceSpeech } from '../server/pipeline/enhance/front-end.ts';
import { uncontrolled } from '../server/pipeline/types.ts';
import { detectSpeech } from '../server/pipeline/vad.ts';
import { parsePocketsphinxTimes } from '../simulator/score/formats/text-formats.ts';
import { nistAgreement } from '../simulator/score/nist-agreement.ts';
import type { Agreement } from '../simulator/score/nist-agreement.ts';
import { findSctk } from '../simulator/score/nist-tools.ts';
import { listScriptNames, loadScript } from '../simulator/scripts/load-script.ts';
import type { DynamicsProfileName } from '../simulator/scripts/meeting-script.ts';
import { DYNAMICS_PROFILES } from '../simulator/scripts/meeting-script.ts';
import { renderScript } from '../simulator/synth/render-script.ts';
import { speakerTurns, truthTokens } from '../simulator/truth-formats/truth-formats.ts';
import { FlagError, fmt, formatRows, readFlags, runCli } from './lib.ts';

const REPORT_DIR = join(import.meta.dirname, '..', 'reports');
const USAGE = 'node bench/truth-formats-agreement.ts [--scripts NAME,NAME] [--scenes SCENE,SCENE] [--dynamics tidy|natural]';
const run = promisify(execFile);

interface Row extends Partial<Agreement> {
  script: string;
  scene: string;
  dynamics: DynamicsProfileName;
  duration_s: number | null;
  words: number | null;
  speakers: number | null;
  /** Share of the truth's speech time with two or more speakers (from its RTTM turns). */
  overlap_share: number | null;
  error: string | null;
}

/** Share of speech time (union of all turns) during which two or more turns run. */
export function overlapShare(turns: readonly { start: number; end: number }[]): number {
  const events = turns.flatMap((t) => [
    { t: t.start, d: 1 },
    { t: t.end, d: -1 },
  ]);
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let talking = 0;
  let last = 0;
  let speech = 0;
  let overlap = 0;
  for (const e of events) {
    if (talking >= 1) speech += e.t - last;
    if (talking >= 2) overlap += e.t - last;
    talking += e.d;
    last = e.t;
  }
  return speech > 0 ? overlap / speech : 0;
}

interface Meeting {
  script: string;
  scene: string;
  dynamics: DynamicsProfileName;
}

async function measure(meeting: Meeting, work: string, tools: NonNullable<ReturnType<typeof findSctk>>): Promise<Row> {
  const { script, scene, dynamics } = meeting;
  const wav = join(work, `${script}.${scene}.${dynamics}.wav`);
  const { truth } = await renderScript(await loadScript(script), wav, { scene, dynamics });
  // Stock pocketsphinx on the whole file, as a QA team would run it.
  const { stdout } = await run('pocketsphinx_continuous', ['-infile', wav, '-time', 'yes'], { maxBuffer: 256 << 20 });
  const words = parsePocketsphinxTimes(stdout).words;
  const decoded = await new AudioDecoder().decode(wav, 'wav', uncontrolled());
  const vad = CONFIG_SECTIONS.vad.defaults;
  const enhanced = (await enhanceSpeech(decoded, vad, uncontrolled())).audio;
  const turns = await diarize(decoded, detectSpeech(enhanced, vad), CONFIG_SECTIONS.diarization.defaults, uncontrolled());
  const agreement = nistAgreement(tools, truth, script, words, turns);
  return {
    ...meeting,
    duration_s: truth.duration,
    words: truth.words.length,
    speakers: truth.speakers.length,
    overlap_share: overlapShare(speakerTurns(truthTokens(truth))),
    error: null,
    ...agreement,
  };
}

function markdown(rows: readonly Row[]): string {
  const pair = (p: { ours: number; nist: number } | undefined): string => (p === undefined ? '—' : `${fmt(p.ours, 2)} / ${fmt(p.nist, 2)}`);
  const table = [
    [
      'script',
      'scene',
      'length s',
      'words',
      'speakers',
      'overlap %',
      'WER ours / sclite',
      'WER Levenshtein',
      'cpWER ours / sclite',
      'DER ours / md-eval',
      'DER -1 ours / md-eval',
      'max diff',
      'sclite CTM WER',
      'sclite STM WER',
    ],
    ...rows.map((r) =>
      r.error !== null
        ? [r.script, r.scene, '—', '—', '—', '—', `not measured: ${r.error}`, '', '', '', '', '', '', '']
        : [
            r.script,
            r.scene,
            fmt(r.duration_s, 1),
            String(r.words),
            String(r.speakers),
            fmt(100 * (r.overlap_share ?? 0), 1),
            pair(r.wer),
            fmt(r.wer_levenshtein, 2),
            pair(r.cpwer),
            pair(r.der),
            pair(r.der_ignore_overlap),
            fmt(r.max_difference, 3),
            fmt(r.ctm_wer, 2),
            fmt(r.stm_wer, 2),
          ],
    ),
  ];
  const dynamics = [...new Set(rows.map((r) => r.dynamics))].join(', ');
  return `# simulator score against sclite and md-eval (dynamics: ${dynamics})\n\n\`\`\`\n${formatRows(table)}\n\`\`\`\n`;
}

async function main(): Promise<number> {
  const values = readFlags(
    process.argv.slice(2),
    { scripts: { type: 'string' }, scenes: { type: 'string' }, dynamics: { type: 'string' } },
    USAGE,
  );
  const dynamics = (values.dynamics ?? 'tidy') as DynamicsProfileName;
  if (!(DYNAMICS_PROFILES as readonly string[]).includes(dynamics))
    throw new FlagError(`--dynamics: no profile "${dynamics}"; known: ${DYNAMICS_PROFILES.join(', ')}`);
  const scenes = values.scenes?.split(',').filter((s) => s !== '') ?? ['clean'];
  const tools = findSctk();
  if (tools === null) throw new FlagError('sctk (sclite, md-eval.pl) is not installed: apt-get install sctk');
  const scripts = values.scripts?.split(',').filter((s) => s !== '') ?? (await listScriptNames());
  const work = mkdtempSync(join(tmpdir(), 'mas-truth-formats-'));
  mkdirSync(REPORT_DIR, { recursive: true });
  const rows: Row[] = [];
  try {
    for (const meeting of scripts.flatMap((script) => scenes.map((scene) => ({ script, scene, dynamics })))) {
      const { script, scene } = meeting;
      let row: Row;
      try {
        row = await measure(meeting, work, tools);
      } catch (error) {
        // A script the simulator cannot render (two voices alike) is reported, not fatal.
        const message = (error as Error).message.split('\n')[0] ?? String(error);
        row = { script, scene, dynamics, duration_s: null, words: null, speakers: null, overlap_share: null, error: message };
      }
      rows.push(row);
      console.log(markdown([row]).split('\n').at(-3));
      writeFileSync(join(REPORT_DIR, 'truth-formats-agreement.json'), `${JSON.stringify({ scripts, scenes, dynamics, rows }, null, 2)}\n`);
      writeFileSync(join(REPORT_DIR, 'truth-formats-agreement.md'), markdown(rows));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(markdown(rows));
  const worst = Math.max(0, ...rows.map((r) => r.max_difference ?? 0));
  return worst <= 0.1 ? 0 : 1;
}

if (import.meta.main) await runCli(main);
