/**
 * What other features use of meetings: the service (to store a transcript,
 * a summary, a recording's meeting) and the title limit. Everything else of
 * this folder is its own (the import-boundary lint keeps it so).
 */
export type { MeetingSeed, MeetingsService } from './service.ts';
export { TITLE_MAX } from './schemas.ts';
