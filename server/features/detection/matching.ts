/**
 * Which entry of meeting-detection.apps a capture stream belongs to.
 *
 * An entry matches when it appears as a whole word, case-insensitive, in the
 * stream's application name or in its binary's name: "teams" matches
 * "Microsoft Teams" and "teams-for-linux", "zoom" matches the binary
 * "zoom.real", but "meet" does not match "Meeting notes" and "slack" does not
 * match "slackware". A word is a run of letters and digits; an entry of
 * several words ("google meet") must appear with those words in that order.
 * Decision: docs/decisions/142-meeting-app-matching.md.
 */

/** The words of a name: lower-case runs of letters and digits. */
function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

function containsRun(haystack: string[], needle: string[]): boolean {
  if (needle.length === 0) return false;
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((w, k) => haystack[i + k] === w)) return true;
  }
  return false;
}

/** The first entry of `apps` the stream matches, or null. */
export function matchApp(apps: readonly string[], stream: { appName: string; binary: string }): string | null {
  const name = words(stream.appName);
  const binary = words(stream.binary.split('/').pop() ?? '');
  for (const app of apps) {
    const entry = words(app);
    if (containsRun(name, entry) || containsRun(binary, entry)) return app;
  }
  return null;
}
