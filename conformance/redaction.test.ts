/**
 * Secrets are redacted in what is written and printed, never in what the
 * checks read: a short control secret (`sec`, `test`, `id`, `a`) or a token
 * that also occurs inside JSON text must not change a verdict.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CheckContext } from './harness/context.ts';
import * as x from './harness/expect.ts';
import { Secrets } from './harness/secrets.ts';
import { localServer, testCheck, testEnv } from './harness/testing.ts';
import { startReference } from './reference.ts';
import { redactResult } from './runner/redact.ts';
import { runAttempt } from './runner/run.ts';
import type { Session } from './runner/session-types.ts';

const CLI = join(import.meta.dirname, 'cli.ts');

test('whole-word redaction: a short secret inside a longer word is left alone', () => {
  const s = new Secrets();
  s.add('sec', '$MAS_CONTROL_SECRET');
  s.add('id', '$MAS_TOKEN');
  assert.equal(s.redact('{"section":"x","id":"sec"}'), '{"section":"x","$MAS_TOKEN":"$MAS_CONTROL_SECRET"}');
  assert.equal(s.redact('Bearer sec'), 'Bearer $MAS_CONTROL_SECRET');
  assert.equal(s.redact('identity webhook.test'), 'identity webhook.test');
});

test('a check reads the bytes the target sent; only the written result is redacted', async () => {
  const token = 'tok_inside_json';
  const body = JSON.stringify({ section: 'vad', id: 'a', test: true, note: `the token ${token} is quoted here`, [token]: 1 });
  const server = await localServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  try {
    const secrets = new Secrets();
    for (const s of ['sec', 'test', 'id', 'a']) secrets.add(s, '$MAS_CONTROL_SECRET');
    secrets.add(token, '$MAS_TOKEN');
    const env = testEnv(server.url, { secrets });
    let seenBody = '';
    let seenLog = '';
    const check = testCheck({
      async run(ctx: CheckContext) {
        const res = await ctx.api.get('/v1/meetings', { token });
        seenBody = res.text;
        seenLog = ctx.attempt.exchanges[0]!.response!.body;
        ctx.expect(
          'meetings.rename.applies',
          'the body as sent',
          x.that(res.text === body && seenLog === body, 'the body unchanged', res.text),
          res,
        );
        ctx.expect(
          'meetings.rename.applies',
          'the request header as sent',
          x.that(ctx.attempt.exchanges[0]!.request.headers['authorization'] === `Bearer ${token}`, 'the token', 'other'),
          res,
        );
        ctx.expect('meetings.rename.applies', 'a failure to show redacted', x.that(false, 'nothing', `got ${token} in "${res.text}"`), res);
      },
    });
    const session = {
      env,
      secrets,
      capabilities: undefined,
      setupLog: [],
      setCurrent: () => undefined,
      close: async () => undefined,
    } as Session;
    const attempt = await runAttempt(check, session, false);
    assert.equal(seenBody, body);
    assert.equal(seenLog, body);
    assert.equal(attempt.failures.length, 1, JSON.stringify(attempt.failures));
    const shown = redactResult(
      {
        ...attempt,
        id: check.id,
        area: 'meetings',
        clauses: [...check.clauses],
        level: check.level,
        needs: [],
        description: check.description,
        requirement: check.requirement,
      },
      secrets,
    );
    const text = JSON.stringify(shown);
    assert.doesNotMatch(text, new RegExp(token));
    assert.match(shown.failures[0]!.curl ?? '', /"authorization: Bearer \$MAS_TOKEN"/);
    assert.match(shown.exchanges[0]!.response!.body, /"section":"vad"/);
    assert.equal(shown.clauses[0], 'meetings.rename.applies');
    assert.equal(shown.id, check.id);
  } finally {
    await server.close();
  }
});

function runCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, CI: 'true', MAS_BASE_URL: '', MAS_CONTROL_URL: '', MAS_CONTROL_SECRET: '', MAS_TOKEN: '' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

for (const secret of ['sec', 'test', 'id', 'a']) {
  test(
    `against the reference with the control secret "${secret}": no FAIL, and the reports hold no bearer secret`,
    { timeout: 180_000 },
    async () => {
      const ref = await startReference({ controlSecret: secret });
      try {
        const dir = mkdtempSync(join(tmpdir(), 'mas-redaction-'));
        const r = await runCli([
          `--base-url=${ref.baseUrl}`,
          `--control-url=${ref.controlUrl}`,
          `--control-secret=${secret}`,
          '--only',
          'format/,health/,config/dto-shape,config/put-replaces-section,webhooks/create,auth/token-lifecycle',
          '--seed',
          '1',
          '--runs',
          '5',
          '--no-retry',
          `--json=${dir}`,
        ]);
        const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { checks: Array<{ id: string; outcome: string }> };
        const bad = index.checks.filter((x) => x.outcome === 'FAIL' || x.outcome === 'ERROR');
        assert.deepEqual(bad, [], `${r.out}\n${r.err}`);
        assert.equal(r.code, 0, r.out);
        assert.ok(
          index.checks.some((x) => x.id === 'format/snake-case-keys' && x.outcome === 'PASS'),
          r.out,
        );
        const detail = readFileSync(join(dir, 'checks', 'format', 'snake-case-keys.json'), 'utf8');
        assert.doesNotMatch(detail, new RegExp(`Bearer ${secret}\\b`));
      } finally {
        await ref.stop();
      }
    },
  );
}
