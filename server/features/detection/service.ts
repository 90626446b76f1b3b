/**
 * The meeting detector: the meeting-detection config section made real.
 *
 * While the section is enabled it follows the sound server's capture streams
 * (server/adapters/sound-server.ts, events only), keeps the ones of an app of
 * `apps` recording from an input, and hands them to the tracker (tracker.ts:
 * min_meeting_seconds, the grace period). A detected meeting is logged and
 * shown on the Control API (GET /control/meeting-detection); with auto_record
 * armed it is recorded through the recording feature, from the input the app
 * uses, and the recording stops once the app's stream has been gone for the
 * grace period, then takes a recording's normal path.
 *
 * Decisions: docs/decisions/141 (the detector), 142 (matching), 143 (the
 * lifecycle and each situation), 144 (what is visible without auto-record),
 * 145 (no sound server).
 */
import type { CaptureStreamInfo, CaptureStreamWatch, SourceInfo } from '../../adapters/sound-server.ts';
import type { DeviceCatalog } from '../../adapters/devices.ts';
import type { ConfigService } from '../config/index.ts';
import type { RecordingService } from '../recording/index.ts';
import { matchApp } from './matching.ts';
import { MeetingTracker, type Timers, type TrackedMeeting } from './tracker.ts';

/** How long an app's capture may be gone before its meeting ends (decision 143). */
const DEFAULT_GRACE_MS = 20_000;

/** What the detector keeps of a stream: what it shows and records from. */
interface StreamDetail {
  appName: string;
  binary: string;
  source: string;
  /** The catalog device the source stands for, or null when it is none the recorder can open. */
  device: string | null;
}

export type DetectorState = 'disabled' | 'starting' | 'watching' | 'unavailable';

interface DetectedMeetingView {
  app: string;
  application_name: string;
  binary: string;
  source: string;
  device: string | null;
  phase: 'candidate' | 'live' | 'ending';
  since: string;
  detected_at: string | null;
  /** The recording session this meeting started, or null. */
  recording_session_id: string | null;
}

export interface DetectionView {
  state: DetectorState;
  /** Why the detector is unavailable, or null. */
  reason: string | null;
  grace_seconds: number;
  meetings: DetectedMeetingView[];
  /** Meetings detected since the gateway started, and how many of them were recorded. */
  detected_total: number;
  recorded_total: number;
  /** The last few things the detector did, newest last (what was recorded, and why not). */
  log: string[];
}

export interface DetectionServiceOptions {
  watch: CaptureStreamWatch;
  config: Pick<ConfigService, 'effective' | 'onChange'>;
  recording: Pick<RecordingService, 'start' | 'stop' | 'view' | 'processIds'>;
  devices: Pick<DeviceCatalog, 'list' | 'listSimulated' | 'virtualBackend'>;
  graceMs?: number;
  now?: () => number;
  timers?: Timers;
  log?: (line: string) => void;
}

export class DetectionService {
  readonly #o: DetectionServiceOptions;
  readonly #graceMs: number;
  readonly #now: () => number;
  readonly #tracker: MeetingTracker<StreamDetail>;
  /** Recording sessions started for a meeting, by the meeting's app. */
  readonly #recordings = new Map<string, string>();
  readonly #log: string[] = [];
  #state: DetectorState = 'disabled';
  #reason: string | null = null;
  #detected = 0;
  #recorded = 0;
  #unsubscribe: () => void = () => undefined;
  #generation = 0;

