/**
 * The composition root: builds every service once, from an open database
 * and the data folder, in dependency order, each from what it needs; then
 * hands each feature's handlers their own services (FeatureDeps,
 * server/handlers.ts). gateway.ts calls it at start and at every restart;
 * tests call it with an in-memory database. Decision 084.
 *
 * The audio pipeline's real parts are the default; a test may replace any of
 * them (`pipeline`) to drive the job machinery deterministically. The real
 * path is exercised end to end by the import tests.
 */
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { defaultLogError, type ApiDeps } from './app.ts';
import { systemClock, type Clock } from './adapters/clock.ts';
import { RealDeviceCatalog, type DeviceCatalog } from './adapters/devices.ts';
import { DEFAULT_POCKETSPHINX_ROOTS, ModelCatalog } from './adapters/models.ts';
import { ConfigService } from './features/config/index.ts';
import { createJobRunners, DEFAULT_IMPORT_LIMITS, ImportBudget, JobsRepo, JobsService, type ImportLimits } from './features/jobs/index.ts';
import { MeetingsService, type TypedNames } from './features/meetings/index.ts';
import { SpeakersService, VoiceprintRepo } from './features/speakers/index.ts';
import { SearchService } from './features/search/index.ts';
import { SummaryService } from './features/summaries/index.ts';
import { EventBus } from './kernel/events.ts';
import { HealthCounters } from './kernel/health-counters.ts';
import { realPipeline, type PipelineParts } from './real-pipeline.ts';
import type { Database } from './kernel/store/database.ts';
import { SettingsRepo } from './kernel/store/settings-repo.ts';
import { TokensRepo } from './kernel/store/tokens-repo.ts';
import { WebhooksService, type WebhookDeliveryOverrides } from './features/webhooks/index.ts';
import { PairingService } from './features/pairing/index.ts';
import { RecordingService, type CaptureOptions } from './features/recording/index.ts';
import { DetectionService } from './features/detection/index.ts';
import { PactlStreamWatch, type CaptureStreamWatch } from './adapters/sound-server.ts';
import { MediaStore, mediaFolders } from './media/media-store.ts';
import { SERVER_VERSION } from './kernel/version.ts';
import type { Logger } from './kernel/http/logger.ts';
import { Workers } from './work/workers.ts';

/**
 * What the composition root builds: the Automation API's parts (ApiDeps:
 * each feature's services, the gates, the failure log), the services
 * themselves for the gateway, the Control API and tests, and the lifecycle.
 */
export interface AppDeps extends ApiDeps {
  version: string;
  clock: Clock;
  counters: HealthCounters;
  settings: SettingsRepo;
  tokens: TokensRepo;
  meetings: MeetingsService;
  /** Speaker enrolment and the voiceprints (features/speakers/service.ts). */
  speakers: SpeakersService;
  search: SearchService;
  config: ConfigService;
  devices: DeviceCatalog;
  models: ModelCatalog;
  bus: EventBus;
  jobs: JobsService;
  summaries: SummaryService;
  /** Webhooks: registration, approval, delivery (features/webhooks/service.ts). */
  webhooks: WebhooksService;
  /** Pairing requests, in memory (features/pairing/service.ts). */
  pairing: PairingService;
  /** Live recording (features/recording/service.ts). */
  recording: RecordingService;
  /** Meetings detected on the sound server, recorded when auto-record is armed (features/detection/). */
  detection: DetectionService;
  importBudget: ImportBudget;
  /** The uploaded and recorded audio (server/media/media-store.ts). */
  media: MediaStore;
  /** Recovers what a stop interrupted, starts the workers and the deliveries, sweeps the data folder. */
  start(): void;
  /** Stops the job worker and the summary runs, before the store closes (restart, quit). */
  shutdown(): void;
}

/** Where things live inside the data folder; the audio folders are the media store's (read here for tools, never built). */
export function dataPaths(dataDir: string) {
  return {
    database: join(dataDir, 'gateway.sqlite'),
    ...mediaFolders(dataDir),
    models: join(dataDir, 'models'),
    controlSecret: join(dataDir, 'control-secret'),
  };
}

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
  /** The meeting detector's sound server and grace period (decision 143); default the session's server, 20 s. */
  detection?: DetectionOptions;
  /** Where unexpected failures are reported, with the request when there is one (default: standard error). */
  logError?: (err: unknown, req?: IncomingMessage) => void;
  /** One access line per API request to this logger (MAS_ACCESS_LOG); none by default. */
  accessLog?: Logger;
}

interface DetectionOptions {
  /** Where pactl finds the sound server (PULSE_SERVER, XDG_RUNTIME_DIR, PATH); default the gateway's environment. */
  env?: NodeJS.ProcessEnv;
  /** How long an app's capture may be gone before its meeting ends; default 20 s. */
  graceMs?: number;
  /** A stand-in for the sound server (unit tests). */
  watch?: CaptureStreamWatch;
  /** Where the detector's notices go; default none. */
  log?: (line: string) => void;
}

