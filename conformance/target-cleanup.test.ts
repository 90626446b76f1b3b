/**
 * A token-only run with a full-scope token leaves the reference as it found it
 * (docs/decisions/075-conformance-leaves-the-target-as-found.md): the meetings
 * and webhooks counts are back to what they were, what was there before stays,
 * and the summary names what the API cannot remove. A subset of the checks
 * (--only) keeps it short; the whole run was measured by hand (decision 075).
 * The suite runs as a process, as a user starts it; so does Ctrl+C.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, startReference } from './reference.ts';
import type { Reference } from './reference.ts';
import type { CleanupSummary } from './harness/ledger.ts';

let ref: Reference;
let token: string;
const dir = mkdtempSync(path.join(tmpdir(), 'mas-target-cleanup-'));

async function call(base: string, bearer: string, method: string, route: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${route} answered ${res.status} ${text.slice(0, 200)}`);
  return text.length === 0 ? undefined : (JSON.parse(text) as unknown);
}

/** Every meeting id (GET /v1/meetings, paged) and every webhook id of every owner (all=true: the first-party startup token). */
async function onTarget(): Promise<{ meetings: string[]; webhooks: string[] }> {
  const meetings: string[] = [];
  for (let offset = 0; ; offset += 200) {
    const page = (await call(ref.baseUrl, token, 'GET', `/v1/meetings?limit=200&offset=${offset}`)) as { meetings: Array<{ id: string }> };
    meetings.push(...page.meetings.map((m) => m.id));
    if (page.meetings.length < 200) break;
  }
  const hooks = (await call(ref.baseUrl, token, 'GET', '/v1/webhooks?all=true')) as { webhooks: Array<{ id: string }> };
  return { meetings: meetings.sort(), webhooks: hooks.webhooks.map((w) => w.id).sort() };
}

function suite(
  args: string[],
  onLine?: (line: string, child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; out: string }> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'conformance', 'cli.ts'), `--base-url=${ref.baseUrl}`, `--token=${token}`, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine?.(line, child);
  });
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

before(async () => {
  ref = await startReference();
  // What an implementer does in their own application before a token-only run: webhooks on (coverage-ladder.ts).
  await call(ref.controlUrl, ref.controlSecret, 'PATCH', '/control/settings', { webhooks_enabled: true });
  token = /Startup token\s+(\S+)/.exec(ref.log())![1]!;
  // What the user had before the run, which must stay: a meeting and a webhook.
  await call(ref.controlUrl, ref.controlSecret, 'POST', '/control/meetings', { title: 'the user’s own', segments: [] });
  await call(ref.baseUrl, token, 'POST', '/v1/webhooks', { url: 'https://[2d00::1]/the-users-own', events: ['job.completed'] });
});

after(async () => {
  await ref.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a token-only run removes the meetings and webhooks it made and names what the API cannot remove', async () => {
  const found = await onTarget();
  assert.equal(found.meetings.length, 1);
  assert.equal(found.webhooks.length, 1);
  const json = path.join(dir, 'run');
  const run = await suite([
    '--seed=1',
    `--json=${json}`,
    '--only=jobs/import-speech,meetings/rename-applies,meetings/delete-cascade,webhooks/create,webhooks/gaps,pairing/response-shapes',
  ]);
  assert.equal(run.code, 0, run.out);
  assert.deepEqual(await onTarget(), found, 'the meetings and webhooks are those from before the run');

  const line = /^Target: (.*)$/m.exec(run.out)?.[1] ?? '';
  assert.match(line, /meetings: created [1-9]\d*, removed [1-9]\d*.*, left 0/);
  assert.match(line, /webhooks: created [1-9]\d*, removed [1-9]\d*.*, left 0/);
  assert.match(line, /jobs: created [1-9]\d*, removed 0, left [1-9]\d* \(the API has no delete route for jobs\)/);
  assert.match(line, /pairings: created 1, removed 0, left 1 \(the API has no route that removes a pairing request\)/);
  const index = JSON.parse(readFileSync(path.join(json, 'index.json'), 'utf8')) as { meta: { cleanup: CleanupSummary } };
  const kinds = Object.fromEntries(index.meta.cleanup.kinds.map((k) => [k.kind, k]));
  assert.equal(kinds.meetings!.left, 0);
  assert.equal(kinds.webhooks!.left, 0);
  assert.equal(kinds.jobs!.leftWhy[0]!.ids.length, kinds.jobs!.left, 'the report lists the ids of what is left');
});

test('--keep leaves what the run made, and says so', async () => {
  const found = await onTarget();
  const run = await suite(['--seed=1', '--keep', '--only=webhooks/gaps']);
  assert.equal(run.code, 0, run.out);
  const now = await onTarget();
  assert.ok(now.webhooks.length > found.webhooks.length);
  assert.match(
    run.out,
    /^Target: kept on the target \(--keep\): .*webhooks: created \d+, removed \d+.*, left [1-9]\d* \(kept \(--keep\)\)/m,
  );
  // Leave the reference as the next test expects it.
  for (const id of now.webhooks.filter((w) => !found.webhooks.includes(w))) await call(ref.baseUrl, token, 'DELETE', `/v1/webhooks/${id}`);
});

test('Ctrl+C during a check: no further check runs, what was made is removed, exit 130', async () => {
  const found = await onTarget();
  let sent = false;
  // Every meetings/ check imports a meeting of its own: the interrupt arrives with most of them still to run.
  const run = await suite(['--seed=1', '--only=meetings/'], (line, child) => {
    if (!sent && /^\S+\s+meetings\//.test(line)) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  assert.ok(sent, run.out);
  assert.equal(run.code, 130, run.out);
  assert.match(run.out, /^Target: interrupted, meetings: created [1-9]\d*, removed [1-9]\d*.*, left 0/m);
  assert.deepEqual(await onTarget(), found);
});
