/**
 * Meetings, their transcripts, speaker labels and summaries: the domain rules
 * behind the /v1/meetings routes, and the fixture seeding the Control API
 * uses (meetings cannot be created through the API, API.md fact 1).
 *
 * Shapes are decided in docs/decisions/004-meeting-transcript-summary-shapes.md.
 * Methods return DTOs that satisfy features/meetings/schemas.ts and throw
 * ApiError('not_found') for an unknown meeting id.
 *
 * Recordings belong to the media store (server/media/media-store.ts): a
 * meeting row stores its recording's media id, and this service hands the
 * store ids (what becomes the recording, what to delete), never paths.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Clock } from '../../adapters/clock.ts';
import { ApiError } from '../../kernel/errors.ts';
import type { EventBus } from '../../kernel/events.ts';
import type {
  ExportDto,
  MeetingDto,
  Segment,
  SpeakerLabelsResponse,
  SummaryDto,
  SummaryResult,
  TranscriptResponse,
  Word,
} from './schemas.ts';
import { transaction, type Database } from '../../kernel/store/database.ts';
import { MeetingsRepo, type MeetingRow, type SummaryRow } from './repo.ts';
import { clip } from '../../../common/clip.ts';
import { nameCandidates, proposeNames } from './name-mentions.ts';
import type { MediaStore, RecordingHandover, RecordingId, RecordingSource } from '../../media/media-store.ts';

export type MeetingDtoT = z.infer<typeof MeetingDto>;
export type SegmentDto = z.infer<typeof Segment>;
type WordDto = z.infer<typeof Word>;
export type TranscriptDto = z.infer<typeof TranscriptResponse>;
export type SummaryDtoT = z.infer<typeof SummaryDto>;
export type SummaryResultDto = z.infer<typeof SummaryResult>;
export type SpeakerLabelsDto = z.infer<typeof SpeakerLabelsResponse>;
export type ExportData = z.infer<typeof ExportDto>;

type MeetingSource = MeetingDtoT['source'];
export type SummaryStatus = SummaryDtoT['status'];

/** What the Control API's POST /control/meetings (and tests) seed a meeting from. */
export interface MeetingSeed {
  title: string;
  created_at: string;
  source?: MeetingSource;
  language?: string | null;
  segments: {
    speaker: string;
    start: number;
    end: number;
    text: string;
    words?: { text: string; start: number; end: number; confidence?: number }[];
  }[];
  summary: { text: string } | null;
  /** true: a short generated WAV becomes the recording (fixtures). */
  audio: boolean;
  /** A real recording to move in as the meeting's recording (an import's upload, a live capture); wins over `audio`. */
  recording?: Exclude<RecordingSource, { tone: true }>;
  duration_seconds?: number | null;
  /** The segments are a transcription's (an import): transcript.updated is announced. Fixtures and a recording's empty start are not. */
  transcribed?: boolean;
  /** Names speaker identification found for speaker keys (stored as identified labels). */
  identified?: Readonly<Record<string, string>>;
}

export type SeedSegment = MeetingSeed['segments'][number];

/** The names a user typed, which alone may be proposed from the talk: known_speakers' names and the custom words. */
export interface TypedNames {
  knownSpeakers: readonly string[];
  customWords: readonly string[];
}

/** The template a fixture summary claims to come from: the application default (API.md, RegenerateSummaryRequest). */
const DEFAULT_SUMMARY_TEMPLATE = 'daily_standup';

export class MeetingsService {
  /** The names a user typed, for proposals (proposeNamesFrom); none until the composition root says where they are. */
  #typedNames: () => TypedNames = () => ({ knownSpeakers: [], customWords: [] });
  readonly #db: Database;
  readonly #repo: MeetingsRepo;
  readonly #clock: Clock;
  readonly #bus: EventBus;
  readonly #media: Pick<MediaStore, 'handOver' | 'removeRecording' | 'removeAllRecordings'>;
  readonly #beforeDelete: ((id: string) => void)[] = [];
  readonly #labelsSet: ((id: string, labels: Readonly<Record<string, string | null>>) => void)[] = [];

  constructor(opts: {
    db: Database;
    clock: Clock;
    bus: EventBus;
    /** The meetings' recordings (the media store). */
    media: Pick<MediaStore, 'handOver' | 'removeRecording' | 'removeAllRecordings'>;
  }) {
    this.#db = opts.db;
    this.#repo = new MeetingsRepo(opts.db);
    this.#clock = opts.clock;
    this.#bus = opts.bus;
    this.#media = opts.media;
  }

  // ── Reading ──────────────────────────────────────────────────────────────

