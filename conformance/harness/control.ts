/**
 * The Control API driver (CONTROL.md): the application-side actions a
 * black-box client cannot reach (settings, tokens, fixtures, reset, restart).
 * Capabilities are read once from GET /control; using one the target does not
 * list makes the check SKIPPED with the capability named.
 */
import type { ControlCapability } from './check-types.ts';
import type { JobKind } from '../spec/constants.ts';
import type { HttpClient, HttpResult, RequestOptions } from './http.ts';
import { ControlError, SkipSignal } from './signals.ts';

export interface ControlSettings {
  automation_api_enabled: boolean;
  license: 'pro' | 'none' | 'unverifiable';
  webhooks_enabled: boolean;
  lan_enabled: boolean;
  remote_recording_prearmed: boolean;
  local_webhook_targets: string[];
}

export type TokenOrigin = 'loopback' | 'paired' | 'lan';
export type TokenKind = 'standard' | 'first_party' | 'assistant';

export interface MintSpec {
  scopes: readonly string[];
  origin?: TokenOrigin;
  kind?: TokenKind;
  name?: string;
}

export interface MintedToken {
  token: string;
  token_id: string;
  scopes: string[];
}

export interface SeedSegment {
  speaker: string;
  start: number;
  end: number;
  text: string;
  words?: Array<{ text: string; start: number; end: number }>;
}

export interface SeedMeeting {
  title: string;
  created_at?: string;
  segments: SeedSegment[];
  summary?: { text: string } | null;
  audio?: boolean;
}

export interface SeedJob {
  kind: JobKind;
  meeting_id?: string | null;
  state: string;
  is_retryable?: boolean;
  source_gone?: boolean;
  error?: string | null;
  hold?: boolean;
}

export interface Discovery {
  version: number;
  capabilities: string[];
}

export class ControlDriver {
  readonly client: HttpClient;
  readonly #secret: string;
  readonly capabilities: ReadonlySet<string>;
  readonly version: number;
  /** Called after reset and restart: resolves when the API answers again. */
  readonly #ready: () => Promise<void>;
  /** Devices plugged through this driver and not unplugged since (unplugLeftovers). */
  readonly #plugged = new Set<string>();

  constructor(client: HttpClient, secret: string, discovery: Discovery, ready: () => Promise<void>) {
    this.client = client;
    this.#secret = secret;
    this.capabilities = new Set(discovery.capabilities);
    this.version = discovery.version;
    this.#ready = ready;
  }

  /** The same driver over another client (a check of a concurrent run records its own Control API exchanges). */
  withClient(client: HttpClient): ControlDriver {
    return new ControlDriver(client, this.#secret, { version: this.version, capabilities: [...this.capabilities] }, this.#ready);
  }

  /** GET /control. Throws ControlError with the answer when it is not CONTROL.md's. */
  static async discover(client: HttpClient, secret: string): Promise<Discovery> {
    const res = await client.get('/control', { token: secret, label: 'control: discovery' });
    if (res.status !== 200) throw new ControlError(`GET /control answered ${res.describe()}`, res.exchange.curl);
    const body = res.body as Partial<Discovery> | undefined;
    if (body === undefined || !Array.isArray(body.capabilities)) {
      throw new ControlError(`GET /control: expected {"version", "capabilities": [...]}, got ${res.describe()}`, res.exchange.curl);
    }
    return {
      version: typeof body.version === 'number' ? body.version : 0,
      capabilities: body.capabilities.filter((c): c is string => typeof c === 'string'),
    };
  }

  has(capability: ControlCapability): boolean {
    return this.capabilities.has(capability);
  }

  #need(capability: ControlCapability): void {
    if (!this.has(capability)) {
      throw new SkipSignal(
        `needs the Control API capability '${capability}' (the target offers: ${[...this.capabilities].join(', ') || 'none'})`,
      );
    }
  }

