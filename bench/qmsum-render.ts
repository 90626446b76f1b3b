/**
 * Real meetings through the whole pipeline, for the summary benchmark
 * (issue 22, decision 080): QMSum meetings from a git copy (`npm run
 * qmsum:fetch`, or --qmsum-repo) are rendered by
 * the simulator (one natural voice per participant, simulator/qmsum/),
 * imported into a real reference gateway (server/main.ts in a child process,
 * bench/gateway-child.ts) over HTTP on loopback like bench/quality.ts does,
 * and the transcript the gateway made is read back from the API and written
 * as
 *
 *   reports/qmsum-pipeline/<split>/<meeting>.json
 *     {"meeting", "split", "domain", "minutes", "transcript": [{"speaker", "content", "start", "end"}],
 *      "wer", "rtf", ... the figures below}
 *   reports/qmsum-pipeline/<split>-run.json   the run's figures, pooled
 *
 * for the summarizer's benchmark (`--transcripts DIR`), which scores a
 * summary of the pipeline's transcript against QMSum's human summary. The
 * WER is the pipeline's transcript against the rendered truth (what the
 * voices said), not against the original recording.
 *
 *   node bench/qmsum-render.ts [--split val|train] [--limit N] [--minutes M] [--domain product|academic|committee|all]
 *                              [--meetings ES2006a,IS1006a] [--scene clean] [--out reports/qmsum-pipeline]
 *                              [--qmsum-repo DIR] [--job-timeout S]
 *
 * Defaults: the validation split (the split reported figures come from; train
 * is for development; test is never read), AMI meetings (--domain product),
 * --limit 3, --minutes 5 (hour-long renders are slow: see decision 080 for
 * the measured wall time per minute), the clean scene.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderQmsum } from '../simulator/qmsum/render-qmsum.ts';
import type { QmsumDomain } from '../simulator/qmsum/qmsum-meeting.ts';
import { qmsumDomain } from '../simulator/qmsum/qmsum-meeting.ts';
import { QMSUM_DEFAULT_DESCRIPTION, defaultQmsumRepo } from '../simulator/qmsum/qmsum-repo.ts';
import { QMSUM_SPLITS, QmsumSourceError, listQmsumMeetings, loadQmsumMeeting } from '../simulator/qmsum/qmsum-source.ts';
import type { QmsumSplit } from '../simulator/qmsum/qmsum-source.ts';
import { REPO_ROOT } from '../simulator/scripts/load-script.ts';
import { DYNAMICS_PROFILES, type DynamicsProfileName } from '../simulator/scripts/meeting-script.ts';
import { diarizationErrorRate } from '../simulator/score/der.ts';
import { speakerAttribution } from '../simulator/score/speaker-attribution.ts';
import { wordErrorRate } from '../simulator/score/word-error-rate.ts';
import { gatewayApi as api, httpCall, startGatewayChild, waitForJobEnd } from './gateway-child.ts';
import type { GatewayChild } from './gateway-child.ts';
import { FlagError, processCpuSeconds, readFlags, runCli } from './lib.ts';
import { stockWholeFileWords } from './quality.ts';
import { POCKETSPHINX_SEARCH_ARGS } from '../server/adapters/asr/pocketsphinx.ts';

interface Segment {
  speaker: string;
  start: number;
  end: number;
  text: string;
  words?: { text: string; start: number; end: number }[];
}

/** One meeting's file: the transcript for the summary benchmark and the figures of its run. */
export interface QmsumPipelineFile {
  meeting: string;
  split: QmsumSplit;
  domain: QmsumDomain;
  /** Minutes of audio rendered and imported. */
  minutes: number;
  /** The gateway's transcript, segment by segment, with its speaker labels (clusters, not QMSum's names). */
  transcript: { speaker: string; content: string; start: number; end: number }[];
  /** Word error rate of the transcript against the rendered truth (simulator/score/word-error-rate.ts). */
  wer: number;
  /**
   * The same scorer on stock whole-file decoding of the same WAV
   * (`pocketsphinx_continuous -infile`), plain and with the recognizer's
   * search bounds (the same recognizer options as the pipeline): the
   * pipeline against the recognizer alone (decisions 093, 097, 120).
   */
  wer_stock: number;
  wer_stock_same_options: number;
  /** Import-to-transcript wall seconds over audio seconds. */
  rtf: number;
  /** CPU seconds (user+sys) of the gateway and its recognizer processes during the import, over audio seconds; null where /proc cannot be read. */
  cpu_per_audio_second: number | null;
  /** Rendering wall seconds over minutes of audio. */
  render_seconds_per_audio_minute: number;
  audio_seconds: number;
  reference_words: number;
  hypothesis_words: number;
  speakers: number;
  speakers_found: number;
  /** Share of recognized words attributed to the right speaker, and the diarization error rate. */
  attribution: number | null;
  der: number;
  /** QMSum turns rendered out of the meeting's; complete is false when --minutes cut it. */
  turns_rendered: number;
  turns_total: number;
  complete: boolean;
  /** QMSum's human summary of the whole meeting (also when only its first minutes were rendered). */
  reference_summary: string | null;
  scene: string;
  voices: { key: string; name: string; voice: string }[];
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Uploads the WAV to POST /v1/jobs/import, follows the job to its end and reads the transcript; the meeting is deleted after. */
async function importMeeting(
  gw: GatewayChild,
  wav: string,
  name: string,
  timeoutS: number,
): Promise<{ seconds: number; segments: Segment[] }> {
  const started = performance.now();
  const res = await httpCall({
    port: gw.apiPort,
    method: 'POST',
    path: `/v1/jobs/import?filename=${encodeURIComponent(`${name}.wav`)}&title=${encodeURIComponent(name)}`,
    token: gw.startupToken,
    bytes: readFileSync(wav),
    timeoutMs: 300_000,
  });
  if (res.status !== 202) throw new Error(`import: ${res.status} ${res.error ?? res.text.slice(0, 300)}`);
  const jobId = (JSON.parse(res.text) as { job_id: string }).job_id;
  const job = await waitForJobEnd(gw, jobId, { startedMs: started, timeoutS, intervalMs: 500 });
  const seconds = (performance.now() - started) / 1000;
  if (job.state !== 'succeeded' || job.meeting_id === null)
    throw new Error(`the import ended ${job.state}: ${job.error ?? 'no error given'}`);
  const transcript = await api<{ segments: Segment[] }>(gw, 'GET', `/v1/meetings/${job.meeting_id}/transcript`);
  await api(gw, 'DELETE', `/v1/meetings/${job.meeting_id}?delete_files=true`);
  return { seconds, segments: transcript.segments };
}

interface MeetingRun {
  repo: string;
  minutes: number;
  scene: string;
  dynamics: DynamicsProfileName;
  jobTimeout: string | undefined;
}

/** One meeting: rendered, imported into the gateway, read back and scored against the rendered truth. */
async function runMeeting(gw: GatewayChild, work: string, split: QmsumSplit, meeting: string, o: MeetingRun): Promise<QmsumPipelineFile> {
  const loaded = await loadQmsumMeeting(`${split}/${meeting}`, o.repo);
  const wav = path.join(work, `${meeting}.wav`);
  const renderStarted = performance.now();
  const rendered = await renderQmsum(loaded, wav, { minutes: o.minutes, scene: o.scene, dynamics: o.dynamics });
  const renderSeconds = (performance.now() - renderStarted) / 1000;
  const truth = rendered.truth;
  const timeout = o.jobTimeout !== undefined ? Number(o.jobTimeout) : 120 + truth.duration * 6;
  const cpuBefore = processCpuSeconds(gw.pid, { withChildren: true });
  const imported = await importMeeting(gw, wav, `qmsum-${meeting}`, timeout);
  const cpuAfter = processCpuSeconds(gw.pid, { withChildren: true });
  const reference = truth.words.map((w) => w.text);
  const stock = wordErrorRate(reference, await stockWholeFileWords(wav));
  const stockSameOptions = wordErrorRate(reference, await stockWholeFileWords(wav, POCKETSPHINX_SEARCH_ARGS));
  const hypothesis = imported.segments.flatMap((s) =>
    (s.words ?? []).map((w) => ({ text: w.text, start: w.start, end: w.end, cluster: s.speaker })),
  );
  const wer = wordErrorRate(
    reference,
    hypothesis.map((w) => w.text),
  );
  const attribution = speakerAttribution(hypothesis, truth.words);
  const der = diarizationErrorRate(
    truth.turns,
    imported.segments.map((s) => ({ speaker: s.speaker, start: s.start, end: s.end })),
  );
  return {
    meeting,
    split,
    domain: loaded.domain,
    minutes: round(truth.duration / 60, 2),
    transcript: imported.segments.map((s) => ({ speaker: s.speaker, content: s.text, start: s.start, end: s.end })),
    wer: round(wer.wer, 4),
    wer_stock: round(stock.wer, 4),
    wer_stock_same_options: round(stockSameOptions.wer, 4),
    rtf: round(imported.seconds / truth.duration, 3),
    cpu_per_audio_second: cpuBefore === null || cpuAfter === null ? null : round((cpuAfter - cpuBefore) / truth.duration, 3),
    render_seconds_per_audio_minute: round(renderSeconds / (truth.duration / 60), 1),
    audio_seconds: truth.duration,
    reference_words: wer.reference_words,
    hypothesis_words: hypothesis.length,
    speakers: truth.speakers.length,
    speakers_found: new Set(imported.segments.map((s) => s.speaker)).size,
    attribution: hypothesis.length === 0 ? null : round(attribution.accuracy, 4),
    der: round(der.der, 4),
    turns_rendered: truth.qmsum.turns_considered,
    turns_total: truth.qmsum.turns_total,
    complete: truth.qmsum.complete,
    reference_summary: truth.qmsum.summary?.answer ?? null,
    scene: truth.scene.preset,
    voices: truth.speakers.map((s) => ({
      key: s.key,
      name: s.name,
      voice: `${s.engine}:${s.voice}${s.pitch_shift !== 0 ? ` ${s.pitch_shift > 0 ? '+' : ''}${s.pitch_shift} st` : ''} ${s.rate} wpm`,
    })),
  };
}

const USAGE = `Usage: node bench/qmsum-render.ts [--split val|train] [--limit N] [--minutes M] [--domain product|academic|committee|all]
                              [--meetings ID,ID] [--scene clean] [--dynamics tidy|natural] [--out DIR] [--qmsum-repo DIR]
                              [--job-timeout S]
  --qmsum-repo  a git copy of QMSum; default ${QMSUM_DEFAULT_DESCRIPTION}`;

/** The run's figures pooled over its meetings: errors over all reference words, seconds over all audio. */
function pooledRun(
  split: QmsumSplit,
  minutes: number,
  scene: string,
  results: QmsumPipelineFile[],
  failures: { meeting: string; error: string }[],
) {
  const audio = results.reduce((a, r) => a + r.audio_seconds, 0);
  const refWords = results.reduce((a, r) => a + r.reference_words, 0);
  return {
    split,
    minutes_asked: minutes,
    scene,
    meetings: results.map((r) => ({
      meeting: r.meeting,
      minutes: r.minutes,
      wer: r.wer,
      wer_stock: r.wer_stock,
      wer_stock_same_options: r.wer_stock_same_options,
      rtf: r.rtf,
      cpu_per_audio_second: r.cpu_per_audio_second,
      attribution: r.attribution,
      der: r.der,
    })),
    failures,
    audio_minutes: round(audio / 60, 2),
    wer_pooled: refWords === 0 ? null : round(results.reduce((a, r) => a + r.wer * r.reference_words, 0) / refWords, 4),
    rtf_pooled: audio === 0 ? null : round(results.reduce((a, r) => a + r.rtf * r.audio_seconds, 0) / audio, 3),
    render_seconds_per_audio_minute_pooled:
      audio === 0
        ? null
        : round(results.reduce((a, r) => a + r.render_seconds_per_audio_minute * (r.audio_seconds / 60), 0) / (audio / 60), 1),
  };
}

async function main(): Promise<number> {
  const values = readFlags(
    process.argv.slice(2),
    {
      split: { type: 'string', default: 'val' },
      limit: { type: 'string', default: '3' },
      minutes: { type: 'string', default: '5' },
      domain: { type: 'string', default: 'product' },
      meetings: { type: 'string' },
      scene: { type: 'string', default: 'clean' },
      // How turns fall in time (decision 108); tidy, as decision 080's figures were measured, unless asked.
      dynamics: { type: 'string', default: 'tidy' },
      out: { type: 'string', default: path.join(REPO_ROOT, 'reports', 'qmsum-pipeline') },
      'qmsum-repo': { type: 'string', default: defaultQmsumRepo() },
      'job-timeout': { type: 'string' },
      help: { type: 'boolean' },
    },
    USAGE.replace(/^Usage: /, ''),
  );
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  if (!(QMSUM_SPLITS as readonly string[]).includes(values.split)) {
    console.error(
      `error: --split expects ${QMSUM_SPLITS.join(' or ')} (QMSum's test split is never read), got "${values.split}"\n${USAGE}`,
    );
    return 2;
  }
  if (!(DYNAMICS_PROFILES as readonly string[]).includes(values.dynamics)) {
    console.error(`error: --dynamics expects ${DYNAMICS_PROFILES.join(' or ')}, got "${values.dynamics}"\n${USAGE}`);
    return 2;
  }
  const dynamics = values.dynamics as DynamicsProfileName;
  const split = values.split as QmsumSplit;
  const limit = Number(values.limit);
  const minutes = Number(values.minutes);
  if (!Number.isInteger(limit) || limit <= 0 || !(minutes > 0) || !['product', 'academic', 'committee', 'all'].includes(values.domain)) {
    console.error(
      `error: --limit expects a positive integer, --minutes a positive number, --domain product|academic|committee|all\n${USAGE}`,
    );
    return 2;
  }
  let all: string[];
  try {
    all = await listQmsumMeetings(split, values['qmsum-repo']);
  } catch (error) {
    // No QMSum copy (or not one git can read): one line naming the command that gets it, not a stack.
    if (error instanceof QmsumSourceError) throw new FlagError(error.message);
    throw error;
  }
  let chosen: string[];
  if (values.meetings !== undefined) {
    chosen = values.meetings.split(',').filter(Boolean);
    const missing = chosen.filter((m) => !all.includes(m));
    if (missing.length > 0) {
      console.error(`error: not in the ${split} split: ${missing.join(', ')}`);
      return 2;
    }
  } else {
    chosen = all.filter((m) => values.domain === 'all' || qmsumDomain(m) === values.domain).slice(0, limit);
  }

  const outDir = path.join(values.out, split);
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(path.join(tmpdir(), 'qmsum-render-'));
  const gw = await startGatewayChild();
  const results: QmsumPipelineFile[] = [];
  const failures: { meeting: string; error: string }[] = [];
  try {
    for (const meeting of chosen) {
      try {
        const file = await runMeeting(gw, work, split, meeting, {
          repo: values['qmsum-repo'],
          minutes,
          scene: values.scene,
          dynamics,
          jobTimeout: values['job-timeout'],
        });
        writeFileSync(path.join(outDir, `${meeting}.json`), `${JSON.stringify(file, null, 2)}\n`);
        results.push(file);
        console.log(
          `qmsum ${split}/${meeting}: ${file.minutes} min, ${file.speakers} speakers (found ${file.speakers_found}), WER ${(file.wer * 100).toFixed(1)} % of ${file.reference_words} words (stock ${(file.wer_stock * 100).toFixed(1)} %, with the recognizer's options ${(file.wer_stock_same_options * 100).toFixed(1)} %), CPU ${file.cpu_per_audio_second ?? 'n/a'} s per audio s, attribution ${file.attribution === null ? 'n/a' : `${(file.attribution * 100).toFixed(1)} %`}, DER ${(file.der * 100).toFixed(1)} %, RTF ${file.rtf}, rendering ${file.render_seconds_per_audio_minute} s per audio minute`,
        );
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        failures.push({ meeting, error: message });
        console.log(`qmsum ${split}/${meeting}: not run: ${message}`);
      } finally {
        rmSync(path.join(work, `${meeting}.wav`), { force: true });
      }
    }
  } finally {
    await gw.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const summary = pooledRun(split, minutes, values.scene, results, failures);
  // Beside the split's folder, not in it: the summary benchmark reads every file in the folder as a meeting.
  writeFileSync(path.join(values.out, `${split}-run.json`), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(
    `qmsum ${split}: ${results.length} meetings, ${summary.audio_minutes} min of audio, WER ${summary.wer_pooled ?? 'n/a'}, RTF ${summary.rtf_pooled ?? 'n/a'}, rendering ${summary.render_seconds_per_audio_minute_pooled ?? 'n/a'} s per audio minute; files in ${outDir}`,
  );
  return failures.length > 0 ? 1 : 0;
}

if (import.meta.main) {
  await runCli(main);
}
