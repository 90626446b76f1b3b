/**
 * Redaction of paths in error texts shown over the API (API.md, JobDto.error
 * and RecordingStateDto.last_error): a home folder becomes ~ with the user
 * name dropped; any other absolute path is reduced to its file name.
 *
 *   "decoder failed on /home/alice/Music/x.wav" → "decoder failed on ~/Music/x.wav"
 *   "cannot open /var/lib/app/uploads/u1.mp3"   → "cannot open u1.mp3"
 *   "C:\Users\bob\Desktop\a.m4a is broken"      → "~\Desktop\a.m4a is broken"
 *   "cannot write file:///tmp (read-only)"        → "cannot write tmp (read-only)"
 *
 * docs/decisions/022-host-origin-and-secrets.md: every '/'-rooted path is
 * redacted, one segment long or more, and file: URLs too (found by the
 * property test in server/security/no-paths-in-errors.test.ts).
 */
const HOME_PATTERNS: readonly RegExp[] = [
  /(?<![\w.~-])\/(?:home|Users)\/[^/\s'"`]+(?=\/|\b)/g, // /home/alice, /Users/alice
  /(?<![\w.~-])\/root(?=\/|\b)/g,
  /\b[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\\\s'"`]+(?=\\|\b)/g,
];

/**
 * An absolute POSIX path (one segment or more: "/tmp" and "/usr:12" name this
 * machine as much as a long path does) or a Windows drive path, up to white
 * space, a quote or a colon. The look-behind keeps URL paths ("http://h/p",
 * "a/b") and "~/…" out.
 */
const ABSOLUTE_PATH = /(?<![\w.~:/-])(?:\/[^/\s'"`:]+)+\/?|\b[A-Za-z]:\\(?:[^\\\s'"`]+\\)*[^\\\s'"`]*/g;

/** A file: URL's scheme before an absolute path: dropped, so the path behind it is redacted like any other. */
const FILE_URL = /\bfile:\/\/(?=\/|[A-Za-z]:)/gi;

export function redactPaths(text: string, extraHomes: readonly string[] = []): string {
  let out = text.replace(FILE_URL, '');
  for (const home of extraHomes) {
    if (home.length > 1) out = out.split(home).join('~');
  }
  for (const pattern of HOME_PATTERNS) out = out.replace(pattern, '~');
  return out.replace(ABSOLUTE_PATH, (path) => {
    const parts = path.split(/[\\/]/).filter((p) => p.length > 0);
    return parts.at(-1) ?? '';
  });
}
