/**
 * Where `mas` finds its target and token: the command line first, then the
 * environment (MAS_TOKEN, MAS_BASE_URL), then the user's config file
 * ($XDG_CONFIG_HOME/mas/config.json, ~/.config/mas/config.json without it):
 *
 *   {"token": "mas_…", "base_url": "https://studio-mac:8421", "ca": "/path/to/lan-cert.pem"}
 *
 * The file is optional; a malformed one is a usage error that names it.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const DEFAULT_BASE_URL = 'http://127.0.0.1:8420';

export interface ConfigFile {
  token?: string;
  base_url?: string;
  ca?: string;
  insecure?: boolean;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env['XDG_CONFIG_HOME'] !== undefined && env['XDG_CONFIG_HOME'] !== '' ? env['XDG_CONFIG_HOME'] : path.join(os.homedir(), '.config');
  return path.join(base, 'mas', 'config.json');
}

function readConfigFile(file: string): ConfigFile {
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`${file} must hold a JSON object like {"token": "mas_…"}`);
  const c = parsed as Record<string, unknown>;
  for (const key of ['token', 'base_url', 'ca'] as const) {
    if (c[key] !== undefined && typeof c[key] !== 'string') throw new UsageError(`${file}: ${key} must be a string`);
  }
  if (c['insecure'] !== undefined && typeof c['insecure'] !== 'boolean') throw new UsageError(`${file}: insecure must be true or false`);
  return c;
}

export interface Target {
  baseUrl: string;
  token: string | undefined;
  /** Where the token came from, for the hint after a 401. */
  tokenSource: 'option' | 'environment' | 'config file' | 'none';
  ca: Buffer | undefined;
  insecure: boolean;
  configFile: string;
}

export function resolveTarget(
  flags: { baseUrl?: string; token?: string; ca?: string; insecure?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Target {
  const configFile = configFilePath(env);
  const file = readConfigFile(configFile);
  const nonEmpty = (v: string | undefined) => (v !== undefined && v !== '' ? v : undefined);
  const token = nonEmpty(flags.token) ?? nonEmpty(env['MAS_TOKEN']) ?? nonEmpty(file.token);
  const tokenSource =
    nonEmpty(flags.token) !== undefined
      ? 'option'
      : nonEmpty(env['MAS_TOKEN']) !== undefined
        ? 'environment'
        : nonEmpty(file.token) !== undefined
          ? 'config file'
          : 'none';
  const baseUrl = nonEmpty(flags.baseUrl) ?? nonEmpty(env['MAS_BASE_URL']) ?? nonEmpty(file.base_url) ?? DEFAULT_BASE_URL;
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UsageError(`--base-url must be an http:// or https:// URL, got "${baseUrl}"`);
  }
  const caPath = nonEmpty(flags.ca) ?? nonEmpty(file.ca);
  let ca: Buffer | undefined;
  if (caPath !== undefined) {
    try {
      ca = readFileSync(caPath);
    } catch (err) {
      throw new UsageError(`cannot read the CA certificate ${caPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return { baseUrl, token, tokenSource, ca, insecure: flags.insecure === true || file.insecure === true, configFile };
}
