/**
 * Finding the audio tools (pulseaudio, pacat, parec, pactl, ffmpeg) before
 * running them, so "not installed" is known up front and can be reported as
 * such (a 503 at start rather than a failure later).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The Debian package that brings each tool, for messages. */
const PACKAGE_OF_TOOL: Readonly<Record<string, string>> = {
  pulseaudio: 'pulseaudio',
  pacat: 'pulseaudio-utils',
  parec: 'pulseaudio-utils',
  pactl: 'pulseaudio-utils',
  ffmpeg: 'ffmpeg',
};

/** The absolute path of an executable: `name` looked up on the PATH of `env`, or a path checked as is. */
export function findTool(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates =
    isAbsolute(name) || name.includes('/')
      ? [name]
      : (env['PATH'] ?? '')
          .split(delimiter)
          .filter((d) => d.length > 0)
          .map((d) => join(d, name));
  for (const file of candidates) {
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** "parec (apt package pulseaudio-utils) is not installed" */
export function missingToolText(name: string): string {
  const base = name.split('/').pop() ?? name;
  const pkg = PACKAGE_OF_TOOL[base];
  return `${base}${pkg !== undefined ? ` (apt package ${pkg})` : ''} is not installed`;
}
