/** `mas jobs …`: import audio (with upload progress), and list, follow and control background jobs. */
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Schemas } from '../../client/client.ts';
import { fields, json, table, type Row } from '../output.ts';
import { jobLine, uploadLine } from '../progress.ts';
import { UsageError } from '../settings.ts';
import { intArg, option, timeoutOption, type CommandRow, type TableRow } from '../command-table.ts';
import { EXIT, Exit, dropUndefined, fail, show, type Context } from '../context.ts';
import { poll, untilEvent } from '../wait.ts';

interface ImportOptions {
  filename?: string;
  title?: string;
  language?: string;
  model?: string;
  provider?: string;
  wait?: boolean;
  timeout?: number;
}

function jobRow(job: Schemas['JobDto']): Row {
  return { ...job, progress: `${Math.round(job.progress * 100)}%` };
}

async function importFile(c: Context, file: string, o: ImportOptions): Promise<void> {
  const fromStdin = file === '-';
  if (fromStdin && o.filename === undefined)
    throw new UsageError('importing from stdin needs --filename (its extension names the format, e.g. call.mp3)');
  if (!fromStdin && (!existsSync(file) || !statSync(file).isFile())) throw new UsageError(`${file}: no such file`);
  const name = o.filename ?? path.basename(file);
  const total = fromStdin ? null : statSync(file).size;
  const started = performance.now();
  let last = { sent: 0, total };
  let answered = false;
  const r = await c.client.importAudio(
    fromStdin ? (c.io.stdin as NodeJS.ReadableStream & AsyncIterable<Uint8Array>) : createReadStream(file, { highWaterMark: 256 * 1024 }),
    {
      filename: name,
      ...(total !== null ? { size: total } : {}),
      ...dropUndefined({ title: o.title, language: o.language, model: o.model, provider: o.provider }),
      onProgress: (p) => {
        if (answered) return; // a last callback after an early answer (413, 429) must not draw over it
        last = p;
        c.progress.update(uploadLine(name, p.sent, p.total, performance.now() - started));
      },
      signal: c.io.signal,
    },
  );
  answered = true;
  c.progress.done(uploadLine(name, last.sent, last.total, performance.now() - started));
  if (!r.ok) fail(c, r);
  const jobId = r.data.job_id;
  if (o.wait !== true) return void c.io.stdout.write(c.asJson ? json(r.data) : `${jobId}\n`);
  const job = await followJob(c, jobId, o.timeout);
  if (c.asJson) c.io.stdout.write(json(job));
  if (job.state !== 'succeeded') {
    c.io.stderr.write(`mas: job ${job.id} ${job.state}${job.error !== null ? `: ${job.error}` : ''}\n`);
    throw new Exit(EXIT.refused);
  }
  if (!c.asJson) c.io.stdout.write(`${job.meeting_id ?? ''}\n`);
}

/**
 * Follows a job to its end through its wait stream (re-opened after each
 * timeout event until --timeout is spent), drawing its stage and progress
 * from GET /v1/jobs/{id} while a terminal watches. Returns the job as GET
 * answers it after the end.
 */
async function followJob(c: Context, id: string, timeoutSeconds: number | undefined): Promise<Schemas['JobDto']> {
  const stopPolling = poll(c, async () => {
    const j = await c.client.call('getJob', { path: { id }, signal: c.io.signal });
    return j.ok ? jobLine(j.data) : undefined;
  });
  try {
    await untilEvent(
      c,
      timeoutSeconds,
      (seconds) => c.client.wait('waitJob', { path: { id }, query: { timeout: seconds }, signal: c.io.signal }),
      `job ${id}`,
    );
  } finally {
    stopPolling();
  }
  const j = await c.client.call('getJob', { path: { id }, signal: c.io.signal });
  if (!j.ok) fail(c, j);
  c.progress.done(jobLine(j.data));
  return j.data;
}

