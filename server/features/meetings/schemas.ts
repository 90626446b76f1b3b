/**
 * DTOs of the meetings resource: meeting, transcript, summary, labels, export.
 * Field names follow API.md; the fields it leaves "not shown" are decided in
 * docs/decisions/004-meeting-transcript-summary-shapes.md.
 */
import { z } from 'zod';
import { codePointString, CONTROL_CHARS, Timestamp } from '../../kernel/common-schemas.ts';

export const TITLE_MAX = 500;

export const MeetingDto = z
  .object({
    id: z.string(),
    title: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
    source: z.enum(['recording', 'import', 'fixture']),
    language: z.string().nullable(),
    duration_seconds: z.number().nonnegative().nullable(),
    has_recording: z.boolean().meta({ description: 'whether a recording file is kept for the meeting' }),
  })
  .meta({ id: 'MeetingDto' });

export const MeetingListResponse = z
  .object({
    meetings: z.array(MeetingDto),
    total: z.number().int().nonnegative(),
    limit: z.number().int().min(1).max(200),
    offset: z.number().int().nonnegative(),
  })
  .meta({ id: 'MeetingListResponse' });

export const Word = z
  .object({
    text: z.string(),
    start: z.number().nonnegative(),
    end: z.number().nonnegative(),
    confidence: z.number().min(0).max(1).optional(),
  })
  .meta({ id: 'Word' });

export const Segment = z
  .object({
    index: z.number().int().nonnegative(),
    speaker: z.string().meta({ description: 'speaker cluster key, e.g. S1' }),
    speaker_name: z.string().nullable().meta({ description: 'display name from speaker labels, if set' }),
    start: z.number().nonnegative().meta({ description: 'seconds from the start of the recording' }),
    end: z.number().nonnegative(),
    text: z.string(),
    words: z.array(Word).meta({ description: 'word timings; empty when the recognizer gave none' }),
  })
  .meta({ id: 'Segment' });

export const TranscriptResponse = z
  .object({
    meeting_id: z.string(),
    title: z.string(),
    // An addition in the spec's "not shown" area (decision 152): names the talk proposes, never applied.
    proposed_names: z
      .array(
        z.object({
          speaker: z.string().meta({ description: 'the speaker cluster key the name is proposed for' }),
          name: z.string().meta({ description: 'a name the user typed (known_speakers or custom-words)' }),
          evidence: z.string().meta({ description: 'the recognized words that proposed it, e.g. "thanks fiona"' }),
          at: z.number().nonnegative().meta({ description: 'seconds from the start of the recording: when the name was said' }),
          cue: z.enum(['addressed', 'thanked']).meta({ description: 'said to the speaker right before their turn, or right after it' }),
        }),
      )
      .optional()
      .meta({
        description:
          'for speakers without a name only: a name said to them right before their turn or thanking them right after it; ' +
          'a proposal, never applied: PUT speaker-labels applies it. Present on GET transcript and the export.',
      }),
    segments: z.array(Segment),
    speakers: z.array(
      z.object({
        key: z.string(),
        name: z.string().nullable(),
        // An addition in the spec's "not shown" area (decision 149): who gave the name.
        label_source: z.enum(['user', 'identified']).nullable().meta({
          description: 'user: set by PUT speaker-labels; identified: found by speaker identification; null: no name',
        }),
      }),
    ),
  })
  .meta({ id: 'TranscriptResponse' });

const SUMMARY_STATUSES = ['none', 'generating', 'ready', 'failed'] as const;

export const SummaryResult = z
  .object({
    text: z.string(),
    sections: z.array(z.object({ title: z.string(), text: z.string() })),
    template_id: z.string().nullable(),
    model: z.string().nullable(),
    source: z.enum(['generated', 'manual']),
  })
  .meta({ id: 'SummaryResult' });

export const SummaryDto = z
  .object({
    meeting_id: z.string(),
    status: z.enum(SUMMARY_STATUSES),
    result: SummaryResult.nullable(),
    regeneration_failed: z.boolean(),
    error: z.string().nullable(),
    updated_at: Timestamp,
  })
  .meta({ id: 'SummaryDto' });

export const RenameMeetingRequest = z
  .strictObject({
    title: codePointString({ min: 1, max: TITLE_MAX })
      .refine((t) => !CONTROL_CHARS.test(t), {
        message: 'must not contain control characters',
      })
      .refine((t) => t.trim().length > 0, { message: 'must not be blank' }),
  })
  .meta({ id: 'RenameMeetingRequest' });

export const OverwriteSummaryRequest = z.strictObject({ text: codePointString({ max: 200_000 }) }).meta({ id: 'OverwriteSummaryRequest' });

export const SpeakerLabelsRequest = z
  .strictObject({
    labels: z
      .record(
        codePointString({ min: 1, max: 100 }),
        codePointString({ min: 1, max: 200 })
          .refine((t) => !CONTROL_CHARS.test(t), { message: 'must not contain control characters' })
          .nullable(),
      )
      .meta({ description: 'speaker key → display name; null removes a label' }),
  })
  .meta({ id: 'SpeakerLabelsRequest' });

export const SpeakerLabelsResponse = z
  .object({ meeting_id: z.string(), labels: z.record(z.string(), z.string()) })
  .meta({ id: 'SpeakerLabelsResponse' });

export const DeleteMeetingResponse = z
  .object({ id: z.string(), deleted: z.literal(true), files_deleted: z.boolean() })
  .meta({ id: 'DeleteMeetingResponse' });

export const ExportDto = z
  .object({ meeting: MeetingDto, transcript: TranscriptResponse, summary: SummaryDto.nullable() })
  .meta({ id: 'ExportDto' });
