/**
 * Builds everything createApp needs from an open database and the data
 * folder. gateway.ts calls it at start and at every restart; tests call it
 * with an in-memory database.
 *
 * The audio pipeline's real parts are the default; a test may replace any of
 * them (`pipeline`) to drive the job machinery deterministically. The real
 * path is exercised end to end by the import tests.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppDeps } from './app.ts';
import { systemClock, type Clock } from './adapters/clock.ts';
import { RealDeviceCatalog, type DeviceCatalog } from './adapters/devices.ts';
import { DEFAULT_POCKETSPHINX_ROOTS, ModelCatalog } from './adapters/models.ts';
import { ConfigService } from './features/config/service.ts';
import { sweepDataFolder } from './kernel/store/data-sweep.ts';
import { DEFAULT_IMPORT_LIMITS, ImportBudget, type ImportLimits } from './features/jobs/imports/budget.ts';
import { JobsService } from './features/jobs/service.ts';
import { MeetingsService } from './features/meetings/service.ts';
import { SearchService } from './features/search/service.ts';
import { SummaryService, type SummarizerCatalog } from './features/summaries/service.ts';
import { ApiError } from './kernel/errors.ts';
import { EventBus } from './kernel/events.ts';
import { HealthCounters } from './kernel/health-counters.ts';
import { createJobRunners, type PipelineDeps } from './features/jobs/runners.ts';
import { realPipeline } from './real-pipeline.ts';
import type { Database } from './kernel/store/database.ts';
import { JobsRepo } from './features/jobs/repo.ts';
import { SettingsRepo } from './kernel/store/settings-repo.ts';
import { TokensRepo } from './kernel/store/tokens-repo.ts';
import { WebhooksService, type WebhookDeliveryOverrides } from './features/webhooks/service.ts';
import { PairingService } from './features/pairing/service.ts';
import type { CaptureOptions } from './features/recording/capture.ts';
import { RecordingProcessor } from './features/recording/processor.ts';
import { PENDING_PREFIX, RecordingService } from './features/recording/service.ts';
import { SERVER_VERSION } from './kernel/version.ts';
import type { Logger } from './kernel/http/logger.ts';

/** Where things live inside the data folder. */
export function dataPaths(dataDir: string) {
  return {
    database: join(dataDir, 'gateway.sqlite'),
    recordings: join(dataDir, 'recordings'),
    uploads: join(dataDir, 'uploads'),
    models: join(dataDir, 'models'),
    controlSecret: join(dataDir, 'control-secret'),
  };
}

/** The parts of the pipeline a test may replace. */
export type PipelineParts = Pick<PipelineDeps, 'decoder' | 'enhance' | 'detectSpeech' | 'diarize' | 'assignSpeakers' | 'recognizerFor'> & {
  summarizers: SummarizerCatalog;
  /** Throws an Error naming the problem for a provider or model that cannot be used. */
  checkRecognizer(provider: string | undefined, model: string | undefined): void;
};

export interface DepsOptions {
  db: Database;
  dataDir: string;
  clock?: Clock;
  /** Carried across restarts, so simulated devices stay plugged in. */
  devices?: DeviceCatalog;
  /**
   * When no catalog is carried: makes one that ends with these deps. The
   * composition root passes the simulator's (server/main.ts, testing/); the
   * default lists the real devices only.
   */
  makeDevices?: () => DeviceCatalog;
  validateResponses?: boolean;
  pocketsphinxRoots?: readonly string[];
  importLimits?: ImportLimits;
  pipeline?: Partial<PipelineParts>;
  env?: NodeJS.ProcessEnv;
  /** Webhook delivery parts a test replaces (resolver, transport, scheduler, limits). */
  webhooks?: WebhookDeliveryOverrides;
  /** Where the recorder looks for its capture tools (tests: a PATH without parec). */
  recordingCapture?: CaptureOptions;
}

