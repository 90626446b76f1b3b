/**
 * The simulator's virtual devices behind the gateway's DeviceCatalog.
 *
 * Plugging a device in (Control API POST /control/devices, the simulator CLI
 * through it, or a test calling plug()) makes a real one where PulseAudio can
 * run: a null sink named after the device, and a pacat player feeding it the
 * device's timeline (its fixture script, rendered by simulator/synth, or
 * silence) in real time, so a recorder captures the sink's monitor exactly as
 * it would a microphone or a system-audio output. Where PulseAudio cannot run,
 * an in-process device delivers the same timeline by a timer instead.
 *
 * Unplugging stops the player and removes the sink; fail() makes a plugged
 * device break (its player and sink go, it stays listed as failed until it is
 * unplugged). Either way whoever records from it is told at once (onLost),
 * the way a recorder learns that a USB microphone went away.
 *
 * Every device is listed with simulated: true and backend "simulator", on
 * whichever transport it runs, after the real devices of the source the
 * composition root gives it (server/main.ts: ALSA's). The catalog implements
 * the gateway's device ports (common/devices.ts) and imports nothing of the
 * gateway. Decisions: docs/decisions/018-virtual-devices.md.
 */
import type {
  DeviceCatalog,
  DeviceInfo,
  DeviceType,
  RealDeviceSource,
  SimulatedDevice as AnySimulatedDevice,
  VirtualDeviceBackend,
} from '../../common/devices.ts';
import { findTool } from '../../common/tools.ts';
import { openInProcessStream, InProcessClock, type InProcessStream } from './in-process.ts';
import { PacatPlayer } from './pacat-player.ts';
import { PulseServer, PulseUnavailableError, type PulseServerOptions } from './pulse-server.ts';
import { loadScriptAudio } from './script-audio.ts';
import type { ResolvedScene } from '../scenes/scene.ts';
import { PlayTimeline } from './timeline.ts';

/** A simulated device with the simulator's own scene type. */
type SimulatedDevice = AnySimulatedDevice<ResolvedScene>;

export type DeviceTransport = 'pulse' | 'in-process';
export type VirtualBackend = 'auto' | 'pulse' | 'in-process';
export type VirtualDeviceState = 'preparing' | 'ready' | 'failed';

export interface VirtualDeviceCatalogOptions {
  /**
   * auto (default): PulseAudio where it runs, in-process otherwise; pulse:
   * PulseAudio or the device fails; in-process: never PulseAudio.
   * Default from MAS_VIRTUAL_DEVICES, else auto.
   */
  backend?: VirtualBackend;
  pulse?: PulseServerOptions;
  /** Real devices listed before the virtual ones (the gateway passes ALSA's); none when absent. */
  real?: RealDeviceSource;
  /** Synthesizer cache for rendering scripts. */
  cacheDir?: string;
  log?: (line: string) => void;
}

export interface VirtualDeviceView {
  name: string;
  device_type: DeviceType;
  script: string | null;
  simulated: true;
  transport: DeviceTransport | null;
  state: VirtualDeviceState;
  error: string | null;
  /** The PulseAudio sink standing for the device (its monitor is what a recorder reads), or null in-process. */
  sink: string | null;
  playback: { cued: boolean; played_seconds: number; script_seconds: number; finished: boolean };
}

/** One plugged-in virtual device. */
export class VirtualDevice {
  readonly name: string;
  readonly device_type: DeviceType;
  readonly script: string | null;
  /** The device as it was plugged in, for the catalog's listing. */
  readonly plugged: SimulatedDevice;
  /** The scene the script plays in; null: the script's own, else clean. */
  readonly scene: ResolvedScene | null;
  state: VirtualDeviceState = 'preparing';
  error: string | null = null;
  transport: DeviceTransport | null = null;
  sink: string | null = null;
  /** Environment for parec to reach the device's PulseAudio server. */
  pulseEnv: NodeJS.ProcessEnv | null = null;
  /** Settles when the device is ready or has failed (never rejects). */
  readonly ready: Promise<void>;
  gone = false;
  timeline: PlayTimeline = new PlayTimeline(new Int16Array(0));
  player: PacatPlayer | null = null;
  module: number | null = null;
  readonly clock = new InProcessClock();
  readonly #settle: () => void;

