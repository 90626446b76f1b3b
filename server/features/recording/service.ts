/**
 * The recorder: live capture from one or two devices into a meeting.
 *
 *   POST start  → starting (answered at once) → devices deliver → the meeting
 *                 is created with the growing WAV as its recording → recording
 *                 (recording.started)
 *   POST pause  → paused: capture processes closed, the session kept
 *   POST resume → recording: capture reopened, the same WAV continues
 *   POST stop   → stopping: capture closed, WAV completed → idle
 *                 (recording.stopped); then the WAV is transcribed into the
 *                 meeting in the background (processor.ts)
 *   a device lost, a capture that breaks, POST /control/recording/fault
 *               → the same ending, with last_error set: the audio captured
 *                 so far stays the meeting's recording and is transcribed.
 *
 * Every state change goes through states.ts. The audio is written
 * to disk as it arrives, into a capture of the media store
 * (server/media/media-store.ts, wav-writer.ts). Decisions: docs/decisions/017-recording.md, 125.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../adapters/clock.ts';
import type { DeviceCatalog, DeviceInfo, VirtualDeviceBackend } from '../../adapters/devices.ts';
import type { MeetingsService } from '../meetings/index.ts';
import { ApiError } from '../../kernel/errors.ts';
import type { EventBus } from '../../kernel/events.ts';
import { redactPaths } from '../../kernel/redact.ts';
import type { Settings } from '../../kernel/store/settings-repo.ts';
import {
  CaptureBackends,
  CaptureUnavailableError,
  type CaptureOptions,
  type CaptureStream,
  type CaptureTarget,
  type CaptureTransport,
} from './capture.ts';
import { Mixer } from './mixer.ts';
import { RecordingProcessor, type ProcessingView, type RecordingTranscriptionDeps } from './processor.ts';
import { apiOutcome, transition, type ApiAction, type RecordingAction, type RecordingState } from './states.ts';
import type { CaptureId, MediaStore } from '../../media/media-store.ts';
import { RECORDING_SAMPLE_RATE, type WavWriter } from '../../media/wav-writer.ts';
import { clip } from '../../../common/clip.ts';

type DeviceRole = 'mic' | 'system';

export interface StartRequest {
  meeting_name?: string | null;
  mic_device_name?: string | null;
  system_device_name?: string | null;
  consent_attested?: boolean;
}

interface RecordingDeviceView {
  name: string;
  role: DeviceRole;
  device_type: 'input' | 'output';
  simulated: boolean;
  /** How it is captured; null until the device is open. */
  transport: CaptureTransport | null;
}

/** GET /v1/recording: RecordingStateDto with the fields API.md leaves open (decision 017). */
export interface RecordingView {
  state: RecordingState;
  active_meeting_id: string | null;
  last_error: string | null;
  session_id: string | null;
  meeting_name: string | null;
  requested_at: string | null;
  started_at: string | null;
  devices: RecordingDeviceView[];
  captured_seconds: number;
  last_meeting_id: string | null;
  processing: ProcessingView | null;
}

interface SessionDevice {
  role: DeviceRole;
  info: DeviceInfo;
  stream: CaptureStream | null;
  /** How it was captured, once opened (kept after the stream closes). */
  transport: CaptureTransport | null;
}

interface Session {
  id: string;
  meetingName: string | null;
  title: string;
  devices: SessionDevice[];
  requestedAt: string;
  startedAt: string | null;
  meetingId: string | null;
  /** The media store's capture until the meeting exists (then the meeting's recording). */
  capture: CaptureId | null;
  writer: WavWriter | null;
  mixer: Mixer;
  /** Whether arriving samples are written (starting and recording; not paused, not after the end). */
  accepting: boolean;
  reachedRecording: boolean;
  /** Aborted when the session ends: opens still under way give up. */
  abort: AbortController;
  /** The meeting was deleted while recording: no processing. */
  discarded: boolean;
}

