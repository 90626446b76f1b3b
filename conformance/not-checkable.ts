/**
 * Clauses the suite cannot observe over HTTP (observe = "internal" in
 * clauses.json), each with the reason. lint.ts requires every internal clause
 * to be listed here and no check to claim one.
 */
export const NOT_CHECKABLE: Readonly<Record<string, string>> = {
  'service.http-is-complete-surface':
    'It compares the HTTP API with other client tools (a command-line tool, an assistant tool ' +
    'server); a client of the HTTP API sees none of them.',
  'service.recording.real-audio':
    'What a recording captures (real microphone or system audio) never leaves the application ' +
    'over the API; a target may capture from simulated devices.',
  'transport.no-relay':
    'The absence of a hosted relay or NAT traversal is a property of the deployment, not of any answer the listening socket gives.',
  'transport.quit-stops-serving':
    'Quitting the desktop application is outside both the API and the Control API (a Control ' +
    'API restart keeps the listener bound by design).',
  'health.events-dropped.semantics':
    'Dropping an event before any delivery attempt needs a full delivery queue inside the ' +
    'application; no API or Control API action fills it.',
  'health.fail-open-total.semantics':
    'It needs license verification that cannot complete; the Control API setting ' +
    'license=unverifiable simulates the outcome, not the failing verification itself.',
  'meetings.delete.delete-files.effect':
    "Whether the recording file is removed is a file-system effect on the application's machine, not visible in any API answer.",
  'summary.regenerate.config-fallback':
    'The effective model, template and language of a regeneration are not exposed by the API, ' +
    'so the fallback to stored configuration cannot be seen.',
  'summary.regenerate.default-template': 'The template used for a summary is not exposed by the API (the summary shape is a gap).',
  'errors.code.internal.500':
    'A failure on the service side cannot be provoked on purpose by a conforming client; the ' +
    'envelope of any 500 the suite meets is still checked by errors/envelope-on-every-error.',
};