export function createDeps(opts: DepsOptions): AppDeps {
  const paths = dataPaths(opts.dataDir);
  mkdirSync(paths.recordings, { recursive: true, mode: 0o700 });
  mkdirSync(paths.uploads, { recursive: true, mode: 0o700 });
  const clock = opts.clock ?? systemClock;
  const counters = new HealthCounters();
  // Unexpected failures inside jobs and summaries; createApp's owner replaces logError.
  const deps: AppDeps = {} as AppDeps;
  const logError = (err: unknown) => deps.logError?.(err, undefined);
  const bus = new EventBus(clock, logError);
  const config = new ConfigService({ db: opts.db, clock });
  const meetings = new MeetingsService({ db: opts.db, clock, recordingsDir: paths.recordings });
  const parts: PipelineParts = { ...realPipeline({ dataDir: opts.dataDir, env: opts.env ?? process.env, config }), ...opts.pipeline };
  const summaries = new SummaryService({
    db: opts.db,
    bus,
    clock,
    meetings,
    summarizers: parts.summarizers,
    defaults: { template_id: 'daily_standup', model: 'extractive', model_name: null },
    logError,
  });
  const jobsRepo = new JobsRepo(opts.db);
  let jobs: JobsService | null = null;
  const runners = createJobRunners({
    ...parts,
    config,
    meetings,
    summaries,
    bus,
    uploadPath: (job) => jobs!.uploadPath(job),
    now: () => clock.now(),
  });
  jobs = new JobsService({ repo: jobsRepo, bus, clock, uploadsDir: paths.uploads, runners, logError });
  const jobsService = jobs;
  meetings.onBeforeDelete((id) => jobsService.releaseMeeting(id));
  const settings = new SettingsRepo(opts.db);
  const tokens = new TokensRepo(opts.db);
  // The 'Local webhook targets' allowlist is read here, at startup and at each restart, never live.
  const webhooks = new WebhooksService({
    db: opts.db,
    bus,
    clock,
    counters,
    settings,
    allowlist: settings.get().local_webhook_targets,
    logError,
    ...opts.webhooks,
  });
  const pairing = new PairingService({ clock, tokens });
  // Devices given by the caller outlive these deps (gateway restarts); ones made here end with them.
  const devices = opts.devices ?? opts.makeDevices?.() ?? new RealDeviceCatalog();
  const ownsDevices = opts.devices === undefined;
  let recording: RecordingService | null = null;
  const processor = new RecordingProcessor({
    parts,
    config,
    meetings,
    summaries,
    bus,
    onSettled: (id) => recording?.settled(id),
    logError,
  });
  recording = new RecordingService({
    devices,
    virtual: devices.virtualBackend(),
    meetings,
    bus,
    clock,
    recordingsDir: paths.recordings,
    processor,
    settings: () => settings.get(),
    ...(opts.recordingCapture !== undefined ? { capture: opts.recordingCapture } : {}),
    logError,
  });
  const recordingService = recording;

  Object.assign(deps, {
    version: SERVER_VERSION,
    clock,
    counters,
    settings,
    tokens,
    meetings,
    search: new SearchService({ db: opts.db }),
    config,
    devices,
    models: new ModelCatalog({ pocketsphinxRoots: opts.pocketsphinxRoots ?? DEFAULT_POCKETSPHINX_ROOTS, customDir: paths.models }),
    bus,
    jobs: jobsService,
    summaries,
    webhooks,
    pairing,
    recording: recordingService,
    importBudget: new ImportBudget(opts.importLimits ?? DEFAULT_IMPORT_LIMITS),
    uploadsDir: paths.uploads,
    checkRecognizer(provider: string | undefined, model: string | undefined) {
      try {
        parts.checkRecognizer(provider, model);
      } catch (err) {
        throw new ApiError('invalid_request', err instanceof Error ? err.message : 'unknown provider or model');
      }
    },
    start() {
      summaries.recover();
      jobsService.recover();
      webhooks.start();
      recordingService.recover();
      // Last: what the steps above still own is referenced or kept by now.
      sweepDataFolder({
        uploadsDir: paths.uploads,
        recordingsDir: paths.recordings,
        referencedUploads: jobsRepo.referencedUploads(),
        referencedRecordings: meetings.referencedRecordings(),
        alsoKeep: (name) => name.startsWith(PENDING_PREFIX),
      });
    },
    shutdown() {
      recordingService.shutdown(); // capture stops, the audio file is completed
      if (ownsDevices) devices.virtualBackend()?.dispose();
      jobsService.stop();
      summaries.stop();
      webhooks.stop(); // undelivered events are dropped, never replayed
    },
    validateResponses: opts.validateResponses ?? false,
  } satisfies Omit<AppDeps, 'logError'>);
  return deps;
}

/** The simulated devices' notices ("[devices] PulseAudio is not available …") as warnings of the gateway's log. */
export function deviceLog(logger: Logger): (line: string) => void {
  return (line) => logger.warn({ component: 'devices' }, line.replace(/^\[devices\] /, ''));
}
