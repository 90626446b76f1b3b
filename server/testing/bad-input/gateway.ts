/** The gateway the bad-input test fuzzes (server/bad-input.test.ts): the replay parameters, the gateway with its seeded meetings and tokens, and snapshots of everything stored. */
import { after, before } from 'node:test';
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type fc from 'fast-check';
import { handleClientError } from '../../kernel/http/client-error.ts';
import { SCOPES } from '../../kernel/scopes.ts';
import type { MeetingSeed } from '../../features/meetings/service.ts';
import { testGateway, type TestGateway } from '../gateway.ts';

// ── Replay parameters ──────────────────────────────────────────────────────

const SEED = intFromEnv('MAS_FUZZ_SEED', 20261122);
export const RUNS = intFromEnv('MAS_FUZZ_RUNS', 1500);
const REPLAY_PATH = process.env['MAS_FUZZ_PATH'];
export const REQUEST_TIMEOUT_MS = 20_000;

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${raw}`);
  return n;
}

console.log(
  `bad-input fuzz: MAS_FUZZ_SEED=${SEED} MAS_FUZZ_RUNS=${RUNS}${REPLAY_PATH === undefined ? '' : ` MAS_FUZZ_PATH=${REPLAY_PATH}`}`,
);

export function fcParams(runs: number, salt: number): fc.Parameters<unknown> {
  // Each property gets its own seed derived from the one printed, so one
  // MAS_FUZZ_SEED replays all of them.
  return {
    seed: SEED + salt,
    numRuns: runs,
    ...(REPLAY_PATH === undefined ? {} : { path: REPLAY_PATH }),
  };
}

// ── The gateway under test ─────────────────────────────────────────────────

export let gw: TestGateway;
let server: http.Server;
export let port = 0;
export const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** Seeded meetings live in slots; a slot whose meeting was deleted is refilled. */
export const SEEDS: MeetingSeed[] = [
  {
    title: 'Weekly planning',
    created_at: '2026-01-05T09:00:00Z',
    source: 'recording',
    language: 'en',
    segments: [
      {
        speaker: 'S1',
        start: 0,
        end: 4.5,
        text: 'Good morning, let us look at the budget.',
        words: [
          { text: 'Good', start: 0, end: 0.4, confidence: 0.98 },
          { text: 'morning', start: 0.4, end: 0.9 },
        ],
      },
      { speaker: 'S2', start: 4.5, end: 9, text: 'The release plan slipped by a week.' },
      { speaker: 'S1', start: 9, end: 12, text: 'Then we move the demo.' },
    ],
    summary: { text: 'Budget reviewed; release moved by a week.' },
    audio: true,
  },
  {
    title: 'Empty call',
    created_at: '2026-01-06T10:00:00.000Z',
    language: null,
    segments: [],
    summary: null,
    audio: false,
  },
  {
    title: 'Réunion — naïve café ☕ 会议',
    created_at: '2026-01-07T11:30:00+01:00',
    source: 'import',
    language: 'fr',
    segments: [
      { speaker: 'SPEAKER_00', start: 0, end: 2, text: 'Bonjour à tous, ça va ?' },
      { speaker: 'SPEAKER_01', start: 2, end: 3.25, text: '会议开始了 🎉' },
    ],
    summary: { text: 'Salutations.' },
    audio: false,
  },
  {
    title: 'x',
    created_at: '2026-01-08T12:00:00Z',
    source: 'fixture',
    segments: [{ speaker: 'S1', start: 0, end: 1, text: 'budget budget budget' }],
    summary: { text: '' },
    audio: true,
  },
];
export const meetingIds: string[] = [];

/** Token slots: every subset of the four scopes, plus the odd ones. */
interface TokenSlot {
  label: string;
  scopes: readonly string[];
  token: string;
}
export const tokenSlots: TokenSlot[] = [];
export let disabledToken = '';

export function refillMeetings(): void {
  for (let i = 0; i < SEEDS.length; i++) {
    const id = meetingIds[i];
    if (id !== undefined && gw.deps.meetings.exists(id)) continue;
    meetingIds[i] = gw.deps.meetings.create(SEEDS[i]!).id;
  }
}

function allScopeSubsets(): string[][] {
  const subsets: string[][] = [];
  for (let mask = 0; mask < 1 << SCOPES.length; mask++) subsets.push(SCOPES.filter((_, i) => (mask & (1 << i)) !== 0));
  return subsets;
}

export function useGatewayUnderTest(): void {
  before(async () => {
    gw = testGateway();
    refillMeetings();
    for (const scopes of allScopeSubsets()) {
      tokenSlots.push({ label: `[${scopes.join(',')}]`, scopes, token: gw.token(scopes) });
    }
    tokenSlots.push({ label: '[admin]', scopes: ['admin'], token: gw.token(['admin']) });
    tokenSlots.push({ label: '[admin,read]', scopes: ['admin', 'read'], token: gw.token(['admin', 'read']) });
    tokenSlots.push({ label: 'paired[all but delete]', scopes: SCOPES, token: gw.token(SCOPES, { origin: 'paired' }) });
    tokenSlots.push({ label: 'assistant[]', scopes: [], token: gw.token([], { kind: 'assistant' }) });
    disabledToken = gw.token(SCOPES, { name: 'disabled' });
    const disabledId = gw.deps.tokens.list().find((t) => t.name === 'disabled')!.id;
    gw.deps.tokens.setEnabled(disabledId, false);

    server = http.createServer(gw.app);
    // As gateway.ts wires its listener: what node:http cannot parse is answered with the envelope too.
    server.on('clientError', handleClientError);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    gw.close();
  });
}

// ── Store snapshot ─────────────────────────────────────────────────────────

/**
 * Every real table of the database (FTS shadow tables are derived from the
 * content tables and left out), as JSON, plus the files of the data folder.
 */
export function snapshot(): string {
  const tables = gw.db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string; sql: string | null }[];
  const virtual = tables.filter((t) => /^CREATE VIRTUAL/i.test(t.sql ?? '')).map((t) => t.name);
  const out: Record<string, unknown> = {};
  for (const { name, sql } of tables) {
    if (/^CREATE VIRTUAL/i.test(sql ?? '')) continue;
    if (virtual.some((v) => name.startsWith(`${v}_`))) continue;
    out[name] = gw.db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}" ORDER BY rowid`).all();
  }
  out['files'] = listFiles(gw.dataDir);
  return JSON.stringify(out, (_k, v: unknown) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
  );
}

function listFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else found.push(`${relative(root, full)}:${statSync(full).size}`);
    }
  };
  walk(root);
  return found.sort();
}
