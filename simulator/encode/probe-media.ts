/**
 * What a media file really holds, as ffprobe and ffmpeg's decoder see it.
 * Used to verify encoded files and to prove that the broken fixtures are
 * broken.
 */
import { runTool } from '../run-tool.ts';

interface ProbedStream {
  type: string; // "audio", "video", ...
  codec: string;
  sampleRate?: number;
  channels?: number;
  width?: number;
  height?: number;
}

interface ProbeResult {
  /** ffmpeg's demuxer name(s), e.g. "mov,mp4,m4a,3gp,3g2,mj2". */
  container: string;
  /** Duration the container claims, in seconds, when it claims one. */
  duration?: number;
  streams: ProbedStream[];
}

export type ProbeOutcome = { ok: true; probe: ProbeResult } | { ok: false; error: string };

interface FfprobeJson {
  format?: { format_name?: string; duration?: string };
  streams?: { codec_type?: string; codec_name?: string; sample_rate?: string; channels?: number; width?: number; height?: number }[];
}

/** ffprobe's view of a file; `ok: false` when ffprobe cannot read it at all. */
export async function probeMedia(file: string): Promise<ProbeOutcome> {
  const result = await runTool('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
    allowFailure: true,
  });
  if (result.code !== 0) return { ok: false, error: result.stderr.trim() || `ffprobe exited with ${result.code}` };
  const json = JSON.parse(result.stdout.toString('utf8')) as FfprobeJson;
  const duration = Number(json.format?.duration);
  return {
    ok: true,
    probe: {
      container: json.format?.format_name ?? '',
      ...(Number.isFinite(duration) ? { duration } : {}),
      streams: (json.streams ?? []).map((s) => ({
        type: s.codec_type ?? 'unknown',
        codec: s.codec_name ?? 'unknown',
        ...(s.sample_rate !== undefined ? { sampleRate: Number(s.sample_rate) } : {}),
        ...(s.channels !== undefined ? { channels: s.channels } : {}),
        ...(s.width !== undefined ? { width: s.width } : {}),
        ...(s.height !== undefined ? { height: s.height } : {}),
      })),
    },
  };
}

export interface DecodeResult {
  /** Seconds of audio the decoder produced (first audio stream, as 16 kHz mono). */
  seconds: number;
  /** What the decoder complained about; empty for a clean file. */
  errors: string;
  /** The decoder's exit code; non-zero when it gave up. */
  code: number;
}

/**
 * Decodes the first audio stream to the end and counts the samples: the only
 * honest length of a file whose header may lie. Meant for short files.
 */
export async function decodeAudio(file: string): Promise<DecodeResult> {
  const result = await runTool(
    'ffmpeg',
    ['-hide_banner', '-nostdin', '-v', 'error', '-i', file, '-map', '0:a:0', '-ac', '1', '-ar', '16000', '-f', 's16le', 'pipe:1'],
    { allowFailure: true },
  );
  return { seconds: result.stdout.length / 2 / 16_000, errors: result.stderr.trim(), code: result.code };
}
