/**
 * `mas`: the Meeting Automation Service from the command line. One command
 * per operation of API.md, over the typed client (client/client.ts), with
 * commander for parsing and help (docs/decisions/048-mas-command-line.md).
 *
 * main() never exits the process; it returns the exit code:
 *   0 done; 1 the API refused (4xx) or the awaited work ended failed or
 *   cancelled; 2 bad command line; 3 a server error (5xx) or the service
 *   could not be reached; 4 a wait ran out of time; 130 interrupted (Ctrl+C).
 */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import {
  MasClient,
  TransportError,
  type ApiResult,
  type OperationId,
  type Schemas,
  type WaitOperation,
  type WaitResult,
} from '../client/client.ts';
import { cell, errorLine, fields, json, table, type Row, type Writable } from './output.ts';
import { ProgressLine, jobLine, uploadLine } from './progress.ts';
import { resolveTarget, UsageError, type Target } from './settings.ts';

export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3, timedOut: 4, interrupted: 130 } as const;

export interface Io {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl+C. */
  signal: AbortSignal;
  version: string;
}

/** Thrown inside a command to end it with an exit code (after its message is printed). */
class Exit extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.code = code;
  }
}

const CONFIG_SECTIONS = [
  'vad',
  'diarization',
  'speaker-identification',
  'meeting-detection',
  'global-shortcut',
  'audio-player',
  'custom-words',
  'initial-prompt',
];

const EXIT_HELP = `
Exit codes:
  0    done
  1    the API refused the request (4xx), or the awaited job, summary or recording ended failed
  2    bad command line (unknown command or option, missing argument, unreadable file)
  3    the service answered with a server error (5xx) or could not be reached
  4    a wait ran out of time (--timeout)
  130  interrupted (Ctrl+C); an interrupted upload is aborted and imports nothing

Token: --token, else MAS_TOKEN, else "token" in $XDG_CONFIG_HOME/mas/config.json
(~/.config/mas/config.json); the file may also hold "base_url", "ca" and "insecure".
Errors print on one line: HTTP <status> <code>[/<sub-code>]: <message>.
--json prints the API's own JSON (and an error's envelope) on stdout, for scripts.`;

interface Context {
  client: MasClient;
  target: Target;
  io: Io;
  asJson: boolean;
  progress: ProgressLine;
}

function intArg(name: string, min: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < min) throw new InvalidArgumentError(`${name} must be a whole number of at least ${min}`);
    return Number(raw);
  };
}

function listArg(raw: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  ];
}