  // Reads need no transaction: node:sqlite is synchronous and this process
  // is the only writer, so nothing can change between two statements of one
  // call.

  /** A page of meetings, newest first, with the total count. */
  list(page: { limit: number; offset: number }): { meetings: MeetingDtoT[]; total: number } {
    return { meetings: this.#repo.page(page.limit, page.offset).map(meetingDto), total: this.#repo.count() };
  }

  get(id: string): MeetingDtoT {
    return meetingDto(this.#require(id));
  }

  exists(id: string): boolean {
    return this.#repo.get(id) !== undefined;
  }

  transcript(id: string): TranscriptDto {
    return this.#withProposals(this.#transcript(this.#require(id)));
  }

  /**
   * Where the names a user typed come from (known_speakers, custom-words),
   * read each time a transcript is read, so a proposal follows the
   * configuration in force (decision 152).
   */
  proposeNamesFrom(typedNames: () => TypedNames): void {
    this.#typedNames = typedNames;
  }

  /** Whether the meeting has at least one segment (regeneration needs a non-empty transcript). */
  hasTranscript(id: string): boolean {
    this.#require(id);
    return this.#repo.segments(id).length > 0;
  }

  summary(id: string): SummaryDtoT {
    return this.#summary(this.#require(id));
  }

  /** Everything an export renders: the meeting, its transcript, its summary or null. */
  exportData(id: string): ExportData {
    const row = this.#require(id);
    const summary = this.#repo.summary(id);
    return {
      meeting: meetingDto(row),
      transcript: this.#withProposals(this.#transcript(row)),
      summary: summary === undefined ? null : summaryDto(summary),
    };
  }

  // ── Changing ─────────────────────────────────────────────────────────────

  /** Sets the title (already validated: 1..500 code points, no control characters). */
  rename(id: string, title: string): MeetingDtoT {
    return transaction(this.#db, () => {
      if (!this.#repo.rename(id, title, this.#now())) throw notFound(id);
      return meetingDto(this.#require(id));
    });
  }

  /**
   * Deletes the meeting and, through the foreign keys, its transcript, labels
   * and summary, in one transaction. With deleteFiles the recording file goes
   * too, after the commit: a failed commit must not lose the file, and a file
   * that is already gone is not an error.
   */
  delete(id: string, opts: { deleteFiles: boolean }): { filesDeleted: boolean } {
    if (this.exists(id)) for (const hook of this.#beforeDelete) hook(id);
    const removed = transaction(this.#db, () => this.#repo.delete(id));
    if (removed === undefined) throw notFound(id);
    // A failure to remove is files_deleted false, not a 500 that would invite a retry ending in 404: the meeting is gone.
    const filesDeleted = opts.deleteFiles && removed.recording_file !== null && this.#media.removeRecording(removed.recording_file);
    return { filesDeleted };
  }

  /** Replaces the summary by the caller's text (PUT summary; no undo). */
  overwriteSummary(id: string, text: string): SummaryDtoT {
    return transaction(this.#db, () => {
      this.#require(id);
      const result: SummaryResultDto = { text, sections: [], template_id: null, model: null, source: 'manual' };
      const row: SummaryRow = {
        meeting_id: id,
        status: 'ready',
        result: JSON.stringify(result),
        regeneration_failed: 0,
        error: null,
        updated_at: this.#now(),
      };
      this.#repo.upsertSummary(row);
      return summaryDto(row);
    });
  }

  /**
   * Stores a summary state as given, for the summary generator: e.g. status
   * 'generating' while a run is under way, 'ready' with its result, or the
   * previous result kept with regeneration_failed and error after a failure.
   */
  storeSummary(
    id: string,
    state: { status: SummaryStatus; result: SummaryResultDto | null; regeneration_failed: boolean; error: string | null },
  ): SummaryDtoT {
    return transaction(this.#db, () => {
      this.#require(id);
      const row: SummaryRow = {
        meeting_id: id,
        status: state.status,
        result: state.result === null ? null : JSON.stringify(state.result),
        regeneration_failed: state.regeneration_failed ? 1 : 0,
        error: state.error,
        updated_at: this.#now(),
      };
      this.#repo.upsertSummary(row);
      return summaryDto(row);
    });
  }

  /**
   * Merges display names into the stored labels; null removes a label. Any
   * key is accepted, also one no segment uses yet (a later diarization may
   * bring it). Returns the whole map after the update.
   */
  setSpeakerLabels(id: string, labels: Record<string, string | null>): SpeakerLabelsDto {
    const updated = transaction(this.#db, () => {
      this.#require(id);
      for (const [key, label] of Object.entries(labels)) {
        if (label === null) this.#repo.removeLabel(id, key);
        else {
          // A name a user gives is theirs: another speaker identified by it loses it (one name, one speaker).
          this.#repo.removeIdentified(id, label);
          this.#repo.setLabel(id, key, label, 'user');
        }
      }
      return { meeting_id: id, labels: Object.fromEntries(this.#repo.labels(id)) };
    });
    // Speaker enrolment (features/speakers) learns the named voices, after the update.
    for (const hook of this.#labelsSet) hook(id, labels);
    return updated;
  }

  /** Called after a user set speaker labels of a meeting, with the labels given. */
  onLabelsSet(hook: (id: string, labels: Readonly<Record<string, string | null>>) => void): void {
    this.#labelsSet.push(hook);
  }

  /**
   * Speaker identification's names, as identified labels: the previous
   * identified labels go, a user's label is never overwritten, and a name a
   * user gave one speaker is not given to another.
   */
  #storeIdentified(id: string, names: Readonly<Record<string, string>> | undefined): void {
    this.#repo.removeIdentified(id);
    if (names === undefined) return;
    const userLabels = this.#repo.labels(id);
    const taken = new Set(userLabels.values());
    for (const [key, name] of Object.entries(names)) {
      if (userLabels.has(key) || taken.has(name)) continue;
      this.#repo.setLabel(id, key, name, 'identified');
      taken.add(name);
    }
  }

  // ── Fixtures and reset (Control API) ─────────────────────────────────────

  /**
   * Stores a meeting as if it had been recorded: the meeting row, its
   * segments, its summary and, with audio, a short generated WAV, all or
   * nothing.
   *
   * Segments are inserted last-first, so within one meeting a higher segment
   * id means an earlier segment: search lists transcript hits by descending
   * segment id, which then yields newest meeting first and transcript order
   * inside a meeting without sorting (docs/decisions/006-search.md).
   */
  /**
   * Stores a new meeting. `inTransaction` runs inside the transaction that
   * commits it, before its recording takes its final name: what the caller
   * writes there (an import job naming its meeting) commits with the meeting
   * or not at all, so no kill between two commits leaves a meeting that no
   * job names (decision 024).
   */
  create(seed: MeetingSeed, inTransaction?: (meetingId: string) => void): MeetingDtoT {
    const id = randomUUID();
    const created = new Date(seed.created_at);
    if (Number.isNaN(created.getTime())) throw new ApiError('invalid_request', 'created_at must be an RFC 3339 timestamp');
    // One spelling (UTC, milliseconds) so created_at sorts as text.
    const createdAt = created.toISOString();

    // The media store prepares the recording; it takes its final name inside the transaction below.
    const source: RecordingSource | null = seed.recording ?? (seed.audio ? { tone: true } : null);
    const handover: RecordingHandover | null = source === null ? null : this.#media.handOver(source, id);

    let meeting: MeetingDtoT;
    try {
      meeting = transaction(this.#db, () => {
        this.#repo.insert({
          id,
          title: seed.title,
          created_at: createdAt,
          updated_at: createdAt,
          source: seed.source ?? 'fixture',
          language: seed.language ?? null,
          duration_seconds: seed.duration_seconds ?? null,
          recording_file: handover?.id ?? null,
        });
        this.#insertSegments(id, seed.segments);
        if (seed.identified !== undefined) this.#storeIdentified(id, seed.identified);
        if (seed.summary !== null) {
          const result: SummaryResultDto = {
            text: seed.summary.text,
            sections: [],
            template_id: DEFAULT_SUMMARY_TEMPLATE,
            model: null,
            // A fixture stands for a summary the application generated.
            source: 'generated',
          };
          this.#repo.upsertSummary({
            meeting_id: id,
            status: 'ready',
            result: JSON.stringify(result),
            regeneration_failed: 0,
            error: null,
            updated_at: createdAt,
          });
        }
        inTransaction?.(id);
        handover?.place();
        return meetingDto(this.#require(id));
      });
    } catch (err) {
      // Not ours to delete: an upload or a capture stays where it was.
      handover?.undo();
      throw err;
    }
    handover?.settle();
    if (seed.transcribed === true) this.#bus.publish('transcript.updated', { kind: 'meeting', id });
    return meeting;
  }