export interface RecordingServiceOptions {
  devices: DeviceCatalog;
  /** The virtual devices plugged into `devices` (its virtualBackend()), or null when there are none. */
  virtual: VirtualDeviceBackend | null;
  meetings: MeetingsService;
  bus: EventBus;
  clock: Clock;
  /** Where the audio goes (captures) and which recordings wait for their transcription (pending marks). */
  media: Pick<MediaStore, 'beginCapture' | 'discardCapture' | 'discardStaleCaptures' | 'markPending' | 'clearPending' | 'pendingMeetings'>;
  /** What a stopped recording's transcription uses (processor.ts). */
  transcription: RecordingTranscriptionDeps;
  settings: () => Settings;
  capture?: CaptureOptions;
  logError?: (err: unknown) => void;
}

export class RecordingService {
  readonly #o: RecordingServiceOptions;
  readonly #capture: CaptureBackends;
  /** Transcribes stopped recordings, one at a time; tells this service when one is settled for good. */
  readonly #processor: RecordingProcessor;
  #state: RecordingState = 'idle';
  #session: Session | null = null;
  /** The session that ended last: what GET shows while idle. */
  #previous: Session | null = null;
  #lastError: string | null = null;
  #lastMeetingId: string | null = null;
  /** The session that ended last, and whether it ever reached recording (the started-wait needs it). */
  #lastEnded: { id: string; reachedRecording: boolean } | null = null;
  readonly #unsubscribe: () => void;
  #shutDown = false;