  constructor(d: SimulatedDevice) {
    this.name = d.name;
    this.device_type = d.device_type;
    this.script = d.script;
    this.scene = d.scene ?? null;
    this.plugged = { ...d };
    let settle = () => {};
    this.ready = new Promise<void>((resolve) => (settle = resolve));
    this.#settle = settle;
  }

  settle(): void {
    this.#settle();
  }

  /** The PulseAudio source a recorder reads: the sink's monitor. */
  get monitorSource(): string | null {
    return this.sink === null ? null : `${this.sink}.monitor`;
  }

  /** Stream position now. */
  get now(): number {
    return this.player !== null ? this.player.now : this.clock.now;
  }

  /** Starts the script from its beginning at the next sample the device plays. */
  cue(): void {
    this.timeline.cue(this.player !== null ? this.player.position : this.clock.now);
  }

  /** In-process transport: the timeline from now on, delivered by a timer. */
  openInProcess(onData: (samples: Int16Array) => void): InProcessStream {
    if (this.transport !== 'in-process') throw new Error(`the device "${this.name}" is not an in-process device`);
    return openInProcessStream(this.timeline, this.clock, onData);
  }

  view(): VirtualDeviceView {
    const p = this.timeline.progress(this.now);
    return {
      name: this.name,
      device_type: this.device_type,
      script: this.script,
      simulated: true,
      transport: this.transport,
      state: this.state,
      error: this.error,
      sink: this.sink,
      playback: {
        cued: p.cued,
        played_seconds: round3(p.played_seconds),
        script_seconds: round3(this.timeline.scriptSeconds),
        finished: p.finished,
      },
    };
  }
}

/** No real devices: what a catalog lists when the composition root gives it no source. */
const NO_REAL_DEVICES: RealDeviceSource = { list: () => [] };

export class VirtualDeviceCatalog implements DeviceCatalog<ResolvedScene>, VirtualDeviceBackend {
  readonly #o: VirtualDeviceCatalogOptions;
  readonly #real: RealDeviceSource;
  readonly #backend: VirtualBackend;
  readonly #devices = new Map<string, VirtualDevice>();
  readonly #lostListeners = new Set<(name: string, reason: string) => void>();
  #pulse: Promise<PulseServer> | null = null;
  #pulseServer: PulseServer | null = null;
  /** Why PulseAudio could not be used (auto mode then stays in-process). */
  #pulseFailure: string | null = null;
  #sinkCounter = 0;
  #disposed = false;
  readonly #stoppedPlayers: PacatPlayer[] = [];

  constructor(opts: VirtualDeviceCatalogOptions = {}) {
    this.#o = opts;
    this.#real = opts.real ?? NO_REAL_DEVICES;
    const fromEnv = process.env['MAS_VIRTUAL_DEVICES'];
    this.#backend = opts.backend ?? (fromEnv === 'pulse' || fromEnv === 'in-process' ? fromEnv : 'auto');
  }

  /** Which transport new devices get, and why PulseAudio is not used when it is not. */
  backendInfo(): { backend: VirtualBackend; pulse: 'unused' | 'private' | 'session' | 'unavailable'; reason: string | null } {
    const pulse =
      this.#pulseFailure !== null ? 'unavailable' : this.#pulseServer === null ? 'unused' : this.#pulseServer.owned ? 'private' : 'session';
    return { backend: this.#backend, pulse, reason: this.#pulseFailure };
  }

  list(): DeviceInfo[] {
    const simulated = [...this.#devices.values()].map((d) => ({
      name: d.name,
      device_type: d.device_type,
      simulated: true,
      backend: 'simulator',
    }));
    return [...this.#real.list(), ...simulated];
  }