  /**
   * Replaces a meeting's transcript (a recording's, a retranscription, a
   * diarization): all segments in one transaction, inserted last-first as
   * create() does, then transcript.updated.
   */
  replaceTranscript(id: string, segments: readonly SeedSegment[], identified?: Readonly<Record<string, string>>): TranscriptDto {
    const transcript = transaction(this.#db, () => {
      const row = this.#require(id);
      this.#repo.deleteSegments(id);
      this.#insertSegments(id, segments);
      // The new clusters' names replace the old ones' (a user's labels stay as they were).
      this.#storeIdentified(id, identified);
      this.#repo.touch(id, this.#now());
      return this.#transcript({ ...row });
    });
    this.#bus.publish('transcript.updated', { kind: 'meeting', id });
    return transcript;
  }

  /** The recordings (media ids) some meeting refers to. */
  referencedRecordings(): Set<string> {
    return this.#repo.recordingFiles();
  }

  /** Called with a meeting id just before it is deleted (job files, open runs). */
  onBeforeDelete(hook: (id: string) => void): void {
    this.#beforeDelete.push(hook);
  }

  #insertSegments(id: string, segments: readonly SeedSegment[]): void {
    for (let idx = segments.length - 1; idx >= 0; idx--) {
      const seg = segments[idx]!;
      this.#repo.insertSegment(id, {
        idx,
        speaker: seg.speaker,
        start_s: seg.start,
        end_s: seg.end,
        text: seg.text,
        words: seg.words === undefined || seg.words.length === 0 ? null : JSON.stringify(seg.words),
      });
    }
  }

  /** Removes every meeting (with transcripts, labels, summaries) and every recording. */
  deleteAll(): void {
    transaction(this.#db, () => this.#repo.deleteAll());
    this.#media.removeAllRecordings();
  }

  /** The media id of a meeting's recording (the media store reads it), or null when it has none. */
  recording(id: string): RecordingId | null {
    return this.#require(id).recording_file;
  }

  // ── Internals ────────────────────────────────────────────────────────────

  #require(id: string): MeetingRow {
    const row = this.#repo.get(id);
    if (row === undefined) throw notFound(id);
    return row;
  }

  #now(): string {
    return this.#clock.now().toISOString();
  }

  #transcript(row: MeetingRow): TranscriptDto {
    const labels = this.#repo.labels(row.id);
    const sources = this.#repo.labelSources(row.id);
    const segments = this.#repo.segments(row.id).map((s): SegmentDto => ({
      index: s.idx,
      speaker: s.speaker,
      speaker_name: labels.get(s.speaker) ?? null,
      start: s.start_s,
      end: s.end_s,
      text: s.text,
      words: s.words === null ? [] : (JSON.parse(s.words) as WordDto[]),
    }));
    // Speakers who talk in the transcript, in order of first appearance.
    const speakers: TranscriptDto['speakers'] = [];
    const seen = new Set<string>();
    for (const s of segments) {
      if (seen.has(s.speaker)) continue;
      seen.add(s.speaker);
      speakers.push({
        key: s.speaker,
        name: s.speaker_name,
        label_source: s.speaker_name === null ? null : (sources.get(s.speaker) ?? 'user'),
      });
    }
    return { meeting_id: row.id, title: row.title, segments, speakers };
  }

  /** The transcript with the names its talk proposes for speakers nobody named (name-mentions.ts); never applied. */
  #withProposals(transcript: TranscriptDto): TranscriptDto {
    const typed = this.#typedNames();
    const named = new Map(transcript.speakers.flatMap((s) => (s.name === null ? [] : [[s.key, s.name] as const])));
    const proposals = proposeNames(transcript.segments, nameCandidates(typed.knownSpeakers, typed.customWords), named);
    return { ...transcript, proposed_names: proposals };
  }

  #summary(row: MeetingRow): SummaryDtoT {
    const stored = this.#repo.summary(row.id);
    if (stored !== undefined) return summaryDto(stored);
    // No summary yet: status none, dated by the meeting itself.
    return { meeting_id: row.id, status: 'none', result: null, regeneration_failed: false, error: null, updated_at: row.updated_at };
  }
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `no meeting with id "${clip(id, 60)}"`);
}

function meetingDto(row: MeetingRow): MeetingDtoT {
  return {
    id: row.id,
    title: row.title,
    created_at: row.created_at,
    updated_at: row.updated_at,
    source: row.source as MeetingSource,
    language: row.language,
    duration_seconds: row.duration_seconds,
    has_recording: row.recording_file !== null,
  };
}

function summaryDto(row: SummaryRow): SummaryDtoT {
  return {
    meeting_id: row.meeting_id,
    status: row.status as SummaryStatus,
    result: row.result === null ? null : (JSON.parse(row.result) as SummaryResultDto),
    regeneration_failed: row.regeneration_failed !== 0,
    error: row.error,
    updated_at: row.updated_at,
  };
}
