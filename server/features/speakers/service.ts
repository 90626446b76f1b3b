/**
 * Speaker identification's application side (decisions 146–149): enrolment
 * of named people from labelled meetings, their voiceprints for the
 * identification stage (server/pipeline/identify-speakers.ts), and the
 * config section's known_speakers kept in step with them.
 *
 * Enrolment: when a user names a meeting's speakers (PUT speaker-labels)
 * and the speaker-identification section is enabled, each named speaker's
 * own segments of that meeting (turns of at least MIN_TURN_SECONDS that no
 * other speaker's segment overlaps) are read from the meeting's recording,
 * through the transcription's speech-enhancement front end as identification
 * reads it, and their voice statistics become that meeting's share of the person's
 * voiceprint. It runs after the label update has answered, one meeting at a
 * time, on a run queue of its own (work/run-queue.ts, the one owner of
 * background work: decision 172), which stops it with the gateway and kills
 * its decoder; what cannot be learnt (no recording, too little speech) is
 * skipped with its reason (outcome(), and one log line naming the meeting
 * and the reason, never the voice), never an error of the label update.
 * Requests wait in memory: a stop (restart, quit, reset) drops those not
 * yet learnt, as it drops an enrolment under way; labelling again enrols.
 *
 * Nothing of a voiceprint leaves this feature but through
 * identificationSettings(), whose voiceprints are behind a function so that
 * settings logged or serialised never carry them.
 */
import type { Clock } from '../../adapters/clock.ts';
import type { MediaStore } from '../../media/media-store.ts';
import type { Enhancer, TranscriptionSettings } from '../../pipeline/transcribe.ts';
import type { Decoder, StageControl } from '../../pipeline/types.ts';
import { MIN_VOICEPRINT_FRAMES, toVoiceprint, voiceStats } from '../../pipeline/voiceprint.ts';
import type { ConfigService } from '../config/index.ts';
import type { MeetingsService } from '../meetings/index.ts';
import { RunQueue, type Lane } from '../../work/run-queue.ts';
import type { VoiceprintRepo } from './repo.ts';

/** Turns shorter than this are left out of enrolment: too little of a voice, and often a backchannel over someone else. */
const MIN_TURN_SECONDS = 1;

export type SpeakerIdentificationSettings = NonNullable<TranscriptionSettings['speakerIdentification']>;

/** What an enrolment did for one named speaker of a meeting. */
export interface EnrolmentOutcome {
  meetingId: string;
  name: string;
  speaker: string;
  enrolled: boolean;
  /** Why nothing was learnt (enrolled false). */
  reason?: string;
  /** Voice frames (10 ms) learnt from this meeting. */
  frames: number;
}

/** One PUT speaker-labels' named speakers of a meeting, waiting to be learnt. */
interface EnrolmentRequest {
  id: number;
  meetingId: string;
  named: readonly { speaker: string; name: string }[];
}

export interface SpeakersDeps {
  /** The voiceprints (the composition root shares it with the config feature, which lists and removes names). */
  repo: VoiceprintRepo;
  clock: Clock;
  config: Pick<ConfigService, 'effective'>;
  meetings: Pick<MeetingsService, 'transcript' | 'recording' | 'exists'>;
  media: Pick<MediaStore, 'audio'>;
  decoder: Decoder;
  /**
   * The transcription's speech-enhancement front end, run with the vad
   * section's settings as a transcription runs it: identification compares
   * voiceprints with clusters of the front end's output, so enrolment reads
   * the recording the same way (decision 167). Absent, as in a transcription
   * without the stage: the decoded audio.
   */
  enhance?: Enhancer | undefined;
  /** One line per skipped enrolment; names the meeting and the reason only. */
  log: (line: string) => void;
}

export class SpeakersService {
  readonly #repo: VoiceprintRepo;
  readonly #deps: SpeakersDeps;
  readonly #outcomes: EnrolmentOutcome[] = [];
  /** Enrolments asked for and not yet begun, oldest first. */
  readonly #waiting: EnrolmentRequest[] = [];
  readonly #queue: RunQueue<EnrolmentRequest, void, 'enrolling'>;
  #nextId = 1;
  /** The key of the enrolment under way, if any. */
  #running: string | null = null;

  constructor(deps: SpeakersDeps) {
    this.#deps = deps;
    this.#repo = deps.repo;
    this.#queue = new RunQueue(this.#lane());
  }

  /** Takes enrolments (the gateway's background workers, server/deps.ts); nothing is left from a previous run to recover. */
  start(): void {
    this.#queue.start();
  }

  /** Restart or quit: the enrolment under way stops (its decoder killed), nothing more runs or is written. */
  stop(): void {
    this.#queue.stop();
  }

  /** The people with a voiceprint, in the order they were first enrolled. */
  enrolledNames(): string[] {
    return this.#repo.names();
  }