/** Webhook delivery. The 'Local webhook targets' allowlist is read here, at startup and at each restart, never live. */
function webhookDelivery(
  opts: DepsOptions,
  deps: Pick<ConstructorParameters<typeof WebhooksService>[0], 'bus' | 'clock' | 'counters' | 'logError'> & { settings: SettingsRepo },
): WebhooksService {
  return new WebhooksService({ db: opts.db, ...deps, allowlist: deps.settings.get().local_webhook_targets, ...opts.webhooks });
}

/**
 * Names from what is said (decision 152): only names a user typed are
 * proposed, known_speakers and the custom words, read as each transcript is read.
 */
function typedNames(config: ConfigService): () => TypedNames {
  return () => ({
    knownSpeakers: config.effective('speaker-identification').known_speakers.map((k) => k.name),
    customWords: config.effective('custom-words').words,
  });
}

/** Speaker enrolment: learns the voices a user names (PUT speaker-labels) once the labels are stored (decision 147). */
function speakerEnrolment(
  deps: Omit<ConstructorParameters<typeof SpeakersService>[0], 'log' | 'meetings' | 'decoder' | 'enhance'> & {
    meetings: MeetingsService;
    /** The transcription's decoder and front end: enrolment reads a recording as a transcription does (decision 167). */
    parts: Pick<PipelineParts, 'decoder' | 'enhance'>;
    log: (err: unknown) => void;
  },
): SpeakersService {
  const { parts, ...rest } = deps;
  const speakers = new SpeakersService({
    ...rest,
    decoder: parts.decoder,
    enhance: parts.enhance,
    log: (line) => deps.log(new Error(line)),
  });
  deps.meetings.onLabelsSet((id, labels) => speakers.labelsSet(id, labels));
  return speakers;
}

export function createDeps(opts: DepsOptions): AppDeps {
  const paths = dataPaths(opts.dataDir);
  // The one owner of uploaded and recorded audio: the features hand it media ids (decision 125).
  const media = new MediaStore({ dataDir: opts.dataDir });
  const clock = opts.clock ?? systemClock;
  const logError = opts.logError ?? defaultLogError;
  // Failures inside jobs, summaries, deliveries and listeners have no request to name.
  const logBackgroundError = (err: unknown) => logError(err, undefined);

  // The store's own parts and the bus: everything below stands on them.
  const counters = new HealthCounters();
  const settings = new SettingsRepo(opts.db);
  const tokens = new TokensRepo(opts.db);
  const bus = new EventBus(clock, logBackgroundError);

  // The resources, each after what it uses.
  // Voiceprints (biometric data, owner-only in the database file): config lists and removes names, speakers learns them.
  const voiceprints = new VoiceprintRepo(opts.db);
  const config = new ConfigService({ db: opts.db, clock, enrolled: voiceprints });
  const meetings = new MeetingsService({ db: opts.db, clock, bus, media });
  const search = new SearchService({ db: opts.db });
  const parts: PipelineParts = { ...realPipeline({ dataDir: opts.dataDir, env: opts.env ?? process.env }), ...opts.pipeline };
  const summaries = new SummaryService({ db: opts.db, bus, clock, meetings, summarizers: parts.summarizers, logError: logBackgroundError });
  const speakers = speakerEnrolment({ repo: voiceprints, clock, config, meetings, media, parts, log: logBackgroundError });
  // What a transcription, an import's or a recording's, runs with (identification's voiceprints too) and stores into.
  const settingsOfRun = () => ({ ...config.transcriptionSettings(), speakerIdentification: speakers.identificationSettings() });
  const transcription = { parts, settings: settingsOfRun, meetings, summaries, media };
  const jobsRepo = new JobsRepo(opts.db);
  const jobs = new JobsService({
    repo: jobsRepo,
    bus,
    clock,
    media,
    runners: createJobRunners({ ...transcription, now: () => clock.now() }),
    logError: logBackgroundError,
  });
  meetings.onBeforeDelete((id) => jobs.releaseMeeting(id));
  const webhooks = webhookDelivery(opts, { bus, clock, counters, settings, logError: logBackgroundError });
  const pairing = new PairingService({ clock, tokens });
  meetings.proposeNamesFrom(typedNames(config));
  // Devices given by the caller outlive these deps (gateway restarts); ones made here end with them.
  const devices = opts.devices ?? opts.makeDevices?.() ?? new RealDeviceCatalog();
  const ownsDevices = opts.devices === undefined;
  const recording = new RecordingService({
    devices,
    virtual: devices.virtualBackend(),
    meetings,
    bus,
    clock,
    media,
    transcription,
    settings: () => settings.get(),
    ...(opts.recordingCapture !== undefined ? { capture: opts.recordingCapture } : {}),
    logError: logBackgroundError,
  });
  const detection = detectionService(opts, { config, recording, devices });
  const models = new ModelCatalog({ pocketsphinxRoots: opts.pocketsphinxRoots ?? DEFAULT_POCKETSPHINX_ROOTS, customDir: paths.models });
  const importBudget = new ImportBudget(opts.importLimits ?? DEFAULT_IMPORT_LIMITS);
  // The transcription's parts give the workers the summaries, the meetings and the media store.
  const workers = backgroundWorkers({ ...transcription, jobs, speakers, webhooks, recording, detection, devices, ownsDevices, jobsRepo });

  return {
    // Each feature's handlers get these and nothing else (features/<name>/handlers.ts declares them).
    features: {
      system: { version: SERVER_VERSION, counters, settings, devices, models },
      search: { search },
      meetings: { meetings },
      summaries: { summaries, bus },
      jobs: {
        jobs,
        meetings,
        bus,
        importBudget,
        media,
        checkRecognizer: (provider, model) => parts.checkRecognizer(provider, model),
      },
      config: { config, settings },
      webhooks: { webhooks },
      pairing: { pairing },
      recording: { recording, bus },
    },
    auth: { settings: () => settings.get(), tokens, counters },
    validateResponses: opts.validateResponses ?? false,
    logError,
    accessLog: opts.accessLog ?? null,
    version: SERVER_VERSION,
    clock,
    counters,
    settings,
    tokens,
    meetings,
    speakers,
    search,
    config,
    devices,
    models,
    bus,
    jobs,
    summaries,
    webhooks,
    pairing,
    recording,
    detection,
    importBudget,
    media,
    start() {
      workers.start();
    },
    shutdown() {
      workers.stop();
    },
  };
}