  async #call(method: string, path: string, expected: number[], options: RequestOptions = {}): Promise<HttpResult> {
    const res = await this.client.request(method, path, {
      ...options,
      token: this.#secret,
      label: options.label ?? `control: ${method} ${path}`,
    });
    if (!expected.includes(res.status)) {
      throw new ControlError(
        `Control API ${method} ${path} answered ${res.describe()}; CONTROL.md says ${expected.join(' or ')}`,
        res.exchange.curl,
      );
    }
    return res;
  }

  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the shape the Control API documents
  #object<T>(res: HttpResult, what: string): T {
    const body = res.body;
    if (body === null || typeof body !== 'object')
      throw new ControlError(`Control API ${what}: expected a JSON object, got ${res.describe()}`, res.exchange.curl);
    return body as T;
  }

  async reset(): Promise<void> {
    this.#need('reset');
    await this.#call('POST', '/control/reset', [204, 200]);
    await this.#ready();
  }

  async restart(): Promise<void> {
    this.#need('restart');
    await this.#call('POST', '/control/restart', [204, 200]);
    await this.#ready();
  }

  async settings(): Promise<ControlSettings> {
    this.#need('settings');
    return this.#object<ControlSettings>(await this.#call('GET', '/control/settings', [200]), 'GET /control/settings');
  }

  async patchSettings(patch: Partial<ControlSettings>): Promise<ControlSettings> {
    this.#need('settings');
    return this.#object<ControlSettings>(await this.#call('PATCH', '/control/settings', [200], { json: patch }), 'PATCH /control/settings');
  }

  async mintToken(spec: MintSpec): Promise<MintedToken> {
    this.#need('tokens');
    const body: Record<string, unknown> = { scopes: spec.scopes };
    if (spec.origin !== undefined) body.origin = spec.origin;
    if (spec.kind !== undefined) body.kind = spec.kind;
    body.name = spec.name ?? 'conformance';
    const res = await this.#call('POST', '/control/tokens', [201, 200], { json: body });
    const t = this.#object<Partial<MintedToken>>(res, 'POST /control/tokens');
    if (typeof t.token !== 'string' || typeof t.token_id !== 'string') {
      throw new ControlError(`POST /control/tokens: expected {token, token_id, scopes}, got ${res.describe()}`, res.exchange.curl);
    }
    return { token: t.token, token_id: t.token_id, scopes: Array.isArray(t.scopes) ? t.scopes.map(String) : [] };
  }

  async setTokenEnabled(tokenId: string, enabled: boolean): Promise<void> {
    this.#need('tokens');
    await this.#call('PATCH', `/control/tokens/${encodeURIComponent(tokenId)}`, [200, 204], { json: { enabled } });
  }

  async deleteToken(tokenId: string): Promise<void> {
    this.#need('tokens');
    await this.#call('DELETE', `/control/tokens/${encodeURIComponent(tokenId)}`, [204, 200]);
  }

  async seedMeeting(meeting: SeedMeeting): Promise<string> {
    this.#need('meetings');
    const res = await this.#call('POST', '/control/meetings', [201, 200], { json: meeting });
    const id = this.#object<{ id?: unknown }>(res, 'POST /control/meetings').id;
    if (typeof id !== 'string' || id.length === 0)
      throw new ControlError(`POST /control/meetings: expected {"id"}, got ${res.describe()}`, res.exchange.curl);
    return id;
  }

  async createJob(job: SeedJob): Promise<string> {
    this.#need('jobs');
    const res = await this.#call('POST', '/control/jobs', [201, 200], { json: job });
    const id = this.#object<{ id?: unknown }>(res, 'POST /control/jobs').id;
    if (typeof id !== 'string' || id.length === 0)
      throw new ControlError(`POST /control/jobs: expected {"id"}, got ${res.describe()}`, res.exchange.curl);
    return id;
  }

  async finishJob(jobId: string, outcome: 'succeeded' | 'failed', error?: string): Promise<void> {
    this.#need('jobs');
    await this.#call('POST', `/control/jobs/${encodeURIComponent(jobId)}/finish`, [200, 204], {
      json: { outcome, ...(error === undefined ? {} : { error }) },
    });
  }

  async pairings(): Promise<Array<{ id: string; client_name: string; scopes: string[]; state: string }>> {
    this.#need('pairings');
    const res = await this.#call('GET', '/control/pairings', [200]);
    const list = this.#object<{ pairings?: unknown }>(res, 'GET /control/pairings').pairings;
    if (!Array.isArray(list))
      throw new ControlError(`GET /control/pairings: expected {"pairings": [...]}, got ${res.describe()}`, res.exchange.curl);
    return list as Array<{ id: string; client_name: string; scopes: string[]; state: string }>;
  }

  async approvePairing(id: string, scopes?: string[]): Promise<void> {
    this.#need('pairings');
    await this.#call(
      'POST',
      `/control/pairings/${encodeURIComponent(id)}/approve`,
      [200, 204],
      scopes === undefined ? {} : { json: { scopes } },
    );
  }

  async rejectPairing(id: string): Promise<void> {
    this.#need('pairings');
    await this.#call('POST', `/control/pairings/${encodeURIComponent(id)}/reject`, [200, 204]);
  }

  /** Approval of a webhook destination; returns the answer (409 is a legal one: out of denied). */
  async setWebhookApproval(id: string, state: 'allowed' | 'denied', expected: number[] = [200, 204]): Promise<HttpResult> {
    this.#need('webhook-approval');
    return this.#call('POST', `/control/webhooks/${encodeURIComponent(id)}/approval`, expected, { json: { state } });
  }

  async devices(): Promise<Array<{ name: string; device_type: string; simulated?: boolean; script?: string | null }>> {
    this.#need('devices');
    const res = await this.#call('GET', '/control/devices', [200]);
    const list = this.#object<{ devices?: unknown }>(res, 'GET /control/devices').devices;
    if (!Array.isArray(list))
      throw new ControlError(`GET /control/devices: expected {"devices": [...]}, got ${res.describe()}`, res.exchange.curl);
    return list as Array<{ name: string; device_type: string }>;
  }

  async plugDevice(device: { name: string; device_type: 'input' | 'output'; script?: string | null }): Promise<void> {
    this.#need('devices');
    await this.#call('POST', '/control/devices', [201, 200], { json: device });
    this.#plugged.add(device.name);
  }

  async unplugDevice(name: string): Promise<void> {
    this.#need('devices');
    await this.#call('DELETE', `/control/devices/${encodeURIComponent(name)}`, [204, 200]);
    this.#plugged.delete(name);
  }

  /**
   * Unplugs what this driver plugged and did not unplug. A check run beside
   * others gets no reset after it (runner/run.ts), so without this the next
   * recorder check plugging the same name would meet 409.
   */
  async unplugLeftovers(): Promise<void> {
    for (const name of [...this.#plugged]) await this.unplugDevice(name);
  }

  async recordingFault(error: string): Promise<void> {
    this.#need('recording-fault');
    await this.#call('POST', '/control/recording/fault', [200, 204], { json: { error } });
  }
}
