/**
 * Shared setup of the recording tests: the Automation API and the Control
 * API over real sockets (SSE needs one), a VirtualDeviceCatalog on the real
 * PulseAudio path (a private daemon) unless told otherwise, and a close()
 * that ends everything and checks, by pid, that nothing is left running.
 *
 * Imported by *.test.ts files only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../app.ts';
import { createControlApp } from '../control/app.ts';
import { createDeps, type AppDeps } from '../deps.ts';
import type { PipelineParts } from '../real-pipeline.ts';
import { openDatabase } from '../kernel/store/database.ts';
import { RESET_SETTINGS } from '../kernel/store/settings-repo.ts';
import type { TokenOrigin } from '../kernel/store/tokens-repo.ts';
import { VirtualDeviceCatalog, type VirtualBackend } from '../../simulator/devices/catalog.ts';
import type { CaptureOptions } from '../features/recording/capture.ts';
import { PulseServer } from '../../simulator/devices/pulse-server.ts';
import { MeetingApps } from '../control/meeting-apps.ts';

export const CONTROL_SECRET = 'recording-tests-control-secret-0123456789';

export interface RecordingHarness {
  deps: AppDeps;
  devices: VirtualDeviceCatalog;
  dataDir: string;
  /** Base URL of the Automation API. */
  api: string;
  /** Base URL of the Control API. */
  control: string;
  /** Unexpected failures the app reported. */
  errors: unknown[];
  /** Authorization header value for a new token. */
  auth(scopes: readonly string[], origin?: TokenOrigin): string;
  /** JSON call to the Automation API. */
  call(method: string, path: string, auth: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** JSON call to the Control API. */
  ctl(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Every process started so far that may still run (devices, capture). */
  pids(): number[];
  /** The simulated meeting apps started through the Control API. */
  meetingApps: MeetingApps;
  close(): Promise<void>;
}

export interface HarnessOptions {
  backend?: VirtualBackend;
  pipeline?: Partial<PipelineParts>;
  capture?: CaptureOptions;
  /** Default: the system's pocketsphinx models (the real recognizer). */
  pocketsphinxRoots?: readonly string[];
  /**
   * The meeting detector follows the devices' PulseAudio server (a private
   * daemon the harness starts first and the devices then share), with this
   * grace period. Absent: the detector is left to the gateway's environment.
   */
  detection?: { graceMs: number };
}

export async function recordingHarness(opts: HarnessOptions = {}): Promise<RecordingHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-recording-test-'));
  const db = openDatabase(':memory:');
  const pulse = opts.detection !== undefined ? await PulseServer.start({ mode: 'private' }) : null;
  const devices = new VirtualDeviceCatalog({
    backend: opts.backend ?? 'pulse',
    pulse: pulse === null ? { mode: 'private' } : { mode: 'auto', env: pulse.clientEnv },
  });
  const meetingApps = new MeetingApps();
  const errors: unknown[] = [];
  const deps = createDeps({
    db,
    dataDir,
    devices,
    validateResponses: true,
    logError: (err) => errors.push(err),
    ...(opts.pocketsphinxRoots !== undefined ? { pocketsphinxRoots: opts.pocketsphinxRoots } : {}),
    ...(opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {}),
    ...(opts.capture !== undefined ? { recordingCapture: opts.capture } : {}),
    ...(pulse !== null && opts.detection !== undefined ? { detection: { env: pulse.clientEnv, graceMs: opts.detection.graceMs } } : {}),
  });
  deps.settings.update(RESET_SETTINGS);
  const app = createApp(deps);
  deps.start();
  const controlApp = createControlApp({
    secret: CONTROL_SECRET,
    deps: () => deps,
    restart: () => undefined,
    logError: (err) => errors.push(err),
    meetingApps,
  });
  const apiServer = await listen(createServer(app));
  const controlServer = await listen(createServer(controlApp));
  const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  const seen = new Set<number>();
  const pids = () => {
    for (const p of [
      ...devices.processIds(),
      ...deps.recording.processIds(),
      ...deps.detection.processIds(),
      ...meetingApps.processIds(),
      ...(pulse?.processIds() ?? []),
    ])
      seen.add(p);
    return [...seen];
  };
  const json = async (base: string, method: string, path: string, auth: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: auth, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    pids();
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  return {
    deps,
    devices,
    dataDir,
    api: url(apiServer),
    control: url(controlServer),
    errors,
    auth: (scopes, origin = 'loopback') =>
      `Bearer ${deps.tokens.create({ name: 'test', scopes, origin, kind: 'standard' }, new Date()).token}`,
    call: (method, path, auth, body) => json(url(apiServer), method, path, auth, body),
    ctl: (method, path, body) => json(url(controlServer), method, path, `Bearer ${CONTROL_SECRET}`, body),
    pids,
    meetingApps,
    async close() {
      const started = pids();
      meetingApps.stopAll();
      for (const s of [apiServer, controlServer]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
      deps.shutdown();
      devices.dispose();
      await devices.disposed();
      pulse?.stop();
      await pulse?.stopped();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
      await assertGone(started);
    },
  };
}

function listen(server: Server): Promise<Server> {
  // Client and server share this process: while the pipeline holds the event
  // loop, a kept-alive socket can pass Node's 5 s keep-alive timeout and be
  // closed just as the next poll reuses it (ECONNRESET). Keep sockets longer
  // than any stage holds the loop; the real gateway's limits are tested elsewhere.
  server.keepAliveTimeout = 120_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits up to 5 s for every pid to exit, then asserts none is left. */
export async function assertGone(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 5000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(pids.filter(alive), [], 'every process the recording tests started has exited');
}

/** Polls until `check` returns a value other than undefined, or fails after `ms`. */
export async function eventually<T>(what: string, ms: number, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
