/**
 * Audio devices: the real ones this machine has, plus the simulator's virtual
 * devices plugged in through the Control API.
 *
 * Real devices are read from ALSA's /proc/asound/pcm (each PCM line says
 * whether it can play back, capture, or both). A machine without sound
 * hardware simply has none. Simulated devices are always reported with
 * simulated: true and backend "simulator", so nobody mistakes them for
 * hardware.
 */
import { readFileSync } from 'node:fs';

export type DeviceType = 'input' | 'output';

export interface DeviceInfo {
  name: string;
  device_type: DeviceType;
  simulated: boolean;
  backend: string;
}

/**
 * A simulated device as plugged in. Scene is what the device backend places
 * the script in (the simulator's ResolvedScene); the gateway only carries it.
 */
export interface SimulatedDevice<Scene = unknown> {
  name: string;
  device_type: DeviceType;
  /** Name of a fixture meeting script the device plays, or null for silence. */
  script: string | null;
  /** The acoustic scene the script is played in; absent or null: the script's own, else clean. */
  scene?: Scene | null;
}

export interface RealDeviceSource {
  list(): DeviceInfo[];
}

/** Parses /proc/asound/pcm lines such as "00-00: ALC3246 Analog : ALC3246 Analog : playback 1 : capture 1". */
export function parseAsoundPcm(text: string): DeviceInfo[] {
  const devices: DeviceInfo[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' : ').map((f) => f.trim());
    const head = fields[0] ?? '';
    const match = /^(\d+)-(\d+):\s*(.*)$/.exec(head);
    if (match === null) continue;
    const label = (match[3] ?? '').trim() || `card ${match[1]} device ${match[2]}`;
    const name = `${label} (hw:${Number(match[1])},${Number(match[2])})`;
    if (fields.some((f) => f.startsWith('playback'))) devices.push({ name, device_type: 'output', simulated: false, backend: 'alsa' });
    if (fields.some((f) => f.startsWith('capture'))) devices.push({ name, device_type: 'input', simulated: false, backend: 'alsa' });
  }
  return devices;
}

const alsaDevices: RealDeviceSource = {
  list() {
    try {
      return parseAsoundPcm(readFileSync('/proc/asound/pcm', 'utf8'));
    } catch {
      return []; // no ALSA on this machine (or no /proc): no real devices
    }
  },
};

/** One virtual device as the recorder and the Control API reach it. */
export interface VirtualDeviceHandle {
  /** How its audio reaches a recorder; null while it is being set up or after it failed. */
  readonly transport: 'pulse' | 'in-process' | null;
  /** The PulseAudio source a recorder reads (transport pulse), else null. */
  readonly monitorSource: string | null;
  /** Environment for parec to reach the device's PulseAudio server, else null. */
  readonly pulseEnv: NodeJS.ProcessEnv | null;
  /** Starts the device's script from its beginning at the next sample it plays. */
  cue(): void;
  /** Transport in-process: the device's audio from now on, delivered by a timer. */
  openInProcess(onData: (samples: Int16Array) => void): { close(): void };
  /** What GET /control/devices/{name} shows. */
  view(): object;
}

/**
 * The device backend the gateway depends on for virtual devices: the
 * simulator implements it (simulator/devices/catalog.ts) and the composition
 * root (server/main.ts, or a test's setup) plugs it in. The gateway itself
 * never imports simulator/.
 */
export interface VirtualDeviceBackend {
  virtual(name: string): VirtualDeviceHandle | null;
  /** Resolves once the device is ready or has failed. */
  ready(name: string): Promise<VirtualDeviceHandle>;
  /** Makes a plugged-in device fail; false when there is no such device. */
  fail(name: string, message?: string): boolean;
  /** Calls back when a device is lost while in use; returns the unsubscribe. */
  onLost(listener: (name: string, reason: string) => void): () => void;
  /** Ends every player, sink and server the devices hold. */
  dispose(): void;
  disposed(): Promise<void>;
}

export class DeviceCatalog<Scene = unknown> {
  readonly #real: RealDeviceSource;
  readonly #simulated = new Map<string, SimulatedDevice<Scene>>();

  constructor(real: RealDeviceSource = alsaDevices) {
    this.#real = real;
  }

  list(): DeviceInfo[] {
    const simulated = [...this.#simulated.values()].map((d) => ({
      name: d.name,
      device_type: d.device_type,
      simulated: true,
      backend: 'simulator',
    }));
    return [...this.#real.list(), ...simulated];
  }

  /** The virtual devices behind the simulated ones, when a device backend is plugged in; none here. */
  virtualBackend(): VirtualDeviceBackend | null {
    return null;
  }

  listSimulated(): SimulatedDevice<Scene>[] {
    return [...this.#simulated.values()].map((d) => ({ ...d }));
  }

  getSimulated(name: string): SimulatedDevice<Scene> | null {
    const d = this.#simulated.get(name);
    return d === undefined ? null : { ...d };
  }

  /** Returns false when a simulated device of that name is already plugged in. */
  plug(device: SimulatedDevice<Scene>): boolean {
    if (this.#simulated.has(device.name)) return false;
    this.#simulated.set(device.name, { ...device });
    return true;
  }

  unplug(name: string): boolean {
    return this.#simulated.delete(name);
  }

  unplugAll(): void {
    this.#simulated.clear();
  }
}