/** Prints the ended job and exits 1 unless it succeeded. */
function showEndedJob(c: Context, job: Schemas['JobDto']): void {
  c.io.stdout.write(c.asJson ? json(job) : fields(jobRow(job)));
  if (job.state !== 'succeeded') throw new Exit(EXIT.refused);
}

/** cancel, pause, resume, retry: one job id in, the job out. */
const JOB_CONTROLS: readonly CommandRow[] = (
  [
    ['cancel', 'cancelJob', 'cancel a job (idempotent on an ended job)'],
    ['pause', 'pauseJob', 'pause a running job (imports cannot be paused: conflict/import_not_pausable)'],
    ['resume', 'resumeJob', 'resume a paused job'],
    ['retry', 'retryJob', 'run a failed, retryable job again (the only way to retranscribe)'],
  ] as const
).map(([name, op, description]) => ({
  name,
  description,
  args: [['<id>', 'job id']],
  run: async (c: Context, id: string) =>
    show(c, await c.client.call(op, { path: { id }, signal: c.io.signal }), (r) => fields(jobRow(r.data))),
}));

export const JOB_COMMANDS: readonly TableRow[] = [
  {
    name: 'jobs',
    description: 'import audio, and list, follow and control background jobs',
    commands: [
      {
        name: 'import',
        description:
          'upload an audio or video file (mp4, m4a, wav, mp3, flac, ogg, aac, mkv, webm, wma); prints ' +
          'the job id, or with --wait the meeting id',
        args: [['<file>', "the file ('-' for stdin, with --filename)"]],
        options: [
          option('--filename <name>', 'the name the service sees (its extension names the format); default the file name'),
          option('--title <title>', 'title of the meeting'),
          option('--language <tag>', 'language tag (default en)'),
          option('--model <model>', 'a recognizer model from `mas models`'),
          option('--provider <provider>', 'pocketsphinx, whisper.cpp or openai-compatible'),
          option('--wait', 'wait until the job ends, showing its progress, and print the meeting id'),
          timeoutOption(true, 'give up waiting after this long (exit 4)'),
        ],
        run: async (c, file: string, o: ImportOptions) => importFile(c, file, o),
      },
      {
        name: 'list',
        description: 'jobs, newest first',
        run: async (c) =>
          show(c, await c.client.call('listJobs', { signal: c.io.signal }), (r) =>
            table(r.data.jobs.map(jobRow), ['id', 'kind', 'state', 'stage', 'progress', 'meeting_id', 'created_at']),
          ),
      },
      {
        name: 'get',
        description: 'one job',
        args: [['<id>', 'job id']],
        run: async (c, id: string) =>
          show(c, await c.client.call('getJob', { path: { id }, signal: c.io.signal }), (r) => fields(jobRow(r.data))),
      },
      ...JOB_CONTROLS,
      {
        name: 'wait',
        description: 'wait until a job ends, showing its progress; exit 1 if it failed or was cancelled',
        args: [['<id>', 'job id']],
        options: [timeoutOption(false)],
        run: async (c, id: string, o: { timeout?: number }) => showEndedJob(c, await followJob(c, id, o.timeout)),
      },
      {
        name: 'diarization',
        description: 'attribute the words of a meeting to speakers again',
        args: [['<meeting-id>', 'meeting id']],
        options: [
          option('--speakers <n>', 'how many speakers (default: automatic)', intArg('--speakers', 1)),
          option('--wait', 'wait until the job ends'),
          timeoutOption(true),
        ],
        run: async (c, meetingId: string, o: { speakers?: number; wait?: boolean; timeout?: number }) => {
          const r = await c.client.call('submitDiarization', {
            body: dropUndefined({ meeting_id: meetingId, speaker_count: o.speakers }),
            signal: c.io.signal,
          });
          if (!r.ok) fail(c, r);
          if (o.wait !== true) return void c.io.stdout.write(c.asJson ? json(r.data) : `${r.data.job_id}\n`);
          showEndedJob(c, await followJob(c, r.data.job_id, o.timeout));
        },
      },
    ],
  },
];
