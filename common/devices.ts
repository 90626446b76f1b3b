/**
 * The device ports: what the gateway needs from a catalog of audio devices,
 * and from the virtual devices behind the simulated ones. The gateway depends
 * on these interfaces only; its own catalog of the machine's real devices
 * (server/adapters/devices.ts) and the simulator's virtual devices
 * (simulator/devices/catalog.ts) implement them, and the composition root
 * (server/main.ts, or a test's setup) chooses which one the gateway gets.
 */

export type DeviceType = 'input' | 'output';

/** One device as GET /devices lists it. */
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

/** Where the machine's real devices come from (ALSA on Linux). */
export interface RealDeviceSource {
  list(): DeviceInfo[];
}

/** One virtual device as the recorder and the Control API reach it. */
interface VirtualDeviceHandle {
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
 * root plugs it in. The gateway itself never imports simulator/.
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

/**
 * The catalog the gateway lists devices from (GET /devices) and the Control
 * API plugs simulated devices into (POST/DELETE /control/devices).
 */
export interface DeviceCatalog<Scene = unknown> {
  /** The real devices, then the simulated ones (simulated: true, backend "simulator"). */
  list(): DeviceInfo[];
  listSimulated(): SimulatedDevice<Scene>[];
  getSimulated(name: string): SimulatedDevice<Scene> | null;
  /** Returns false when a simulated device of that name is already plugged in. */
  plug(device: SimulatedDevice<Scene>): boolean;
  /** Returns false when no simulated device of that name is plugged in. */
  unplug(name: string): boolean;
  unplugAll(): void;
  /** The virtual devices behind the simulated ones, or null when the catalog only lists them. */
  virtualBackend(): VirtualDeviceBackend | null;
}
