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
import type { ResolvedScene } from '../../simulator/scenes/scene.ts';
import { readFileSync } from 'node:fs';

export type DeviceType = 'input' | 'output';

export interface DeviceInfo {
  name: string;
  device_type: DeviceType;
  simulated: boolean;
  backend: string;
}

export interface SimulatedDevice {
  name: string;
  device_type: DeviceType;
  /** Name of a fixture meeting script the device plays, or null for silence. */
  script: string | null;
  /** The acoustic scene the script is played in (simulator/scenes/scene.ts); absent or null: the script's own, else clean. */
  scene?: ResolvedScene | null;
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

export const alsaDevices: RealDeviceSource = {
  list() {
    try {
      return parseAsoundPcm(readFileSync('/proc/asound/pcm', 'utf8'));
    } catch {
      return []; // no ALSA on this machine (or no /proc): no real devices
    }
  },
};

export class DeviceCatalog {
  readonly #real: RealDeviceSource;
  readonly #simulated = new Map<string, SimulatedDevice>();

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

  listSimulated(): SimulatedDevice[] {
    return [...this.#simulated.values()].map((d) => ({ ...d }));
  }

  getSimulated(name: string): SimulatedDevice | null {
    const d = this.#simulated.get(name);
    return d === undefined ? null : { ...d };
  }

  /** Returns false when a simulated device of that name is already plugged in. */
  plug(device: SimulatedDevice): boolean {
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