export function buildProgram(io: Io): Command {
  const program = new Command('mas');
  program
    .description('The Meeting Automation Service from the command line: every route of the HTTP API.')
    .version(io.version, '-V, --version', 'print the version of mas')
    .option('--base-url <url>', 'the service (MAS_BASE_URL; default http://127.0.0.1:8420, the loopback listener)')
    .option('--token <token>', 'an API token (MAS_TOKEN, or "token" in the config file)')
    .option('--ca <file>', "PEM certificate to trust for the LAN listener (https://host:8421): the installation's own certificate")
    .option('--insecure', 'accept any certificate on https (a first look at a LAN listener)')
    .option('--json', "print the API's own JSON")
    .option('--no-progress', 'never draw progress, even on a terminal')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_HELP)
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();

  const context = (cmd: Command): Context => {
    const g = cmd.optsWithGlobals<{
      baseUrl?: string;
      token?: string;
      ca?: string;
      insecure?: boolean;
      json?: boolean;
      progress?: boolean;
    }>();
    const target = resolveTarget(g, io.env);
    const client = new MasClient({
      baseUrl: target.baseUrl,
      ...(target.token !== undefined ? { token: target.token } : {}),
      ...(target.ca !== undefined ? { ca: target.ca } : {}),
      insecure: target.insecure,
      userAgent: `mas/${io.version}`,
    });
    // Progress only where a person watches: stdout and stderr both terminals, and not asked off.
    const drawing = g.progress !== false && io.stdout.isTTY === true && io.stderr.isTTY === true;
    return { client, target, io, asJson: g.json === true, progress: new ProgressLine(io.stderr, drawing) };
  };

  /** Runs one API call and prints its data (JSON or the human form), or its error. */
  const show = <O extends OperationId>(c: Context, r: ApiResult<O>, human: (data: ApiResult<O> & { ok: true }) => string): void => {
    if (!r.ok) fail(c, r);
    c.io.stdout.write(c.asJson ? (typeof r.data === 'string' ? r.data : json(r.data)) : human(r));
  };

  const action = (fn: (c: Context, ...args: never[]) => Promise<void>) =>
    async function (this: Command, ...args: unknown[]): Promise<void> {
      // commander passes the positional arguments, the options object, then the command itself.
      await fn(context(this), ...(args.slice(0, -1) as never[]));
    };

  // ── System ───────────────────────────────────────────────────────────────
  program
    .command('health')
    .description('liveness, version and counters (no token needed)')
    .action(action(async (c) => show(c, await c.client.call('getHealth', { signal: c.io.signal }), (r) => fields(flatten(r.data as Row)))));
  program
    .command('whoami')
    .description("the token's id, scopes and license tier")
    .action(action(async (c) => show(c, await c.client.call('getWhoami', { signal: c.io.signal }), (r) => fields(r.data as Row))));
  program
    .command('openapi')
    .description("the service's OpenAPI 3.1 document (always JSON)")
    .action(
      action(async (c) => {
        const r = await c.client.call('getOpenApi', { signal: c.io.signal });
        if (!r.ok) fail(c, r);
        c.io.stdout.write(json(r.data));
      }),
    );
  program
    .command('search')
    .description('full-text search over titles and transcripts')
    .argument('<words...>', 'what to find')
    .option('--limit <n>', 'results per page (1..200, default 50)', intArg('--limit', 0))
    .option('--offset <n>', 'results to skip', intArg('--offset', 0))
    .action(
      action(async (c, words: string[], o: { limit?: number; offset?: number }) => {
        const r = await c.client.call('searchMeetings', {
          query: { q: words.join(' '), limit: o.limit, offset: o.offset },
          signal: c.io.signal,
        });
        show(c, r, (ok) => table(ok.data.results as Row[], ['meeting_id', 'title', 'timestamp', 'match_context']));
      }),
    );
  program
    .command('devices')
    .description('audio input and output devices')
    .action(
      action(async (c) =>
        show(c, await c.client.call('listDevices', { signal: c.io.signal }), (r) =>
          table(r.data.devices as Row[], ['name', 'device_type']),
        ),
      ),
    );
  program
    .command('models')
    .description('speech recognition models on this machine')
    .action(
      action(async (c) =>
        show(c, await c.client.call('listModels', { signal: c.io.signal }), (r) =>
          table(r.data.models as Row[], ['name', 'size_mb', 'accuracy', 'speed', 'status', 'is_custom']),
        ),
      ),
    );

  // ── Meetings ─────────────────────────────────────────────────────────────
  const meetings = program.command('meetings').description('list, read, rename, delete and export meetings');
  meetings
    .command('list')
    .description('meetings, newest first')
    .option('--limit <n>', 'meetings per page (1..200, default 50)', intArg('--limit', 0))
    .option('--offset <n>', 'meetings to skip', intArg('--offset', 0))
    .action(
      action(async (c, o: { limit?: number; offset?: number }) => {
        const r = await c.client.call('listMeetings', { query: { limit: o.limit, offset: o.offset }, signal: c.io.signal });
        show(
          c,
          r,
          (ok) =>
            table(ok.data.meetings as Row[], ['id', 'title', 'created_at', 'duration_seconds']) +
            `${ok.data.meetings.length} of ${ok.data.total}\n`,
        );
      }),
    );
  meetings
    .command('get')
    .description('one meeting')
    .argument('<id>', 'meeting id')
    .action(
      action(async (c, id: string) =>
        show(c, await c.client.call('getMeeting', { path: { id }, signal: c.io.signal }), (r) => fields(r.data as Row)),
      ),
    );
  meetings
    .command('rename')
    .description('set the title (at most 500 characters)')
    .argument('<id>', 'meeting id')
    .argument('<title>', 'the new title')
    .action(
      action(async (c, id: string, title: string) =>
        show(c, await c.client.call('renameMeeting', { path: { id }, body: { title }, signal: c.io.signal }), (r) => fields(r.data as Row)),
      ),
    );
  meetings
    .command('delete')
    .description('delete a meeting with its transcript and summary; irreversible, so --yes is required')
    .argument('<id>', 'meeting id')
    .option('--delete-files', 'also remove the recording file')
    .option('--yes', 'confirm the deletion')
    .action(
      action(async (c, id: string, o: { deleteFiles?: boolean; yes?: boolean }) => {
        if (o.yes !== true) throw new UsageError('deleting a meeting is irreversible: add --yes to confirm');
        const r = await c.client.call('deleteMeeting', {
          path: { id },
          query: { delete_files: o.deleteFiles === true },
          signal: c.io.signal,
        });
        show(c, r, (ok) => `deleted ${ok.data.id}${ok.data.files_deleted ? ' and its recording file' : ''}\n`);
      }),
    );
  meetings
    .command('export')
    .description('export as Markdown, plain text or JSON (to stdout, or --out)')
    .argument('<id>', 'meeting id')
    .addOption(new Option('--format <format>', 'md, txt or json').choices(['md', 'markdown', 'txt', 'text', 'json']).default('md'))
    .option('--out <file>', 'write to this file instead of stdout')
    .action(
      action(async (c, id: string, o: { format: 'md' | 'markdown' | 'txt' | 'text' | 'json'; out?: string }) => {
        const r = await c.client.call('exportMeeting', { path: { id }, query: { format: o.format }, signal: c.io.signal });
        if (!r.ok) fail(c, r);
        const text = typeof r.data === 'string' ? r.data : json(r.data);
        if (o.out !== undefined) {
          const { writeFileSync } = await import('node:fs');
          writeFileSync(o.out, text);
          if (!c.asJson) c.io.stdout.write(`${o.out}\n`);
        } else {
          c.io.stdout.write(text);
        }
      }),
    );

  program
    .command('transcript')
    .description("a meeting's transcript")
    .argument('<id>', 'meeting id')
    .action(
      action(async (c, id: string) =>
        show(c, await c.client.call('getTranscript', { path: { id }, signal: c.io.signal }), (r) =>
          r.data.segments.length === 0
            ? '(empty transcript)\n'
            : r.data.segments.map((s) => `[${clock(s.start)}] ${s.speaker_name ?? s.speaker}: ${s.text}`).join('\n') + '\n',
        ),
      ),
    );

  program
    .command('speaker-labels')
    .description('name speakers: KEY=NAME sets a label, KEY= removes it')
    .argument('<id>', 'meeting id')
    .argument('<labels...>', 'S1=Alice S2=Bob …')
    .action(
      action(async (c, id: string, pairs: string[]) => {
        const labels: Record<string, string | null> = {};
        for (const p of pairs) {
          const eq = p.indexOf('=');
          if (eq <= 0) throw new UsageError(`"${p}" is not KEY=NAME`);
          labels[p.slice(0, eq)] = p.slice(eq + 1) === '' ? null : p.slice(eq + 1);
        }
        show(c, await c.client.call('setSpeakerLabels', { path: { id }, body: { labels }, signal: c.io.signal }), (r) =>
          fields(r.data.labels as Row),
        );
      }),
    );

  // ── Summary ──────────────────────────────────────────────────────────────
  const summary = program.command('summary').description("read, overwrite and regenerate a meeting's summary");
  summary
    .command('get')
    .description('the stored summary')
    .argument('<id>', 'meeting id')
    .action(
      action(async (c, id: string) =>
        show(c, await c.client.call('getSummary', { path: { id }, signal: c.io.signal }), (r) => summaryText(r.data)),
      ),
    );
  summary
    .command('set')
    .description('overwrite the summary (no undo) with TEXT, --file, or stdin')
    .argument('<id>', 'meeting id')
    .argument('[text]', 'the new summary text')
    .option('--file <file>', "read the text from a file ('-' for stdin)")
    .action(
      action(async (c, id: string, text: string | undefined, o: { file?: string }) => {
        const body = text ?? (await readInput(c.io, o.file, 'the summary text'));
        show(c, await c.client.call('overwriteSummary', { path: { id }, body: { text: body }, signal: c.io.signal }), (r) =>
          summaryText(r.data),
        );
      }),
    );
  summary
    .command('regenerate')
    .description('start a regeneration; omitted options fall back to the stored configuration')
    .argument('<id>', 'meeting id')
    .option('--model <model>', 'summarizer')
    .option('--model-name <name>', 'model name')
    .option('--template <id>', 'template id (default daily_standup)')
    .option('--language <tag>', 'language tag')
    .option('--wait', 'wait until the regeneration ends')
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 4)', intArg('--timeout', 0))
    .action(
      action(
        async (
          c,
          id: string,
          o: { model?: string; modelName?: string; template?: string; language?: string; wait?: boolean; timeout?: number },
        ) => {
          const body = { model: o.model, model_name: o.modelName, template_id: o.template, language: o.language };
          const r = await c.client.call('regenerateSummary', { path: { id }, body: dropUndefined(body), signal: c.io.signal });
          if (!r.ok) fail(c, r);
          if (o.wait !== true)
            return void c.io.stdout.write(c.asJson ? json(r.data) : fields(r.data, ['operation_id', 'state', 'wait_url', 'status_url']));
          await followSummary(c, id, r.data.operation_id, o.timeout);
        },
      ),
    );
  summary
    .command('operation')
    .description('the status of a regeneration')
    .argument('<id>', 'meeting id')
    .argument('<operation-id>', 'operation id from regenerate')
    .action(
      action(async (c, id: string, operationId: string) =>
        show(c, await c.client.call('getSummaryOperation', { path: { id, operation_id: operationId }, signal: c.io.signal }), (r) =>
          fields(r.data as Row),
        ),
      ),
    );
  summary
    .command('wait')
    .description('wait for a regeneration to end')
    .argument('<id>', 'meeting id')
    .argument('<operation-id>', 'operation id from regenerate')
    .option('--timeout <seconds>', 'give up after this long (exit 4)', intArg('--timeout', 0))
    .action(action(async (c, id: string, operationId: string, o: { timeout?: number }) => followSummary(c, id, operationId, o.timeout)));

  // ── Config ───────────────────────────────────────────────────────────────
  const config = program.command('config').description(`read or replace one configuration section (${CONFIG_SECTIONS.join(', ')})`);
  config
    .command('get')
    .description('one section')
    .argument('<section>', 'section name')
    .action(
      action(async (c, section: string) =>
        show(c, await c.client.call('getConfigSection', { path: { section: section as 'vad' }, signal: c.io.signal }), (r) =>
          configText(r.data),
        ),
      ),
    );
  config
    .command('set')
    .description('replace the whole section with a JSON object from FILE or stdin: omitted fields are dropped, not kept')
    .argument('<section>', 'section name')
    .argument('[file]', "JSON file ('-' or none: stdin)")
    .action(
      action(async (c, section: string, file: string | undefined) => {
        const text = await readInput(c.io, file ?? '-', 'the section JSON');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch (err) {
          throw new UsageError(`the section is not valid JSON: ${(err as Error).message}`);
        }
        const r = await c.client.call('replaceConfigSection', {
          path: { section: section as 'vad' },
          body: body as Schemas['ConfigSectionBody'],
          signal: c.io.signal,
        });
        show(c, r, (ok) => configText(ok.data));
      }),
    );

  // ── Jobs ─────────────────────────────────────────────────────────────────
  const jobs = program.command('jobs').description('import audio, and list, follow and control background jobs');
  jobs
    .command('import')
    .description(
      'upload an audio or video file (mp4, m4a, wav, mp3, flac, ogg, aac, mkv, webm, wma); prints ' +
        'the job id, or with --wait the meeting id',
    )
    .argument('<file>', "the file ('-' for stdin, with --filename)")
    .option('--filename <name>', 'the name the service sees (its extension names the format); default the file name')
    .option('--title <title>', 'title of the meeting')
    .option('--language <tag>', 'language tag (default en)')
    .option('--model <model>', 'a recognizer model from `mas models`')
    .option('--provider <provider>', 'pocketsphinx, whisper.cpp or openai-compatible')
    .option('--wait', 'wait until the job ends, showing its progress, and print the meeting id')
    .option('--timeout <seconds>', 'with --wait: give up waiting after this long (exit 4)', intArg('--timeout', 0))
    .action(
      action(
        async (
          c,
          file: string,
          o: { filename?: string; title?: string; language?: string; model?: string; provider?: string; wait?: boolean; timeout?: number },
        ) => {
          await importFile(c, file, o);
        },
      ),
    );
  jobs
    .command('list')
    .description('jobs, newest first')
    .action(
      action(async (c) =>
        show(c, await c.client.call('listJobs', { signal: c.io.signal }), (r) =>
          table(r.data.jobs.map(jobRow), ['id', 'kind', 'state', 'stage', 'progress', 'meeting_id', 'created_at']),
        ),
      ),
    );
  jobs
    .command('get')
    .description('one job')
    .argument('<id>', 'job id')
    .action(
      action(async (c, id: string) =>
        show(c, await c.client.call('getJob', { path: { id }, signal: c.io.signal }), (r) => fields(jobRow(r.data))),
      ),
    );
  for (const [name, op, text] of [
    ['cancel', 'cancelJob', 'cancel a job (idempotent on an ended job)'],
    ['pause', 'pauseJob', 'pause a running job (imports cannot be paused: conflict/import_not_pausable)'],
    ['resume', 'resumeJob', 'resume a paused job'],
    ['retry', 'retryJob', 'run a failed, retryable job again (the only way to retranscribe)'],
  ] as const) {
    jobs
      .command(name)
      .description(text)
      .argument('<id>', 'job id')
      .action(
        action(async (c, id: string) =>
          show(c, await c.client.call(op, { path: { id }, signal: c.io.signal }), (r) => fields(jobRow(r.data))),
        ),
      );
  }
  jobs
    .command('wait')
    .description('wait until a job ends, showing its progress; exit 1 if it failed or was cancelled')
    .argument('<id>', 'job id')
    .option('--timeout <seconds>', 'give up after this long (exit 4)', intArg('--timeout', 0))
    .action(
      action(async (c, id: string, o: { timeout?: number }) => {
        const job = await followJob(c, id, o.timeout);
        c.io.stdout.write(c.asJson ? json(job) : fields(jobRow(job)));
        if (job.state !== 'succeeded') throw new Exit(EXIT.refused);
      }),
    );
  jobs
    .command('diarization')
    .description('attribute the words of a meeting to speakers again')
    .argument('<meeting-id>', 'meeting id')
    .option('--speakers <n>', 'how many speakers (default: automatic)', intArg('--speakers', 1))
    .option('--wait', 'wait until the job ends')
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 4)', intArg('--timeout', 0))
    .action(
      action(async (c, meetingId: string, o: { speakers?: number; wait?: boolean; timeout?: number }) => {
        const r = await c.client.call('submitDiarization', {
          body: dropUndefined({ meeting_id: meetingId, speaker_count: o.speakers }),
          signal: c.io.signal,
        });
        if (!r.ok) fail(c, r);
        if (o.wait !== true) return void c.io.stdout.write(c.asJson ? json(r.data) : `${r.data.job_id}\n`);
        const job = await followJob(c, r.data.job_id, o.timeout);
        c.io.stdout.write(c.asJson ? json(job) : fields(jobRow(job)));
        if (job.state !== 'succeeded') throw new Exit(EXIT.refused);
      }),
    );

  // ── Recording ────────────────────────────────────────────────────────────
  const recording = program.command('recording').description('live capture of real microphone and/or system audio');
  recording
    .command('status')
    .description('the recorder state')
    .action(
      action(async (c) =>
        show(c, await c.client.call('getRecording', { signal: c.io.signal }), (r) => fields(r.data as Row, RECORDING_FIELDS)),
      ),
    );
  recording
    .command('start')
    .description('start recording now (answers with state starting); --wait until capture is up')
    .option('--name <title>', 'meeting name')
    .option('--mic <device>', 'microphone device name (see `mas devices`)')
    .option('--system <device>', 'system audio device name')
    .option('--wait', 'wait until recording has started')
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 4)', intArg('--timeout', 0))
    .action(
      action(async (c, o: { name?: string; mic?: string; system?: string; wait?: boolean; timeout?: number }) => {
        const body = dropUndefined({ meeting_name: o.name, mic_device_name: o.mic, system_device_name: o.system });
        const r = await c.client.call('startRecording', { body, signal: c.io.signal });
        if (!r.ok) fail(c, r);
        if (o.wait !== true) return void c.io.stdout.write(c.asJson ? json(r.data) : fields(r.data, RECORDING_FIELDS));
        await followRecording(c, 'started', o.timeout);
      }),
    );
  for (const [name, op, text] of [
    ['pause', 'pauseRecording', 'pause capture, keeping the recording'],
    ['resume', 'resumeRecording', 'resume a paused recording'],
  ] as const) {
    recording
      .command(name)
      .description(text)
      .action(
        action(async (c) => show(c, await c.client.call(op, { signal: c.io.signal }), (r) => fields(r.data as Row, RECORDING_FIELDS))),
      );
  }
  recording
    .command('stop')
    .description('stop and finalize the recording; --wait until it is idle')
    .option('--wait', 'wait until recording has stopped')
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 4)', intArg('--timeout', 0))
    .action(
      action(async (c, o: { wait?: boolean; timeout?: number }) => {
        const r = await c.client.call('stopRecording', { signal: c.io.signal });
        if (!r.ok) fail(c, r);
        if (o.wait !== true) return void c.io.stdout.write(c.asJson ? json(r.data) : fields(r.data, RECORDING_FIELDS));
        await followRecording(c, 'stopped', o.timeout);
      }),
    );
  recording
    .command('wait')
    .description('wait until recording has started or stopped')
    .addOption(new Option('--until <transition>', 'started or stopped').choices(['started', 'stopped']).makeOptionMandatory())
    .option('--timeout <seconds>', 'give up after this long (exit 4)', intArg('--timeout', 0))
    .action(action(async (c, o: { until: 'started' | 'stopped'; timeout?: number }) => followRecording(c, o.until, o.timeout)));

  // ── Webhooks ─────────────────────────────────────────────────────────────
  const webhooks = program.command('webhooks').description('register and inspect webhooks (the application must have webhook delivery on)');
  webhooks
    .command('create')
    .description('register a webhook; prints its signing secret this once')
    .argument('<url>', 'http:// or https:// destination')
    .requiredOption('--events <names>', 'comma-separated event names, e.g. job.completed,summary.completed', listArg)
    .addOption(new Option('--mode <mode>', 'delivery mode').choices(['at-least-once', 'at-most-once']))
    .option('--secret <secret>', 'your own signing secret (16 to 256 visible characters); generated when omitted')
    .action(
      action(async (c, url: string, o: { events: string[]; mode?: 'at-least-once' | 'at-most-once'; secret?: string }) => {
        const body = dropUndefined({ url, events: o.events, delivery_mode: o.mode, secret: o.secret });
        show(c, await c.client.call('createWebhook', { body: body, signal: c.io.signal }), (r) => fields(r.data as Row));
      }),
    );
  webhooks
    .command('list')
    .description("the caller's webhooks")
    .option('--all', "every owner's webhooks (delete scope and a first-party token)")
    .action(
      action(async (c, o: { all?: boolean }) =>
        show(c, await c.client.call('listWebhooks', { query: { all: o.all === true }, signal: c.io.signal }), (r) =>
          table(r.data.webhooks as Row[], ['id', 'url', 'events', 'delivery_mode', 'approval_state']),
        ),
      ),
    );
  webhooks
    .command('get')
    .description('one webhook with its approval state')
    .argument('<id>', 'webhook id')
    .action(
      action(async (c, id: string) =>
        show(c, await c.client.call('getWebhook', { path: { id }, signal: c.io.signal }), (r) => fields(r.data as Row)),
      ),
    );
  webhooks
    .command('delete')
    .description('delete an owned webhook and its delivery log')
    .argument('<id>', 'webhook id')
    .action(
      action(async (c, id: string) =>
        show(c, await c.client.call('deleteWebhook', { path: { id }, signal: c.io.signal }), (r) => `deleted ${r.data.id}\n`),
      ),
    );
  webhooks
    .command('deliveries')
    .description('the delivery log: the most recent 100 entries')
    .argument('<id>', 'webhook id')
    .action(
      action(async (c, id: string) =>
        show(c, await c.client.call('listWebhookDeliveries', { path: { id }, signal: c.io.signal }), (r) =>
          table(r.data.deliveries as Row[], ['occurred_at', 'event', 'attempt', 'delivered', 'reason', 'status_code', 'detail']),
        ),
      ),
    );
  webhooks
    .command('test')
    .description('send one webhook.test delivery (single attempt) if the destination is approved')
    .argument('<id>', 'webhook id')
    .action(
      action(async (c, id: string) =>
        show(c, await c.client.call('testWebhook', { path: { id }, signal: c.io.signal }), (r) => fields(r.data as Row)),
      ),
    );

  // ── Pairing ──────────────────────────────────────────────────────────────
  const pair = program
    .command('pair')
    .description('ask for a token from this device (no token needed); a person approves it in the application');
  pair
    .command('request')
    .description('ask for a token')
    .argument('<client-name>', 'how the request is shown in the application')
    .requiredOption('--scopes <scopes>', 'comma-separated: read, record, write', listArg)
    .action(
      action(async (c, clientName: string, o: { scopes: string[] }) =>
        show(c, await c.client.call('requestPairing', { body: { client_name: clientName, scopes: o.scopes }, signal: c.io.signal }), (r) =>
          fields(r.data as Row),
        ),
      ),
    );
  pair
    .command('status')
    .description('poll a request; the first poll after approval shows the token, once')
    .argument('<id>', 'pairing id')
    .action(
      action(async (c, id: string) =>
        show(c, await c.client.call('getPairing', { path: { id }, signal: c.io.signal }), (r) => fields(r.data as Row)),
      ),
    );

  // Every command says how to get help and what the exit codes are.
  for (const cmd of allCommands(program)) {
    if (cmd !== program)
      cmd.addHelpText(
        'after',
        `\nGlobal options (--base-url, --token, --ca, --insecure, --json, --no-progress) and exit codes: mas --help`,
      );
    cmd
      .showHelpAfterError('(add --help for usage)')
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  }
  return program;
}