  /** Deletes the voiceprints of the enrolled people not named (a PUT of known_speakers that leaves them out). */
  keepOnly(names: readonly string[]): void {
    this.#repo.keepOnly(names);
  }

  /** Every voiceprint (Control API reset). */
  deleteAll(): void {
    // What waits or runs was learnt from meetings a reset deletes too.
    this.#waiting.length = 0;
    if (this.#running !== null) this.#queue.cancel(this.#running);
    this.#repo.deleteAll();
    this.#outcomes.length = 0;
  }

  /** What a transcription identifies speakers with: read once as it starts, with the other sections. */
  identificationSettings(): SpeakerIdentificationSettings {
    const section = this.#deps.config.effective('speaker-identification');
    const repo = this.#repo;
    return {
      enabled: section.enabled,
      matchThreshold: section.match_threshold,
      voiceprints: () => repo.voiceprints().map(({ name, print }) => ({ name, print })),
    };
  }

  /**
   * A user named speakers of a meeting: learn the named ones' voices, after
   * the update has answered. Nothing happens while the section is off:
   * voiceprints are biometric data, collected only once identification is
   * turned on.
   */
  labelsSet(meetingId: string, labels: Readonly<Record<string, string | null>>): void {
    if (!this.#deps.config.effective('speaker-identification').enabled) return;
    const named = Object.entries(labels).flatMap(([speaker, name]) => (name === null ? [] : [{ speaker, name }]));
    if (named.length === 0) return;
    this.#waiting.push({ id: this.#nextId++, meetingId, named });
    this.#queue.kick();
  }

  /** Resolves once every enrolment asked for so far has ended (tests, shutdown). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Enrolment as the run queue runs it: one meeting at a time, after the request that asked for it has answered. */
  #lane(): Lane<EnrolmentRequest, void, 'enrolling'> {
    return {
      next: () => this.#waiting[0] ?? null,
      key: enrolmentKey,
      begin: (request) => {
        this.#waiting.shift();
        this.#running = enrolmentKey(request);
        return request;
      },
      work: async (request, run) => {
        run.stage('enrolling');
        try {
          // Cancelled (a reset) before it began: nothing is read.
          await run.control.checkpoint();
          await this.#enrol(request.meetingId, request.named, run.control);
        } finally {
          this.#running = null;
        }
      },
      failed: (request, err) => {
        this.#skip(request.meetingId, request.named, `enrolment failed: ${err instanceof Error ? err.name : 'error'}`);
      },
    };
  }

  /** The enrolments of a meeting, newest last (what was learnt, or why not). */
  outcomes(meetingId: string): EnrolmentOutcome[] {
    return this.#outcomes.filter((o) => o.meetingId === meetingId);
  }

  async #enrol(meetingId: string, named: readonly { speaker: string; name: string }[], control: StageControl): Promise<void> {
    if (!this.#deps.meetings.exists(meetingId)) return;
    const recording = this.#deps.meetings.recording(meetingId);
    const source = recording === null ? null : this.#deps.media.audio({ recording });
    if (source === null) {
      this.#skip(meetingId, named, 'the meeting has no recording to learn the voices from');
      return;
    }
    const decoded = await this.#deps.decoder.decode(source.path, source.ext, control);
    const enhance = this.#deps.enhance;
    const audio = enhance === undefined ? decoded : await enhance(decoded, this.#deps.config.effective('vad'), control);
    const segments = this.#deps.meetings.transcript(meetingId).segments;
    for (const { speaker, name } of named) {
      const own = segments.filter(
        (s) =>
          s.speaker === speaker &&
          s.end - s.start >= MIN_TURN_SECONDS &&
          !segments.some((o) => o.speaker !== speaker && o.start < s.end && o.end > s.start),
      );
      const stats = await voiceStats(audio, own, control);
      if (stats.n < MIN_VOICEPRINT_FRAMES) {
        this.#skip(
          meetingId,
          [{ speaker, name }],
          `too little speech of ${speaker} without overlap (${stats.n} voice frames of ${MIN_VOICEPRINT_FRAMES} needed)`,
        );
        continue;
      }
      this.#repo.enrol(name, meetingId, toVoiceprint(stats), this.#deps.clock.now().toISOString());
      this.#record({ meetingId, name, speaker, enrolled: true, frames: stats.n });
    }
  }

  #skip(meetingId: string, named: readonly { speaker: string; name: string }[], reason: string): void {
    for (const { speaker, name } of named) this.#record({ meetingId, name, speaker, enrolled: false, reason, frames: 0 });
    this.#deps.log(`speaker enrolment skipped for meeting ${meetingId}: ${reason}`);
  }

  #record(outcome: EnrolmentOutcome): void {
    this.#outcomes.push(outcome);
    // A bounded memory of recent outcomes.
    if (this.#outcomes.length > 200) this.#outcomes.shift();
  }
}

/** What the run queue names an enrolment by. */
function enrolmentKey(request: EnrolmentRequest): string {
  return `enrol-${request.id}`;
}
