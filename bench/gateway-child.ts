/**
 * The real gateway, as a user starts it (server/main.ts with its command-line
 * flags), in a child process of the bench, with bench/probe.ts preloaded for
 * memory, file-descriptor and event-loop figures. The load, wait and soak
 * benchmarks use it, so they measure the listener, the lifecycle and the
 * limits server/gateway.ts really sets, not a bench-built copy of the app.
 *
 * Everything is on loopback with ephemeral ports; the data folder is a fresh
 * temporary folder removed at stop. The Control API secret is made here and
 * passed as `--control-secret=<secret>`: a random base64url secret begins with
 * `-` about one time in 64, and as an argument of its own it would be read as
 * an option ("argument is ambiguous"). Extra flags (e.g. a connection cap) go
 * through `args`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ProbeSample } from './probe.ts';

const MAIN = fileURLToPath(new URL('../server/main.ts', import.meta.url));
const PROBE = pathToFileURL(fileURLToPath(new URL('./probe.ts', import.meta.url))).href;

export interface GatewayChild {
  pid: number;
  apiPort: number;
  /** The first_party token (all four scopes) the gateway minted at this start, read off its banner. */
  startupToken: string;
  controlPort: number;
  controlSecret: string;
  dataDir: string;
  /** Lines the gateway wrote to standard error (unexpected failures are logged there). */
  stderrLines(): string[];
  /** One probe sample (bench/probe.ts); gc: a full GC first (the child runs with --expose-gc). */
  sample(gc?: boolean): Promise<ProbeSample>;
  /** A Control API call; throws unless the status is one of `expect`. */
  control<T = unknown>(method: string, path: string, body?: unknown, expect?: number[]): Promise<T>;
  stop(): Promise<void>;
}

export interface GatewayChildOptions {
  /** Extra server/main.ts flags. */
  args?: string[];
  /** How long to wait for the banner. */
  startTimeoutMs?: number;
  /** A chosen Control API secret instead of a random one (the test of a secret beginning with `-`). */
  controlSecret?: string;
  /** Environment variables over the bench's own (e.g. MAS_RECOGNIZER_PROCESSES). */
  env?: Record<string, string>;
}

export async function startGatewayChild(opts: GatewayChildOptions = {}): Promise<GatewayChild> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-bench-gw-'));
  const controlSecret = opts.controlSecret ?? randomBytes(24).toString('base64url');
  const child: ChildProcess = fork(
    MAIN,
    [
      '--port',
      '0',
      '--control-port',
      '0',
      `--control-secret=${controlSecret}`,
      `--data-dir=${dataDir}`,
      '--enable-api',
      ...(opts.args ?? []),
    ],
    {
      execPath: process.execPath,
      execArgv: ['--import', PROBE, '--expose-gc'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      ...(opts.env !== undefined ? { env: { ...process.env, ...opts.env } } : {}),
    },
  );
  const errLines: string[] = [];
  let errTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    const parts = (errTail + chunk).split('\n');
    errTail = parts.pop() ?? '';
    for (const line of parts) if (line.trim() !== '') errLines.push(line);
  });

  let banner = '';
  const ports = await new Promise<{ api: number; control: number; token: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `the gateway did not print its banner within ${opts.startTimeoutMs ?? 60_000} ms; stderr: ${errLines.slice(-5).join(' | ')}`,
        ),
      );
    }, opts.startTimeoutMs ?? 60_000);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      banner += chunk;
      const api = /Automation API\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(banner);
      const control = /Control API\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(banner);
      const token = /Startup token\s+(\S+)/.exec(banner);
      if (api !== null && control !== null && token !== null) {
        clearTimeout(timer);
        resolve({ api: Number(api[1]), control: Number(control[1]), token: token[1] as string });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`the gateway exited before it was ready (code ${code}, signal ${signal}); stderr: ${errLines.slice(-5).join(' | ')}`),
      );
    });
  });
  // Keep draining stdout so the child never blocks on a full pipe.
  child.stdout?.resume();

  let nextId = 0;
  const controlAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  return {
    pid: child.pid ?? 0,
    apiPort: ports.api,
    startupToken: ports.token,
    controlPort: ports.control,
    controlSecret,
    dataDir,
    stderrLines: () => [...errLines],
    sample: (gc = false) =>
      new Promise<ProbeSample>((resolve, reject) => {
        const id = ++nextId;
        const timer = setTimeout(() => {
          child.off('message', onMessage);
          reject(new Error('the gateway probe did not answer within 30 s'));
        }, 30_000);
        const onMessage = (raw: unknown): void => {
          const m = raw as { reply?: number; result?: ProbeSample; error?: string } | null;
          if (m?.reply !== id) return;
          clearTimeout(timer);
          child.off('message', onMessage);
          if (m.error !== undefined || m.result === undefined) reject(new Error(`probe: ${m.error ?? 'no result'}`));
          else resolve(m.result);
        };
        child.on('message', onMessage);
        child.send({ id, cmd: 'sample', gc });
      }),
    async control<T>(method: string, path: string, body?: unknown, expect: number[] = [200, 201, 204]): Promise<T> {
      const res = await httpCall({ port: ports.control, method, path, token: controlSecret, body, agent: controlAgent });
      if (!expect.includes(res.status))
        throw new Error(`Control API ${method} ${path}: ${res.status} ${res.error ?? ''} ${res.text.slice(0, 300)}`);
      return (res.text === '' ? undefined : JSON.parse(res.text)) as T;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        controlAgent.destroy();
        const done = (): void => {
          rmSync(dataDir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) {
          done();
          return;
        }
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          done();
        });
        child.kill('SIGTERM');
      }),
  };
}