function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(allCommands)];
}

const RECORDING_FIELDS = ['state', 'active_meeting_id', 'session_id', 'meeting_name', 'captured_seconds', 'last_meeting_id', 'last_error'];

/** Prints an API error on one line (and its envelope with --json) and ends with the exit code of its class. */
function fail(c: Context, r: { ok: false; status: number; error: unknown; headers: Record<string, string | string[] | undefined> }): never {
  c.progress.clear();
  const error = r.error as { code: string; message: string };
  if (c.asJson) c.io.stdout.write(json({ error }));
  const retryAfter = r.headers['retry-after'];
  c.io.stderr.write(errorLine(r.status, error, typeof retryAfter === 'string' ? retryAfter : undefined));
  if (r.status === 401 && c.target.tokenSource === 'none')
    c.io.stderr.write(`mas: no token: pass --token, set MAS_TOKEN, or put {"token": "…"} in ${c.target.configFile}\n`);
  throw new Exit(r.status >= 500 ? EXIT.unreachable : EXIT.refused);
}

async function importFile(
  c: Context,
  file: string,
  o: { filename?: string; title?: string; language?: string; model?: string; provider?: string; wait?: boolean; timeout?: number },
): Promise<void> {
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

async function followSummary(c: Context, id: string, operationId: string, timeoutSeconds: number | undefined): Promise<void> {
  const path = { id, operation_id: operationId };
  const stopPolling = poll(c, async () => {
    const s = await c.client.call('getSummaryOperation', { path, signal: c.io.signal });
    return s.ok ? `Summary ${operationId}  ${s.data.state}` : undefined;
  });
  let event: string;
  try {
    event = await untilEvent(
      c,
      timeoutSeconds,
      (seconds) => c.client.wait('waitSummaryOperation', { path, query: { timeout_ms: seconds * 1000 }, signal: c.io.signal }),
      `summary operation ${operationId}`,
    );
  } finally {
    stopPolling();
  }
  const s = await c.client.call('getSummaryOperation', { path, signal: c.io.signal });
  if (!s.ok) fail(c, s);
  c.progress.done(`Summary ${operationId}  ${s.data.state}`);
  c.io.stdout.write(
    c.asJson ? json(s.data) : fields(s.data, ['operation_id', 'meeting_id', 'state', 'template_id', 'model', 'error', 'finished_at']),
  );
  if (event !== 'summary.completed') throw new Exit(EXIT.refused);
}

async function followRecording(c: Context, until: 'started' | 'stopped', timeoutSeconds: number | undefined): Promise<void> {
  c.progress.update(`Waiting until recording has ${until}…`, true);
  const event = await untilEvent(
    c,
    timeoutSeconds,
    (seconds) => c.client.wait('waitRecording', { query: { until, timeout: seconds }, signal: c.io.signal }),
    `recording ${until}`,
  );
  const r = await c.client.call('getRecording', { signal: c.io.signal });
  if (!r.ok) fail(c, r);
  c.progress.done(`Recording ${r.data.state}`);
  c.io.stdout.write(c.asJson ? json(r.data) : fields(r.data, RECORDING_FIELDS));
  if (event !== `recording.${until}`) throw new Exit(EXIT.refused);
}

/**
 * Opens waits until one ends with a real event; a timeout event re-opens the
 * wait (the service caps one at an hour) unless the caller's --timeout is spent.
 */
async function untilEvent<O extends WaitOperation>(
  c: Context,
  timeoutSeconds: number | undefined,
  open: (seconds: number) => Promise<WaitResult<O>>,
  what: string,
): Promise<string> {
  const deadline = timeoutSeconds === undefined ? null : performance.now() + timeoutSeconds * 1000;
  for (;;) {
    const left = deadline === null ? 3600 : Math.max(0, Math.ceil((deadline - performance.now()) / 1000));
    const w = await open(Math.min(3600, left));
    if (!w.ok) fail(c, w);
    if (w.data.event !== 'timeout') return w.data.event;
    if (deadline !== null && performance.now() >= deadline - 500) {
      c.progress.clear();
      c.io.stderr.write(`mas: gave up waiting for ${what} after ${timeoutSeconds ?? 0} s\n`);
      throw new Exit(EXIT.timedOut);
    }
  }
}

/**
 * Redraws the progress line once a second while a terminal watches; nothing
 * otherwise. `line` fetches the text to show (undefined: keep the last). A
 * fetch still in flight when polling stops is dropped, so no stale line lands
 * after the final one. Returns the stop function.
 */
function poll(c: Context, line: () => Promise<string | undefined>): () => void {
  if (!c.progress.enabled) return () => undefined;
  let stopped = false;
  const run = () => {
    if (stopped) return;
    line().then(
      (text) => {
        if (!stopped && text !== undefined) c.progress.update(text);
      },
      () => undefined,
    );
  };
  run();
  const timer = setInterval(run, 1000);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

async function readInput(io: Io, file: string | undefined, what: string): Promise<string> {
  if (file !== undefined && file !== '-') {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (io.stdin.isTTY === true) throw new UsageError(`give ${what} as an argument, a file, or on stdin`);
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function dropUndefined<T extends Record<string, unknown>>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

function flatten(obj: Row, prefix = ''): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v as Row, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = v;
  }
  return out;
}

function jobRow(job: Schemas['JobDto']): Row {
  return { ...job, progress: `${Math.round(job.progress * 100)}%` };
}

function clock(seconds: number): string {
  const s = Math.floor(seconds);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

function summaryText(s: Schemas['SummaryDto']): string {
  const head = fields(s, ['meeting_id', 'status', 'regeneration_failed', 'error', 'updated_at']);
  const result = s.result as Record<string, unknown> | null;
  const text = result !== null && typeof result['text'] === 'string' ? `\n${result['text']}\n` : result !== null ? `\n${json(result)}` : '';
  return head + text;
}

function configText(c: Schemas['ConfigDto']): string {
  return `section: ${c.section}\n${json(c.config)}${c.withheld.length > 0 ? `withheld: ${c.withheld.map(cell).join(', ')}\n` : ''}`;
}

/** Runs mas with these arguments; resolves with the exit code. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof Exit) return err.code;
    if (err instanceof CommanderError) {
      // --help and --version end through exitOverride with code 0.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof UsageError) {
      io.stderr.write(`mas: ${err.message}\n`);
      return EXIT.usage;
    }
    if ((err as { name?: string }).name === 'AbortError' || io.signal.aborted) {
      io.stderr.write('\nmas: interrupted; an upload in progress was aborted and imports nothing (a job already accepted goes on)\n');
      return EXIT.interrupted;
    }
    if (err instanceof TransportError) {
      io.stderr.write(`mas: ${err.message}\n`);
      return EXIT.unreachable;
    }
    io.stderr.write(`mas: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.unreachable;
  }
}
