/**
 * Redaction of paths in error texts shown over the API (API.md, JobDto.error
 * and RecordingStateDto.last_error): a home folder becomes ~ with the user
 * name dropped; any other absolute path is reduced to its file name.
 *
 *   "decoder failed on /home/alice/Music/x.wav" → "decoder failed on ~/Music/x.wav"
 *   "cannot open /var/lib/app/uploads/u1.mp3"   → "cannot open u1.mp3"
 *   "C:\Users\bob\Desktop\a.m4a is broken"      → "~\Desktop\a.m4a is broken"
 */
const HOME_PATTERNS: readonly RegExp[] = [
  /(?<![\w.~-])\/(?:home|Users)\/[^/\s'"`]+(?=\/|\b)/g, // /home/alice, /Users/alice
  /(?<![\w.~-])\/root(?=\/|\b)/g,
  /\b[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\\\s'"`]+(?=\\|\b)/g,
];

/** An absolute POSIX path (2+ segments) or a Windows drive path, up to white space or a quote. */
const ABSOLUTE_PATH = /(?<![\w.~:/-])(?:\/[^/\s'"`:]+){2,}\/?|\b[A-Za-z]:\\(?:[^\\\s'"`]+\\)*[^\\\s'"`]*/g;

export function redactPaths(text: string, extraHomes: readonly string[] = []): string {
  let out = text;
  for (const home of extraHomes) {
    if (home.length > 1) out = out.split(home).join('~');
  }
  for (const pattern of HOME_PATTERNS) out = out.replace(pattern, '~');
  return out.replace(ABSOLUTE_PATH, (path) => {
    const parts = path.split(/[\\/]/).filter((p) => p.length > 0);
    return parts.at(-1) ?? '';
  });
}