  constructor(o: DetectionServiceOptions) {
    this.#o = o;
    this.#graceMs = o.graceMs ?? DEFAULT_GRACE_MS;
    this.#now = o.now ?? Date.now;
    this.#tracker = new MeetingTracker<StreamDetail>({
      minMeetingMs: () => this.#section().min_meeting_seconds * 1000,
      graceMs: this.#graceMs,
      now: this.#now,
      ...(o.timers !== undefined ? { timers: o.timers } : {}),
      onDetected: (m) => this.#detectedMeeting(m),
      onEnded: (m) => this.#endedMeeting(m),
      onResumed: (m) => this.#note(`${m.detail.appName || m.app}: its capture is back within the grace period; the same meeting goes on`),
    });
  }

  /** Follows the sound server if the section is enabled, and every change of the section from now on. */
  start(): void {
    this.#unsubscribe = this.#o.config.onChange((name) => {
      if (name === 'meeting-detection') this.#sectionChanged();
    });
    this.#sectionChanged();
  }

  /** The gateway stops: the recording in course is the recording feature's to end (its shutdown and recovery). */
  stop(): void {
    this.#unsubscribe();
    this.#recordings.clear();
    this.#halt('disabled', null, false);
  }

  view(): DetectionView {
    return {
      state: this.#state,
      reason: this.#reason,
      grace_seconds: this.#graceMs / 1000,
      meetings: this.#tracker.meetings().map((m) => ({
        app: m.app,
        application_name: m.detail.appName,
        binary: m.detail.binary,
        source: m.detail.source,
        device: m.detail.device,
        phase: m.phase,
        since: new Date(m.since).toISOString(),
        detected_at: m.detectedAt === null ? null : new Date(m.detectedAt).toISOString(),
        recording_session_id: this.#recordings.get(m.app) ?? null,
      })),
      detected_total: this.#detected,
      recorded_total: this.#recorded,
      log: [...this.#log],
    };
  }

  /** Process ids of the sound-server tools running now (tests). */
  processIds(): number[] {
    return this.#o.watch.processIds();
  }

  #section() {
    return this.#o.config.effective('meeting-detection');
  }

  #sectionChanged(): void {
    const s = this.#section();
    if (!s.enabled) {
      if (this.#state !== 'disabled') this.#halt('disabled', null, true);
      return;
    }
    // Disarmed mid-meeting: what auto-record started stops now (decision 143).
    if (!s.auto_record) for (const app of [...this.#recordings.keys()]) this.#stopRecording(app, 'auto-record was disarmed');
    // A changed apps list or min_meeting_seconds applies from the next stream event on.
    if (this.#state === 'watching' || this.#state === 'starting') return;
    void this.#startWatch();
  }

  async #startWatch(): Promise<void> {
    const generation = ++this.#generation;
    this.#state = 'starting';
    let up: boolean;
    try {
      up = await this.#o.watch.start({
        onStreams: (streams) => {
          if (generation === this.#generation) this.#streams(streams);
        },
        onGone: (reason) => {
          if (generation === this.#generation) this.#halt('unavailable', reason, true);
        },
      });
    } catch (err) {
      up = false;
      this.#reason = err instanceof Error ? err.message : String(err);
    }
    if (generation !== this.#generation) return;
    if (up) {
      this.#state = 'watching';
      this.#reason = null;
      this.#note("following the sound server's capture streams");
      return;
    }
    this.#halt('unavailable', this.#reason ?? 'no sound server answers (pactl info failed)', true);
  }

  /** Stops following; meetings in course end (their recordings stop). Says why once. */
  #halt(state: DetectorState, reason: string | null, say: boolean): void {
    this.#generation++;
    this.#o.watch.stop();
    this.#tracker.endAll();
    const changed = this.#state !== state || this.#reason !== reason;
    this.#state = state;
    this.#reason = reason;
    if (say && changed) {
      this.#note(
        state === 'unavailable'
          ? `meeting detection is on but cannot follow any sound server: ${reason ?? 'unknown'}; it tries again when the section is next saved`
          : 'meeting detection switched off',
      );
    }
  }

  #streams(streams: CaptureStreamInfo[]): void {
    const s = this.#section();
    const own = new Set([process.pid, ...this.#o.recording.processIds()]);
    const sightings = streams.flatMap((stream) => {
      // The gateway's own capture is never a meeting app (decision 141).
      if (stream.appName === 'mas-recorder' || (stream.pid !== null && own.has(stream.pid))) return [];
      const input = this.#inputDevice(stream.source);
      if (!input.isInput) return [];
      const app = matchApp(s.apps, stream);
      if (app === null) return [];
      return [{ app, detail: { appName: stream.appName, binary: stream.binary, source: stream.source.name, device: input.device } }];
    });
    this.#tracker.update(sightings);
  }

  /**
   * Whether a source is an input, and which device of the catalog it is: a
   * hardware source (ALSA card and device) or the sink monitor that stands
   * for a simulated microphone. Monitors of outputs are not inputs.
   */
  #inputDevice(source: SourceInfo): { isInput: boolean; device: string | null } {
    const virtual = this.#o.devices.virtualBackend();
    const simulated = this.#o.devices
      .listSimulated()
      .find((d) => d.device_type === 'input' && virtual?.virtual(d.name)?.monitorSource === source.name);
    if (simulated !== undefined) return { isInput: true, device: simulated.name };
    if (source.monitorOf !== null) return { isInput: false, device: null };
    const alsa = source.alsa;
    const real =
      alsa === null
        ? undefined
        : this.#o.devices
            .list()
            .find((d) => !d.simulated && d.device_type === 'input' && d.name.endsWith(`(hw:${alsa.card},${alsa.device})`));
    return { isInput: true, device: real?.name ?? null };
  }

  #detectedMeeting(m: TrackedMeeting<StreamDetail>): void {
    this.#detected++;
    const label = m.detail.appName || m.detail.binary || m.app;
    const s = this.#section();
    const why = !s.auto_record
      ? 'auto-record is not armed'
      : m.detail.device === null
        ? `its source "${m.detail.source}" is no device the recorder can open`
        : this.#o.recording.view().state !== 'idle'
          ? 'a recording is already running'
          : null;
    if (why !== null) {
      this.#note(`meeting detected: ${label} on ${m.detail.device ?? m.detail.source}; not recorded: ${why}`);
      return;
    }
    const at = new Date(this.#now()).toISOString().slice(0, 16).replace('T', ' ');
    try {
      const view = this.#o.recording.start(
        { meeting_name: `${label} meeting ${at} UTC`, mic_device_name: m.detail.device },
        { remote: false },
      );
      if (view.session_id !== null) this.#recordings.set(m.app, view.session_id);
      this.#recorded++;
      this.#note(`meeting detected: ${label} on ${m.detail.device}; recording ${view.session_id ?? ''}`);
    } catch (err) {
      this.#note(`meeting detected: ${label}; the recording could not start: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  #endedMeeting(m: TrackedMeeting<StreamDetail>): void {
    this.#note(`meeting ended: ${m.detail.appName || m.app}`);
    this.#stopRecording(m.app, 'the meeting ended');
  }

  /** Stops the recording a meeting started, if it is still the one running. */
  #stopRecording(app: string, why: string): void {
    const session = this.#recordings.get(app);
    this.#recordings.delete(app);
    if (session === undefined) return;
    const view = this.#o.recording.view();
    if (view.session_id !== session || (view.state !== 'starting' && view.state !== 'recording' && view.state !== 'paused')) return;
    try {
      this.#o.recording.stop();
      this.#note(`recording ${session} stopped: ${why}`);
    } catch (err) {
      this.#note(`recording ${session} could not be stopped: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  #note(line: string): void {
    this.#log.push(`${new Date(this.#now()).toISOString()} ${line}`);
    if (this.#log.length > 50) this.#log.shift();
    this.#o.log?.(`[meeting-detection] ${line}`);
  }
}
