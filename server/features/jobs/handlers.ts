/**
 * Handlers of every route under /v1/jobs. Decisions on the gaps (response
 * bodies, sub-code conditions, the wait's event) are in docs/decisions/012-jobs.md.
 */
import type { HandlersFor } from '../../http-types.ts';
import { ApiError } from '../../kernel/errors.ts';
import type { EventBus } from '../../kernel/events.ts';
import { waitOnBus } from '../../kernel/sse-wait.ts';
import type { MeetingsService } from '../meetings/index.ts';
import type { ImportBudget } from './imports/budget.ts';
import { ClientGoneError, receiveUpload } from './imports/upload.ts';
import { isTerminal } from './states.ts';
import { jobDto, newJobId, type JobsService } from './service.ts';
import { IMPORT_EXTENSIONS, type ImportExtension } from '../../pipeline/types.ts';
import type { JobRecord } from './repo.ts';
import type { MediaStore } from '../../media/media-store.ts';

/** The services the jobs routes use, and nothing else (the composition root, server/deps.ts, builds them). */
export interface JobsDeps {
  jobs: JobsService;
  /** A diarization names a meeting that must exist. */
  meetings: Pick<MeetingsService, 'exists'>;
  /** The job wait listens to it. */
  bus: EventBus;
  importBudget: ImportBudget;
  /** Where import uploads are staged as they arrive (the media store). */
  media: Pick<MediaStore, 'stageUpload'>;
  /** Throws an Error naming the problem for a recognizer provider or model this build cannot use. */
  checkRecognizer(provider: string | undefined, model: string | undefined): void;
}

/** Media types that say the body is something other than the file itself. */
const NOT_A_FILE = /^(application\/(json|x-www-form-urlencoded|[a-z0-9.+-]+\+json)|multipart\/|text\/)/i;

function importExtension(filename: string): ImportExtension {
  // Only the extension is read; whatever path the name carries is ignored.
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  // ".wav" alone is a name with no extension, as in most file systems' view.
  const ext = dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
  const known = IMPORT_EXTENSIONS.find((e) => e === ext);
  if (known === undefined) {
    throw new ApiError('invalid_request', `filename must end in one of .${IMPORT_EXTENSIONS.join(', .')}; got "${base.slice(-40)}"`);
  }
  return known;
}

function jobIdParam(ctx: { params: { readonly id: string } }): string {
  return ctx.params.id;
}

export const jobHandlers = {
  listJobs: ({ deps }) => ({ status: 200, json: { jobs: deps.jobs.list().map(jobDto) } }),

  getJob: (ctx) => ({ status: 200, json: jobDto(ctx.deps.jobs.get(jobIdParam(ctx))) }),

  submitDiarization: ({ body, deps }) => {
    const { meeting_id, speaker_count } = body;
    if (!deps.meetings.exists(meeting_id)) throw new ApiError('bad_request', `meeting_id ${meeting_id.slice(0, 80)} names no meeting`);
    const job = deps.jobs.createDiarization(meeting_id, speaker_count);
    return { status: 202, json: { job_id: job.id } };
  },

  importAudio: async ({ query, req, res, deps }) => {
    const contentType = req.headers['content-type'];
    if (contentType !== undefined && NOT_A_FILE.test(contentType)) {
      throw new ApiError('bad_request', `send the raw file bytes as application/octet-stream, not ${contentType.split(';')[0]}`);
    }
    const ext = importExtension(query.filename);
    const { provider, model, title, language } = query;
    try {
      deps.checkRecognizer(provider, model); // 422 for an unknown provider or model, before any byte is stored
    } catch (err) {
      throw new ApiError('invalid_request', err instanceof Error ? err.message : 'unknown provider or model');
    }
    const jobId = newJobId();
    let upload;
    try {
      upload = await receiveUpload(req, { media: deps.media, jobId, ext, budget: deps.importBudget });
    } catch (err) {
      if (err instanceof ClientGoneError) {
        res.destroy(); // nobody is listening; nothing was kept
        return { streamed: true };
      }
      throw err;
    }
    const params = {
      ext,
      ...(title !== undefined ? { title } : {}),
      ...(language !== undefined ? { language } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(provider !== undefined ? { provider } : {}),
    };
    const job = deps.jobs.createImport(jobId, upload.file, params);
    return { status: 202, json: { job_id: job.id } };
  },

  cancelJob: (ctx) => ({ status: 200, json: jobDto(ctx.deps.jobs.cancel(jobIdParam(ctx))) }),
  pauseJob: (ctx) => ({ status: 200, json: jobDto(ctx.deps.jobs.pause(jobIdParam(ctx))) }),
  resumeJob: (ctx) => ({ status: 200, json: jobDto(ctx.deps.jobs.resume(jobIdParam(ctx))) }),
  retryJob: (ctx) => ({ status: 200, json: jobDto(ctx.deps.jobs.retry(jobIdParam(ctx))) }),

  waitJob: (ctx) => {
    const { deps, res } = ctx;
    const id = jobIdParam(ctx);
    deps.jobs.get(id); // 404 before the stream opens
    const timeoutSeconds = ctx.query.timeout;
    return waitOnBus({
      res,
      bus: deps.bus,
      timeoutMs: timeoutSeconds * 1000,
      timeoutData: { job_id: id, timeout_seconds: timeoutSeconds },
      settle: (e) => {
        const ending =
          e === null ||
          (e.resource.kind === 'job' &&
            e.resource.id === id &&
            (e.event === 'job.completed' || e.event === 'job.failed' || e.event === 'job.cancelled'));
        if (!ending) return null;
        const current = deps.jobs.get(id);
        // Resolve on the terminal state actually reached, whatever event woke us.
        return isTerminal(current.state) ? { event: eventOf(current), data: jobDto(current) } : null;
      },
    });
  },
} satisfies HandlersFor<
  'listJobs' | 'getJob' | 'submitDiarization' | 'importAudio' | 'cancelJob' | 'pauseJob' | 'resumeJob' | 'retryJob' | 'waitJob',
  JobsDeps
>;

function eventOf(job: JobRecord): string {
  return job.state === 'succeeded' ? 'job.completed' : job.state === 'failed' ? 'job.failed' : 'job.cancelled';
}