  constructor(opts: RecordingServiceOptions) {
    this.#o = opts;
    this.#capture = new CaptureBackends(opts.virtual, opts.capture);
    this.#processor = new RecordingProcessor({
      transcription: opts.transcription,
      onSettled: (id) => this.#settled(id),
      ...(opts.logError !== undefined ? { logError: opts.logError } : {}),
    });
    this.#unsubscribe = opts.virtual?.onLost((name, reason) => this.#deviceLost(name, reason)) ?? (() => undefined);
    opts.meetings.onBeforeDelete((id) => this.#meetingDeleted(id));
  }

  // ── Reading ─────────────────────────────────────────────────────────────
  get state(): RecordingState {
    return this.#state;
  }

  get lastEnded(): { id: string; reachedRecording: boolean } | null {
    return this.#lastEnded;
  }

  /**
   * The current recording, or while idle the last one that ended (session
   * id, name, devices, captured seconds); active_meeting_id is set only while
   * one is active.
   */
  view(): RecordingView {
    const s = this.#session ?? this.#previous;
    const active =
      this.#session !== null && s !== null && (this.#state === 'recording' || this.#state === 'paused' || this.#state === 'stopping');
    return {
      state: this.#state,
      active_meeting_id: active ? s.meetingId : null,
      last_error: this.#lastError === null ? null : redactPaths(this.#lastError),
      session_id: s?.id ?? null,
      meeting_name: s?.meetingName ?? null,
      requested_at: s?.requestedAt ?? null,
      started_at: s?.startedAt ?? null,
      devices:
        s?.devices.map((d) => ({
          name: d.info.name,
          role: d.role,
          device_type: d.info.device_type,
          simulated: d.info.simulated,
          transport: d.transport,
        })) ?? [],
      captured_seconds: s?.writer === null || s === null ? 0 : Math.round((s.writer.samples / RECORDING_SAMPLE_RATE) * 1000) / 1000,
      last_meeting_id: this.#lastMeetingId,
      processing: this.#lastMeetingId === null ? null : this.#processor.view(this.#lastMeetingId),
    };
  }

  /** Resolves once no recording is waiting to be transcribed (tests, benchmarks). */
  processingIdle(): Promise<void> {
    return this.#processor.idle();
  }

  /** Process ids of the capture processes open now (tests). */
  processIds(): number[] {
    return (this.#session?.devices ?? []).flatMap((d) => (d.stream?.pid !== null && d.stream?.pid !== undefined ? [d.stream.pid] : []));
  }

  // ── API actions ─────────────────────────────────────────────────────────
  start(req: StartRequest, caller: { remote: boolean }): RecordingView {
    if (this.#shutDown) throw new ApiError('service_unavailable', 'the application is stopping');
    if (caller.remote && !this.#o.settings().remote_recording_prearmed) {
      throw new ApiError(
        'not_prearmed',
        'a remote caller can start a recording only while remote recording is pre-armed in the application settings',
      );
    }
    if (req.consent_attested === false) {
      throw new ApiError('bad_request', 'consent_attested must be true to start a recording (or be left out)');
    }
    this.#refuseUnless('start');
    const devices = this.#resolveDevices(req);
    for (const d of devices) {
      try {
        this.#capture.check(targetOf(d.info));
      } catch (err) {
        if (err instanceof CaptureUnavailableError) throw new ApiError('service_unavailable', err.message);
        throw err;
      }
    }
    const now = this.#o.clock.now();
    const id = `rec_${randomUUID()}`;
    const meetingName = req.meeting_name ?? null;
    const session: Session = {
      id,
      meetingName,
      title: meetingName ?? `Recording ${now.toISOString().slice(0, 16).replace('T', ' ')}`,
      devices,
      requestedAt: now.toISOString(),
      startedAt: null,
      meetingId: null,
      capture: null,
      writer: null,
      mixer: new Mixer(devices.length, (samples) => session.writer?.append(samples)),
      accepting: true,
      reachedRecording: false,
      abort: new AbortController(),
      discarded: false,
    };
    this.#lastError = null;
    this.#session = session;
    this.#previous = null;
    this.#move('start');
    void this.#bringUp(session);
    return this.view();
  }

  stop(): RecordingView {
    if (this.#refuseUnless('stop') === 'same') return this.view();
    const session = this.#session!; // stop moves only from starting, recording, paused: a session exists
    this.#move('stop');
    this.#scheduleFinalize(session);
    return this.view();
  }

  pause(): RecordingView {
    if (this.#refuseUnless('pause') === 'same') return this.view();
    const session = this.#session!;
    this.#move('pause');
    session.accepting = false;
    this.#closeStreams(session);
    session.mixer.flush();
    return this.view();
  }

  resume(): RecordingView {
    if (this.#refuseUnless('resume') === 'same') return this.view();
    const session = this.#session!;
    this.#move('resume');
    session.accepting = true;
    void this.#openAll(session).catch((err: unknown) => this.#fail(session, message(err)));
    return this.view();
  }

  // ── Control API and lifecycle ───────────────────────────────────────────
  /** POST /control/recording/fault: the active recording fails with this error. */
  fault(error: string): RecordingView {
    const session = this.#session;
    if (session === null || (this.#state !== 'starting' && this.#state !== 'recording' && this.#state !== 'paused')) {
      throw new ApiError('conflict', `there is no active recording to fail (the state is ${this.#state})`);
    }
    this.#fail(session, error);
    return this.view();
  }

  /** Control API reset: capture stopped, its file and processing dropped, idle with no last_error. */
  reset(): void {
    const session = this.#session;
    this.#processor.clear();
    if (session !== null) {
      this.#teardown(session);
      if (session.capture !== null && session.meetingId === null) this.#o.media.discardCapture(session.capture);
      if (session.meetingId !== null) this.#o.media.clearPending(session.meetingId);
    }
    this.#session = null;
    this.#previous = null;
    this.#lastError = null;
    this.#lastMeetingId = null;
    this.#lastEnded = null;
    const wasActive = this.#state !== 'idle';
    this.#move('reset');
    if (wasActive && session !== null) this.#o.bus.publish('recording.stopped', { kind: 'recording', id: session.id });
  }

  /**
   * Application stop or restart: capture closes and the file is completed at
   * once (synchronously); a recording's meeting keeps its audio, and its
   * pending marker makes the next start transcribe it (recover()).
   */
  shutdown(): void {
    this.#shutDown = true;
    this.#unsubscribe();
    this.#processor.stop();
    const session = this.#session;
    if (session !== null) {
      this.#teardown(session);
      if (session.meetingId === null && session.capture !== null) this.#o.media.discardCapture(session.capture);
    }
    this.#session = null;
    this.#state = transition(this.#state, 'reset') ?? 'idle';
  }

  /** At start: recordings a stop interrupted before they were transcribed are transcribed now. */
  recover(): void {
    // A capture that never became a meeting holds at most the first samples of a start that failed.
    this.#o.media.discardStaleCaptures();
    for (const meetingId of this.#o.media.pendingMeetings()) {
      if (this.#o.meetings.exists(meetingId) && !this.#o.meetings.hasTranscript(meetingId)) {
        this.#lastMeetingId = meetingId;
        this.#processor.enqueue(meetingId);
      } else {
        this.#o.media.clearPending(meetingId);
      }
    }
  }

  /** The processor is done with a meeting (for good). */
  #settled(meetingId: string): void {
    this.#o.media.clearPending(meetingId);
  }

  // ── Internals ───────────────────────────────────────────────────────────
  /** 409 with the sub-code of the outcome table; 'same' for an idempotent call. */
  #refuseUnless(action: ApiAction): 'move' | 'same' {
    const outcome = apiOutcome(this.#state, action);
    if (outcome.kind === 'refuse') throw new ApiError(outcome.code, outcome.message);
    return outcome.kind;
  }

  #resolveDevices(req: StartRequest): SessionDevice[] {
    const all = this.#o.devices.list();
    const find = (field: 'mic_device_name' | 'system_device_name', name: string, role: DeviceRole): SessionDevice => {
      const info = all.find((d) => d.name === name);
      if (info === undefined) throw new ApiError('bad_request', `${field} "${clip(name, 80)}" names no device; GET /v1/devices lists them`);
      const wanted = role === 'mic' ? 'input' : 'output';
      if (info.device_type !== wanted) {
        throw new ApiError(
          'bad_request',
          `${field} "${clip(name, 80)}" is an ${info.device_type} device; ${field} needs an ${wanted} device`,
        );
      }
      return { role, info, stream: null, transport: null };
    };
    const mic = req.mic_device_name ?? null;
    const system = req.system_device_name ?? null;
    if (mic !== null && mic === system) throw new ApiError('bad_request', 'mic_device_name and system_device_name name the same device');
    const devices: SessionDevice[] = [];
    if (mic !== null) devices.push(find('mic_device_name', mic, 'mic'));
    if (system !== null) devices.push(find('system_device_name', system, 'system'));
    if (devices.length === 0) {
      const first = all.find((d) => d.device_type === 'input');
      if (first === undefined) {
        throw new ApiError(
          'service_unavailable',
          'no capture device: this machine has no microphone and no simulated input device is plugged ' +
            'in (name one with mic_device_name, or plug one in with POST /control/devices)',
        );
      }
      devices.push({ role: 'mic', info: first, stream: null, transport: null });
    }
    return devices;
  }

  async #bringUp(session: Session): Promise<void> {
    try {
      const capture = this.#o.media.beginCapture(session.id);
      session.capture = capture.id;
      session.writer = capture.writer;
      await this.#openAll(session);
      if (!this.#current(session, 'starting')) return;
      const meeting = this.#o.meetings.create({
        title: session.title,
        created_at: session.requestedAt,
        source: 'recording',
        language: 'en',
        segments: [],
        summary: null,
        audio: false,
        recording: { capture: capture.id },
      });
      session.meetingId = meeting.id;
      this.#o.media.markPending(meeting.id, session.id);
      // The virtual devices start their scripts now that the recorder hears them.
      for (const d of session.devices) this.#o.virtual?.virtual(d.info.name)?.cue();
      session.startedAt = this.#o.clock.now().toISOString();
      session.reachedRecording = true;
      this.#move('capture_up');
    } catch (err) {
      if (this.#current(session, 'starting')) this.#fail(session, message(err));
      else if (!(err instanceof Error && /ended while its devices were opening/.test(err.message))) this.#o.logError?.(err);
    }
  }

  /** Opens every device of the session (closing the ones that opened when another fails). */
  async #openAll(session: Session): Promise<void> {
    const results = await Promise.allSettled(
      session.devices.map((d, index) =>
        this.#capture.open(
          targetOf(d.info),
          {
            onData: (samples) => {
              if (this.#session === session && session.accepting) session.mixer.push(index, samples);
            },
            onError: (reason) => this.#fail(session, reason),
          },
          session.abort.signal,
        ),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    results.forEach((r, i) => {
      if (r.status !== 'fulfilled') return;
      if (failed !== undefined || this.#session !== session || !session.accepting) r.value.close();
      else {
        session.devices[i]!.stream = r.value;
        session.devices[i]!.transport = r.value.transport;
      }
    });
    if (failed !== undefined) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  }

  /** A device of the session went away or broke. */
  #deviceLost(name: string, reason: string): void {
    const session = this.#session;
    if (session === null || !session.devices.some((d) => d.info.name === name)) return;
    this.#fail(session, reason);
  }

  #meetingDeleted(meetingId: string): void {
    this.#processor.forget(meetingId);
    const session = this.#session;
    if (session === null || session.meetingId !== meetingId) return;
    session.discarded = true;
    if (this.#state === 'recording' || this.#state === 'paused') {
      this.#move('stop');
      this.#scheduleFinalize(session);
    }
  }

  /** Ends the session with last_error set; the audio so far is kept and transcribed. */
  #fail(session: Session, reason: string): void {
    if (this.#session !== session) return;
    if (this.#state !== 'starting' && this.#state !== 'recording' && this.#state !== 'paused') return; // already ending
    this.#lastError = reason;
    session.accepting = false;
    this.#closeStreams(session);
    this.#move('fail');
    this.#scheduleFinalize(session);
  }

  /** On the next turn, so the reply that caused it (stop, fault) still shows stopping. */
  #scheduleFinalize(session: Session): void {
    session.accepting = false;
    session.abort.abort();
    this.#closeStreams(session);
    setImmediate(() => this.#finalize(session));
  }

  #finalize(session: Session): void {
    if (this.#session !== session || this.#state !== 'stopping') return;
    this.#teardown(session);
    const meetingId = session.meetingId;
    if (meetingId !== null && !session.discarded && this.#o.meetings.exists(meetingId)) {
      this.#lastMeetingId = meetingId;
      this.#processor.enqueue(meetingId);
    } else {
      if (meetingId !== null) this.#o.media.clearPending(meetingId);
      if (meetingId === null && session.capture !== null) this.#o.media.discardCapture(session.capture);
    }
    this.#lastEnded = { id: session.id, reachedRecording: session.reachedRecording };
    this.#move('finalized');
    this.#session = null;
    this.#previous = session;
  }

  /** Closes capture and completes the file. Synchronous. */
  #teardown(session: Session): void {
    session.accepting = false;
    session.abort.abort();
    this.#closeStreams(session);
    session.mixer.flush();
    try {
      session.writer?.close();
    } catch (err) {
      this.#o.logError?.(err);
    }
  }

  #closeStreams(session: Session): void {
    for (const d of session.devices) {
      d.stream?.close();
      d.stream = null;
    }
  }

  #current(session: Session, state: RecordingState): boolean {
    return this.#session === session && this.#state === state;
  }

  /** The one place the state changes: checked against the table, then announced. */
  #move(action: RecordingAction): void {
    const next = transition(this.#state, action);
    if (next === null) throw new Error(`recording transition ${this.#state} --${action}--> is not in the table`);
    this.#state = next;
    const session = this.#session;
    if (session === null) return;
    if (action === 'capture_up') this.#o.bus.publish('recording.started', { kind: 'recording', id: session.id });
    if (action === 'finalized') this.#o.bus.publish('recording.stopped', { kind: 'recording', id: session.id });
  }
}

function targetOf(info: DeviceInfo): CaptureTarget {
  return { name: info.name, device_type: info.device_type, simulated: info.simulated };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
