/**
 * Runs the system tools the simulator leans on (flite, festival, espeak-ng, ffmpeg, ffprobe)
 * with argument arrays, never through a shell, so script text and file names
 * can hold any character without quoting bugs or injection.
 */
import { spawn } from 'node:child_process';

export interface ToolResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

export interface RunToolOptions {
  /** Bytes written to the tool's standard input, which is then closed. */
  input?: Buffer | string;
  /** Resolve with the exit code instead of rejecting when it is not 0. */
  allowFailure?: boolean;
}

/** Raised when a tool is missing or exits non-zero; the message names the command and quotes its stderr. */
class ToolError extends Error {
  readonly code: number | null;
  readonly stderr: string;
  constructor(message: string, code: number | null, stderr: string) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.stderr = stderr;
  }
}

/** Which apt package provides each tool, for the "not installed" message. */
const PACKAGE_OF: Record<string, string> = {
  'espeak-ng': 'espeak-ng',
  flite: 'flite',
  festival: 'festival festvox-us-slt-hts',
  ffmpeg: 'ffmpeg',
  ffprobe: 'ffmpeg',
};

export function runTool(command: string, args: readonly string[], opts: RunToolOptions = {}): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        const pkg = PACKAGE_OF[command] ?? command;
        reject(new ToolError(`${command} is not installed (apt package: ${pkg})`, null, ''));
      } else {
        reject(new ToolError(`${command} could not start: ${error.message}`, null, ''));
      }
    });
    // A tool that exits before reading all of its input closes the pipe; the
    // exit code below is the error worth reporting, not the EPIPE.
    child.stdin.on('error', () => {});
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const exit = code ?? -1;
      if (exit !== 0 && opts.allowFailure !== true) {
        const tail = stderr.trim().split('\n').slice(-5).join('\n');
        reject(new ToolError(`${command} ${args.join(' ')} exited with ${exit}: ${tail}`, exit, stderr));
        return;
      }
      resolve({ stdout: Buffer.concat(out), stderr, code: exit });
    });
    child.stdin.end(opts.input ?? '');
  });
}