/** The meeting detector on the session's sound server, or the one the options name (decision 141). */
function detectionService(
  opts: DepsOptions,
  uses: { config: ConfigService; recording: RecordingService; devices: DeviceCatalog },
): DetectionService {
  const env = opts.detection?.env ?? opts.env ?? process.env;
  return new DetectionService({
    watch: opts.detection?.watch ?? new PactlStreamWatch(() => env),
    ...uses,
    ...(opts.detection?.graceMs !== undefined ? { graceMs: opts.detection.graceMs } : {}),
    ...(opts.detection?.log !== undefined ? { log: opts.detection.log } : {}),
  });
}

/** The background workers in start order; they stop in reverse (work/workers.ts, decision 117). */
function backgroundWorkers(w: {
  summaries: SummaryService;
  jobs: JobsService;
  speakers: SpeakersService;
  webhooks: WebhooksService;
  recording: RecordingService;
  detection: DetectionService;
  devices: DeviceCatalog;
  ownsDevices: boolean;
  media: MediaStore;
  jobsRepo: JobsRepo;
  meetings: MeetingsService;
}): Workers {
  const sweep = () => w.media.sweep({ uploads: w.jobsRepo.referencedUploads(), recordings: w.meetings.referencedRecordings() });
  return new Workers([
    // Quietly fails the operations a stop interrupted: nothing can wait on them yet.
    { name: 'summary operations', start: () => w.summaries.recover(), stop: () => w.summaries.stop() },
    // Settles interrupted jobs and runs the queued ones; their events precede webhook delivery's start.
    { name: 'import jobs', start: () => w.jobs.recover(), stop: () => w.jobs.stop() },
    // Learns the voices a PUT speaker-labels names, one meeting at a time (decision 172); what waits is dropped at stop.
    { name: 'speaker enrolment', start: () => w.speakers.start(), stop: () => w.speakers.stop() },
    // Undelivered events are dropped at stop, never replayed (decision 117: not on the run queue).
    { name: 'webhook delivery', start: () => w.webhooks.start(), stop: () => w.webhooks.stop() },
    // Devices made with these deps end with them, after the recorder that captures from them.
    { name: 'devices', start: () => undefined, stop: () => (w.ownsDevices ? w.devices.virtualBackend()?.dispose() : undefined) },
    // Stops first: capture closes and its file is completed; pending recordings are transcribed at the next start.
    { name: 'recording', start: () => w.recording.recover(), stop: () => w.recording.shutdown() },
    // After the recorder it drives: detected meetings start recordings; stops first, leaving the recording to its own shutdown.
    { name: 'meeting detection', start: () => w.detection.start(), stop: () => w.detection.stop() },
    // Last at start: what the workers above still own is referenced or kept by now.
    { name: 'data folder sweep', start: sweep, stop: () => undefined },
  ]);
}

/** The simulated devices' notices ("[devices] PulseAudio is not available …") as warnings of the gateway's log. */
export function deviceLog(logger: Logger): (line: string) => void {
  return (line) => logger.warn({ component: 'devices' }, line.replace(/^\[devices\] /, ''));
}
