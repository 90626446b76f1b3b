/**
 * Which encoders this machine's ffmpeg was built with. Debian's ffmpeg has
 * libx264, libvpx, libopus and libvorbis, but a minimal build may not; the
 * encoder then picks the next best codec instead of failing.
 */
import { runTool } from '../run-tool.ts';

let encodersPromise: Promise<Set<string>> | undefined;

/** Names of the encoders `ffmpeg -encoders` lists, e.g. "libx264", "aac". */
function ffmpegEncoders(): Promise<Set<string>> {
  encodersPromise ??= runTool('ffmpeg', ['-hide_banner', '-encoders']).then(({ stdout }) => {
    const names = new Set<string>();
    // Rows look like " V....D libx264   libx264 H.264 ..."; the header ends at a "------" line.
    for (const row of stdout.toString('utf8').split('\n')) {
      const match = /^ [VAS][F.][S.][X.][B.][D.] (\S+)/.exec(row);
      if (match?.[1] !== undefined && match[1] !== '=') names.add(match[1]); // skip the legend rows (" V..... = Video")
    }
    return names;
  });
  return encodersPromise;
}

/** The first of `preferred` that ffmpeg can encode with. */
export async function firstAvailableEncoder(preferred: readonly string[]): Promise<string> {
  const encoders = await ffmpegEncoders();
  const found = preferred.find((name) => encoders.has(name));
  if (found === undefined) throw new Error(`ffmpeg has none of the encoders ${preferred.join(', ')}`);
  return found;
}
