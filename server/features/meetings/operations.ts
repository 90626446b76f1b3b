/**
 * The rows of the operations table for meetings, their transcripts, speaker labels, summary and export (API.md, Meetings).
 * server/operations.ts assembles them with every other feature's rows; the
 * handlers are in handlers.ts beside this file.
 */
import { OVERWRITE, READ, REPLACE, type Operation, type PathParam } from '../../kernel/operation-types.ts';
import { boolParam, enumParam, paginationParams } from '../../kernel/http/query.ts';
import * as M from './schemas.ts';

const meetingId = { id: { description: 'meeting id' } } satisfies Record<string, PathParam>;

export const MEETING_OPERATIONS = [
  {
    operationId: 'listMeetings',
    method: 'get',
    path: '/v1/meetings',
    tag: 'meetings',
    summary: 'Meetings, newest first',
    scope: 'read',
    ...READ,
    query: { ...paginationParams },
    responses: { 200: { description: 'a page of meetings', schema: M.MeetingListResponse } },
  },
  {
    operationId: 'getMeeting',
    method: 'get',
    path: '/v1/meetings/{id}',
    tag: 'meetings',
    summary: 'One meeting',
    scope: 'read',
    ...READ,
    pathParams: meetingId,
    responses: { 200: { description: 'the meeting', schema: M.MeetingDto } },
  },
  {
    operationId: 'renameMeeting',
    method: 'patch',
    path: '/v1/meetings/{id}',
    tag: 'meetings',
    summary: 'Rename a meeting (title at most 500 characters)',
    scope: 'write',
    ...REPLACE,
    pathParams: meetingId,
    body: { schema: M.RenameMeetingRequest, required: true },
    responses: { 200: { description: 'the renamed meeting', schema: M.MeetingDto } },
  },
  {
    operationId: 'deleteMeeting',
    method: 'delete',
    path: '/v1/meetings/{id}',
    tag: 'meetings',
    summary: 'Delete a meeting with its transcript and summary; irreversible',
    scope: 'delete',
    readOnly: false,
    idempotent: false,
    destructive: true,
    pathParams: meetingId,
    query: { delete_files: boolParam({ default: false, description: 'also remove the recording file' }) },
    responses: { 200: { description: 'deleted', schema: M.DeleteMeetingResponse } },
  },
  {
    operationId: 'getTranscript',
    method: 'get',
    path: '/v1/meetings/{id}/transcript',
    tag: 'meetings',
    summary: "A meeting's transcript",
    scope: 'read',
    ...READ,
    pathParams: meetingId,
    responses: { 200: { description: 'the transcript', schema: M.TranscriptResponse } },
  },
  {
    operationId: 'getSummary',
    method: 'get',
    path: '/v1/meetings/{id}/summary',
    tag: 'meetings',
    summary: "A meeting's summary",
    scope: 'read',
    ...READ,
    pathParams: meetingId,
    responses: { 200: { description: 'the summary', schema: M.SummaryDto } },
  },
  {
    operationId: 'overwriteSummary',
    method: 'put',
    path: '/v1/meetings/{id}/summary',
    tag: 'meetings',
    summary: 'Overwrite the stored summary; no undo',
    scope: 'write',
    ...OVERWRITE,
    pathParams: meetingId,
    body: { schema: M.OverwriteSummaryRequest, required: true },
    responses: { 200: { description: 'the summary after the overwrite', schema: M.SummaryDto } },
  },
  {
    operationId: 'setSpeakerLabels',
    method: 'put',
    path: '/v1/meetings/{id}/speaker-labels',
    tag: 'meetings',
    summary: 'Set display names for speaker cluster keys (null removes one)',
    scope: 'write',
    ...REPLACE,
    pathParams: meetingId,
    body: { schema: M.SpeakerLabelsRequest, required: true },
    responses: { 200: { description: 'all labels of the meeting after the update', schema: M.SpeakerLabelsResponse } },
  },
  {
    operationId: 'exportMeeting',
    method: 'get',
    path: '/v1/meetings/{id}/export',
    tag: 'meetings',
    summary: 'Export a meeting as JSON, Markdown or plain text',
    scope: 'read',
    ...READ,
    pathParams: meetingId,
    query: {
      format: enumParam({
        values: ['json', 'md', 'txt'],
        aliases: { markdown: 'md', text: 'txt' },
        default: 'json',
        description: 'json (default), md or txt; markdown and text are aliases',
      }),
    },
    responses: {
      200: {
        description: 'ExportDto for json; the rendered document for md and txt',
        schema: M.ExportDto,
        contentTypes: ['text/markdown', 'text/plain'],
      },
    },
  },
] as const satisfies readonly Operation[];
