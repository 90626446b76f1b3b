/**
 * Handlers of the meetings operations (operations.ts, "Meetings"). Each one
 * reads what the router already parsed and validated, calls MeetingsService
 * and shapes the reply; the shapes are decided in
 * docs/decisions/004-meeting-transcript-summary-shapes.md.
 */
import type { HandlersFor } from '../../http-types.ts';
import type { OperationId } from '../../operations.ts';
import type { MeetingsService } from './service.ts';
import { contentDisposition, EXPORT_CONTENT_TYPES, renderExport } from './export.ts';

type MeetingOperationId = Extract<
  OperationId,
  | 'listMeetings'
  | 'getMeeting'
  | 'renameMeeting'
  | 'deleteMeeting'
  | 'getTranscript'
  | 'getSummary'
  | 'overwriteSummary'
  | 'setSpeakerLabels'
  | 'exportMeeting'
>;

/** The services the meetings routes use, and nothing else (built by server/deps.ts). */
export interface MeetingsDeps {
  meetings: MeetingsService;
}

/** The meeting id of the path (every row but the list declares it). */
function meetingId(ctx: { params: { readonly id: string } }): string {
  return ctx.params.id;
}

export const meetingHandlers = {
  listMeetings(ctx) {
    const { limit, offset } = ctx.query;
    const { meetings, total } = ctx.deps.meetings.list({ limit, offset });
    return { status: 200, json: { meetings, total, limit, offset } };
  },

  getMeeting(ctx) {
    return { status: 200, json: ctx.deps.meetings.get(meetingId(ctx)) };
  },

  renameMeeting(ctx) {
    const { title } = ctx.body;
    return { status: 200, json: ctx.deps.meetings.rename(meetingId(ctx), title) };
  },

  deleteMeeting(ctx) {
    const id = meetingId(ctx);
    const { filesDeleted } = ctx.deps.meetings.delete(id, { deleteFiles: ctx.query.delete_files });
    return { status: 200, json: { id, deleted: true, files_deleted: filesDeleted } };
  },

  getTranscript(ctx) {
    return { status: 200, json: ctx.deps.meetings.transcript(meetingId(ctx)) };
  },

  getSummary(ctx) {
    return { status: 200, json: ctx.deps.meetings.summary(meetingId(ctx)) };
  },

  overwriteSummary(ctx) {
    const { text } = ctx.body;
    return { status: 200, json: ctx.deps.meetings.overwriteSummary(meetingId(ctx), text) };
  },

  setSpeakerLabels(ctx) {
    const { labels } = ctx.body;
    return { status: 200, json: ctx.deps.meetings.setSpeakerLabels(meetingId(ctx), labels) };
  },

  exportMeeting(ctx) {
    const { format } = ctx.query;
    const data = ctx.deps.meetings.exportData(meetingId(ctx));
    if (format === 'json') return { status: 200, json: data };
    return {
      status: 200,
      text: renderExport(data, format),
      contentType: EXPORT_CONTENT_TYPES[format],
      headers: { 'Content-Disposition': contentDisposition(data.meeting.title, format) },
    };
  },
} satisfies HandlersFor<MeetingOperationId, MeetingsDeps>;