export interface HttpCallOptions {
  port: number;
  method: string;
  path: string;
  token?: string;
  body?: unknown;
  /** Raw bytes sent as application/octet-stream instead of a JSON body. */
  bytes?: Uint8Array;
  agent?: http.Agent | false;
  timeoutMs?: number;
}

export interface HttpCallResult {
  /** 0 when the request failed at the transport (the error is in `error`). */
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
  error?: string;
}

/** One HTTP request on loopback; never rejects (a transport failure is status 0 with its error code). */
export async function httpCall(o: HttpCallOptions): Promise<HttpCallResult> {
  const first = await httpCallOnce(o);
  // A keep-alive socket the server closed while it sat idle in the agent's
  // pool fails the next request sent on it with ECONNRESET before the server
  // read it; Node's documentation (request.reusedSocket) says to send it again.
  return first.reusedSocketReset === true ? httpCallOnce(o) : first;
}

function httpCallOnce(o: HttpCallOptions): Promise<HttpCallResult & { reusedSocketReset?: boolean }> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = {};
    if (o.token !== undefined) headers['Authorization'] = `Bearer ${o.token}`;
    let payload: Buffer | Uint8Array | undefined;
    if (o.bytes !== undefined) {
      payload = o.bytes;
      headers['Content-Type'] = 'application/octet-stream';
    } else if (o.body !== undefined) {
      payload = Buffer.from(JSON.stringify(o.body));
      headers['Content-Type'] = 'application/json';
    }
    if (payload !== undefined) headers['Content-Length'] = payload.byteLength;
    const req = http.request(
      { host: '127.0.0.1', port: o.port, method: o.method, path: o.path, headers, agent: o.agent ?? undefined },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, text: '', headers: {}, error: err.code ?? err.message }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({
        status: 0,
        text: '',
        headers: {},
        error: err.code ?? err.message,
        reusedSocketReset: req.reusedSocket && err.code === 'ECONNRESET',
      }),
    );
    if (o.timeoutMs !== undefined)
      req.setTimeout(o.timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.end(payload);
  });
}

/** A call of the child gateway's Automation API with its startup token; anything but 2xx throws with the status and error. */
export async function gatewayApi<T>(gw: GatewayChild, method: string, apiPath: string, body?: unknown): Promise<T> {
  const res = await httpCall({ port: gw.apiPort, method, path: apiPath, token: gw.startupToken, body, timeoutMs: 60_000 });
  if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${apiPath}: ${res.status} ${res.error ?? res.text.slice(0, 300)}`);
  return (res.text === '' ? undefined : JSON.parse(res.text)) as T;
}

/** POST /v1/jobs/import of a WAV's bytes under `name`.wav: the queued job's id (anything but 202 throws). */
export async function startImport(gw: GatewayChild, bytes: Buffer, name: string, timeoutMs: number): Promise<string> {
  const res = await httpCall({
    port: gw.apiPort,
    method: 'POST',
    path: `/v1/jobs/import?filename=${encodeURIComponent(`${name}.wav`)}&title=${encodeURIComponent(name)}`,
    token: gw.startupToken,
    bytes,
    timeoutMs,
  });
  if (res.status !== 202) throw new Error(`import: ${res.status} ${res.error ?? res.text.slice(0, 300)}`);
  return (JSON.parse(res.text) as { job_id: string }).job_id;
}

/** What the import benchmarks read of GET /v1/jobs/{id}. */
export interface PolledJob {
  state: string;
  stage: string;
  meeting_id: string | null;
  error: string | null;
}

/**
 * Polls GET /v1/jobs/{id} every `intervalMs` until the job ends (succeeded,
 * failed or cancelled) and returns it; throws once `timeoutS` have passed
 * since `startedMs` (performance.now()). `onPoll` sees every answer.
 */
export async function waitForJobEnd(
  gw: GatewayChild,
  jobId: string,
  o: { startedMs: number; timeoutS: number; intervalMs: number; onPoll?: (job: PolledJob, now: number) => void },
): Promise<PolledJob> {
  for (;;) {
    const job = await gatewayApi<PolledJob>(gw, 'GET', `/v1/jobs/${jobId}`);
    const now = performance.now();
    o.onPoll?.(job, now);
    if (['succeeded', 'failed', 'cancelled'].includes(job.state)) return job;
    if ((now - o.startedMs) / 1000 > o.timeoutS) throw new Error(`the import job did not end within ${o.timeoutS} s (state ${job.state})`);
    await new Promise((r) => setTimeout(r, o.intervalMs));
  }
}
