/**
 * Audio devices: the real ones this machine has, plus simulated devices
 * plugged in through the Control API, listed only (no audio behind them).
 * The simulator's virtual devices (simulator/devices/catalog.ts) implement the
 * same port (common/devices.ts) with audio behind every simulated device;
 * server/main.ts plugs them in.
 *
 * Real devices are read from ALSA's /proc/asound/pcm (each PCM line says
 * whether it can play back, capture, or both). A machine without sound
 * hardware simply has none. Simulated devices are always reported with
 * simulated: true and backend "simulator", so nobody mistakes them for
 * hardware.
 */
import { readFileSync } from 'node:fs';
import type { DeviceCatalog, DeviceInfo, RealDeviceSource, SimulatedDevice, VirtualDeviceBackend } from '../../common/devices.ts';

// The gateway's files name the device ports through this adapter, beside its implementation.
export type { DeviceCatalog, DeviceInfo, DeviceType, VirtualDeviceBackend } from '../../common/devices.ts';

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

/** The machine's real devices, as ALSA lists them. */
export const alsaDevices: RealDeviceSource = {
  list() {
    try {
      return parseAsoundPcm(readFileSync('/proc/asound/pcm', 'utf8'));
    } catch {
      return []; // no ALSA on this machine (or no /proc): no real devices
    }
  },
};

/**
 * The gateway's own catalog when no simulator is plugged in: the real devices,
 * and simulated devices listed only (a recorder finds no audio behind them).
 */
export class RealDeviceCatalog implements DeviceCatalog {
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

  /** No virtual devices stand behind the simulated ones here. */
  virtualBackend(): VirtualDeviceBackend | null {
    return null;
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