  listSimulated(): SimulatedDevice[] {
    return [...this.#devices.values()].map((d) => ({ ...d.plugged }));
  }

  getSimulated(name: string): SimulatedDevice | null {
    const vd = this.#devices.get(name);
    return vd === undefined ? null : { ...vd.plugged };
  }

  /** Returns false when a simulated device of that name is already plugged in. */
  plug(device: SimulatedDevice): boolean {
    if (this.#disposed) throw new Error('the device catalog has been disposed');
    if (this.#devices.has(device.name)) return false;
    const vd = new VirtualDevice(device);
    this.#devices.set(vd.name, vd);
    void this.#prepare(vd).finally(() => vd.settle());
    return true;
  }

  unplug(name: string): boolean {
    const vd = this.#devices.get(name);
    if (vd === undefined) return false;
    this.#devices.delete(name);
    vd.gone = true;
    this.#notifyLost(name, `the device "${name}" was unplugged`);
    this.#teardown(vd);
    return true;
  }

  unplugAll(): void {
    for (const name of [...this.#devices.keys()]) this.unplug(name);
  }

  /** The gateway reaches the virtual devices through this (the VirtualDeviceBackend port of common/devices.ts). */
  virtualBackend(): VirtualDeviceBackend {
    return this;
  }

  /** Makes a plugged device fail: its player and sink go, recorders using it are told. false when no such device. */
  fail(name: string, message?: string): boolean {
    const vd = this.#devices.get(name);
    if (vd === undefined) return false;
    this.#lose(vd, message ?? `the device "${name}" failed`);
    return true;
  }

  /** The virtual device of that name, or null (also for a real device). */
  virtual(name: string): VirtualDevice | null {
    return this.#devices.get(name) ?? null;
  }

  /** Waits until the device is set up; throws its error when it failed or is gone. */
  async ready(name: string): Promise<VirtualDevice> {
    const vd = this.#devices.get(name);
    if (vd === undefined) throw new Error(`the device "${name}" is not plugged in`);
    await vd.ready;
    if (vd.gone) throw new Error(`the device "${name}" was unplugged`);
    if (vd.state === 'failed') throw new Error(vd.error ?? `the device "${name}" failed`);
    return vd;
  }

  views(): VirtualDeviceView[] {
    return [...this.#devices.values()].map((d) => d.view());
  }

  /** Called with the device name and a reason when a device is unplugged, fails, or its backend dies. */
  onLost(listener: (name: string, reason: string) => void): () => void {
    this.#lostListeners.add(listener);
    return () => this.#lostListeners.delete(listener);
  }

  /** Process ids of everything this catalog started that may still run (players, PulseAudio daemon). */
  processIds(): number[] {
    const players = [...this.#devices.values()].flatMap((d) => (d.player?.running === true && d.player.pid !== null ? [d.player.pid] : []));
    const stopped = this.#stoppedPlayers.flatMap((p) => (p.running && p.pid !== null ? [p.pid] : []));
    return [...players, ...stopped, ...(this.#pulseServer?.processIds() ?? [])];
  }

  /** Ends every player and the private PulseAudio daemon (by pid). Synchronous; the catalog cannot be used after. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const vd of this.#devices.values()) {
      vd.gone = true;
      this.#teardown(vd);
    }
    this.#devices.clear();
    this.#pulseServer?.stop();
    // A daemon still starting is stopped as soon as it is up.
    void this.#pulse?.then(
      (s) => s.stop(),
      () => undefined,
    );
  }

  /** Resolves when everything dispose() ended has exited. */
  async disposed(): Promise<void> {
    await Promise.all(this.#stoppedPlayers.map((p) => p.exited()));
    const server = this.#pulse === null ? null : await this.#pulse.catch(() => null);
    await server?.stopped();
  }

  async #prepare(vd: VirtualDevice): Promise<void> {
    try {
      if (vd.script !== null) {
        const audio = await loadScriptAudio(vd.script, {
          ...(this.#o.cacheDir !== undefined ? { cacheDir: this.#o.cacheDir } : {}),
          ...(vd.scene !== null ? { scene: vd.scene } : {}),
        });
        vd.timeline = new PlayTimeline(audio.samples);
      }
    } catch (err) {
      this.#lose(vd, `the simulated device "${vd.name}" cannot play the script "${vd.script}": ${message(err)}`);
      return;
    }

    if (vd.gone) return;

    let server: PulseServer | null = null;
    if (this.#backend !== 'in-process' && !(this.#backend === 'auto' && this.#pulseFailure !== null)) {
      try {
        server = await this.#server();
      } catch (err) {
        if (this.#backend === 'pulse') {
          this.#lose(vd, `PulseAudio is not available for the simulated device "${vd.name}": ${message(err)}`);
          return;
        }
        this.#pulseFailure = message(err);
        this.#o.log?.(`[devices] PulseAudio is not available (${this.#pulseFailure}); simulated devices run in-process`);
      }
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the device may have been unplugged during the awaits above
    if (vd.gone) return;

    if (server === null) {
      vd.transport = 'in-process';
      vd.state = 'ready';
      return;
    }

    const sink = `mas_sim_${++this.#sinkCounter}_${slug(vd.name)}`;
    try {
      const module = await server.loadNullSink(sink, `Simulated ${vd.device_type === 'input' ? 'microphone' : 'output'}: ${vd.name}`);
      if (abandoned(vd)) {
        void server.unloadModule(module);
        return;
      }
      vd.module = module;
    } catch (err) {
      this.#lose(vd, `the sink of the simulated device "${vd.name}" could not be created: ${message(err)}`);
      return;
    }
    vd.transport = 'pulse';
    vd.sink = sink;
    vd.pulseEnv = server.clientEnv;
    vd.player = new PacatPlayer({
      pacat: server.tools.pacat,
      env: server.clientEnv,
      sink,
      timeline: vd.timeline,
      clientName: `mas-device-${slug(vd.name)}`,
      onExit: (reason) => this.#lose(vd, `the simulated device "${vd.name}" stopped playing: ${reason}`),
    });
    try {
      // A null sink renders its first block about 2 s after it starts
      // playing; anything paced by wall time before that would queue up as
      // latency for good. So: the player's stream connects with its lead of
      // silence, the sink is woken (its monitor delivers), and only then does
      // real-time playing begin, with nothing queued.
      await server.waitForSinkInput(sink);
      const parec = findTool('parec', server.clientEnv);
      if (parec !== null) await server.waitForMonitorData(`${sink}.monitor`, parec);
    } catch (err) {
      this.#lose(vd, `the simulated device "${vd.name}" could not start playing: ${message(err)}`);
      return;
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the player may have gone during the awaits above
    if (abandoned(vd) || vd.player === null) return;
    vd.player.begin();
    vd.state = 'ready';
  }

  #server(): Promise<PulseServer> {
    if (this.#pulse === null) {
      const starting = PulseServer.start({ ...this.#o.pulse });
      this.#pulse = starting;
      starting.then(
        (server) => {
          if (this.#disposed) {
            server.stop();
            return;
          }
          this.#pulseServer = server;
          server.onExit((reason) => {
            // Every device on it is lost; the next plug starts a new server.
            this.#pulse = null;
            this.#pulseServer = null;
            for (const vd of [...this.#devices.values()])
              if (vd.transport === 'pulse') this.#lose(vd, `the simulated device "${vd.name}" is gone: ${reason}`);
          });
        },
        () => {
          this.#pulse = null;
        },
      );
    }
    return this.#pulse.catch((err: unknown) => {
      throw err instanceof PulseUnavailableError ? err : new PulseUnavailableError(message(err), { cause: err });
    });
  }

  /** A device breaks: marked failed, recorders told, player and sink removed. */
  #lose(vd: VirtualDevice, reason: string): void {
    if (vd.gone || vd.state === 'failed') return;
    vd.state = 'failed';
    vd.error = reason;
    this.#notifyLost(vd.name, reason);
    this.#teardown(vd);
  }

  #teardown(vd: VirtualDevice): void {
    if (vd.player !== null) {
      vd.player.stop();
      this.#stoppedPlayers.push(vd.player);
      vd.player = null;
    }
    if (vd.module !== null && this.#pulseServer !== null) void this.#pulseServer.unloadModule(vd.module);
    vd.module = null;
    // Players that have exited need no tracking.
    for (let i = this.#stoppedPlayers.length - 1; i >= 0; i--) if (!this.#stoppedPlayers[i]!.running) this.#stoppedPlayers.splice(i, 1);
  }

  #notifyLost(name: string, reason: string): void {
    for (const listener of [...this.#lostListeners]) {
      try {
        listener(name, reason);
      } catch (err) {
        this.#o.log?.(`[devices] a listener failed: ${message(err)}`);
      }
    }
  }
}

/** Unplugged or failed while being set up (a function, so no narrowing survives the awaits). */
function abandoned(vd: VirtualDevice): boolean {
  return vd.gone || vd.state === 'failed';
}

/** A sink-name-safe form of a device name. */
function slug(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40)
    .toLowerCase();
  return s === '' ? 'device' : s;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
