/**
 * The Node versions the release bundle (dist/suite/mas-conformance.mjs) runs
 * on: every line still supported upstream, 22 and 24 today. Checked first
 * thing by the bundle's entry, so an older Node gets one line naming what is
 * needed instead of a SyntaxError from deep inside (docs/decisions/071-conformance-release-artifacts.md).
 *
 * No imports: this module must load on any Node.
 */

/** The oldest Node major the bundle supports. */
export const MIN_NODE_MAJOR = 22;
/** The lines it is tested on (conformance/release/release.slow-test.ts). */
const TESTED_NODE_MAJORS = [22, 24] as const;

/** The one line an unsupported Node gets, or null when `version` (process.versions.node, e.g. "20.19.5") is supported. */
export function nodeRefusal(version: string): string | null {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return null;
  return `mas-conformance needs Node.js ${MIN_NODE_MAJOR} or later (tested on ${TESTED_NODE_MAJORS.join(' and ')}); this is Node.js ${version.replace(/^v?/, 'v')}. Install a current Node.js, or use the single executable mas-conformance-linux-x64, which needs none.`;
}
