/**
 * What the rest of the gateway uses of meetings: the service (other features
 * store a transcript, a summary, a recording's meeting; the composition root
 * builds it; the Control API's fixtures seed meetings) and the title limit.
 * Everything else of this folder is its own (the dependency rules keep it so).
 */
export { MeetingsService, type MeetingSeed, type TypedNames } from './service.ts';
export { TITLE_MAX } from './schemas.ts';
