/**
 * What the rest of the gateway uses of speakers: the service (enrolment,
 * the identification settings, voiceprint removal and reset), which the
 * composition root builds. It has no routes of its own: the spec's
 * speaker-identification config section and PUT speaker-labels reach it
 * through the config and meetings features (decision 147).
 */
export { SpeakersService } from './service.ts';
export { VoiceprintRepo } from './repo.ts';
