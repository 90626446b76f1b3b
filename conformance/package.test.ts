/**
 * The suite as a third-party implementer gets it: the workspace package
 * conformance/ packed (`npm pack --workspace mas-conformance`; its prepack
 * bundles conformance/dist/mas-conformance.mjs with conformance/release/build.ts),
 * the tarball installed into a fresh project, and its `mas-conformance` bin
 * run through npx: --help, --list (every check file of the sources is in the
 * bundle), then real checks against the reference gateway started as its own
 * process, once with the Control API and once with an API token only: one
 * seeds a meeting from fixtures/meetings, one imports the speech of
 * conformance/audio/ (both embedded in the bundle; no synthesizer or ffmpeg at
 * run time), one validates /openapi.json with @seriousme/openapi-schema-validator
 * (bundled). Then the gate options and their exit codes. The package has no
 * dependencies: the install adds nothing but itself. See
 * docs/decisions/071-conformance-release-artifacts.md (the bundle replaced the
 * compiled copy of 021 and 056).
 *
 * Side effect on the checkout: `npm pack` rebuilds conformance/dist/
 * (gitignored), as it would for anyone packing. The temporary folder is
 * removed at the end.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { detailPath } from './reporters/json.ts';
import type { DetailFile } from './reporters/json.ts';
import { ROOT, freePort, startReference } from './reference.ts';
import type { Reference } from './reference.ts';
import { checkFiles } from './runner/registry.ts';

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

/** npm settings that may come from a surrounding `npm run` and are harmless to keep; every other npm_* variable is dropped so the child npm acts as if typed in a shell. */
const KEEP_NPM = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'npm_config_globalconfig']);
/** The target comes from the command line only, never from the surrounding shell. */
const TARGET_VARIABLES = new Set(['MAS_BASE_URL', 'MAS_CONTROL_URL', 'MAS_CONTROL_SECRET', 'MAS_TOKEN']);

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (TARGET_VARIABLES.has(k)) continue;
    if (!k.toLowerCase().startsWith('npm_') || KEEP_NPM.has(k.toLowerCase())) env[k] = v;
  }
  // The bin's `#!/usr/bin/env node` must find this Node (24, the devDependency), not an older system one first on PATH.
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;
  return env;
}

/** Runs a command without blocking the event loop (the reference gateway writes to pipes this process must keep draining). */
function run(cmd: string, args: string[], cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

function show(r: Ran): string {
  return `exit ${r.code}\n--- stdout\n${r.out.slice(-4000)}\n--- stderr\n${r.err.slice(-4000)}`;
}

let tmp: string;
let project: string;
const mas = (args: string[]): Promise<Ran> => run('npx', ['--no-install', 'mas-conformance', ...args], project);

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'mas-conformance-package-'));
  // Packed from the root by workspace name, as a CI job in a checkout does; the tarball is mas-conformance-<version>.tgz.
  const packed = await run('npm', ['pack', '--workspace', 'mas-conformance', `--pack-destination=${tmp}`], ROOT);
  assert.equal(packed.code, 0, `npm pack\n${show(packed)}`);
  const tarball = readdirSync(tmp).find((f) => /^mas-conformance-.*\.tgz$/.test(f));
  assert.ok(tarball !== undefined, `no .tgz in ${tmp}\n${show(packed)}`);

  project = path.join(tmp, 'implementer');
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'implementer-gateway', version: '1.0.0', private: true }, null, 2)}\n`,
  );
  // --prefer-offline: the dependencies come from npm's cache when it has them (a CI runner after `npm ci` does), the registry otherwise.
  const installed = await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', path.join(tmp, tarball)],
    project,
  );
  assert.equal(installed.code, 0, `npm install of the tarball\n${show(installed)}`);
});

after(() => {
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
});

test('the installed bin answers --help and lists every check of the sources', async () => {
  const help = await mas(['--help']);
  assert.equal(help.code, 0, show(help));
  assert.match(help.out, /--base-url URL/);

  const list = await mas(['--list']);
  assert.equal(list.code, 0, show(list));
  assert.doesNotMatch(list.out, / BROKEN /, 'every compiled check loads');
  for (const id of ['health/no-auth', 'identity/whoami-fields', 'meetings/transcript-shape', 'openapi/version-3-1']) {
    assert.match(list.out, new RegExp(`^${id} `, 'm'), `--list names ${id}`);
  }
  // The same number of checks as check files in the sources: none was left out of the build.
  const listed = /^(\d+) checks over \d+ clauses$/m.exec(list.out);
  assert.ok(listed !== null, list.out);
  assert.equal(Number(listed[1]), checkFiles().length);

  // The package is the bundle, its license and its manifest: the speech, the scripts and clauses.json are inside the bundle.
  const pkgDir = path.join(project, 'node_modules', 'mas-conformance');
  assert.deepEqual(readdirSync(path.join(pkgDir, 'dist')).sort(), ['LICENSE', 'mas-conformance.mjs']);
  const bundle = readFileSync(path.join(pkgDir, 'dist', 'mas-conformance.mjs'), 'utf8');
  // esbuild heads each bundled module with a comment naming its source: the speech renderers are not among them.
  assert.match(bundle, /^\/\/ .*simulator\/scripts\/meeting-script\.ts$/m);
  for (const renderer of ['render-script', 'voices', 'espeak', 'flite', 'festival']) {
    assert.doesNotMatch(
      bundle,
      new RegExp(`^// .*simulator/synth/${renderer}\\.ts$`, 'm'),
      `no speech renderer in the bundle (${renderer})`,
    );
  }

  // No dependencies at all: nothing that could move under a gate's users (a newer fast-check changes what a seed generates).
  const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
    license?: string;
    dependencies?: Record<string, string>;
  };
  assert.equal(manifest.license, 'Apache-2.0');
  assert.deepEqual(manifest.dependencies ?? {}, {});
  assert.deepEqual(
    readdirSync(path.join(project, 'node_modules')).filter((n) => !n.startsWith('.')),
    ['mas-conformance'],
    'the install added the package and nothing else',
  );

  const bad = await mas(['--bogus']);
  assert.equal(bad.code, 2, show(bad));
  assert.match(bad.err, /^run with --help for usage: npx mas-conformance --help$/m, 'the hint names the way the suite was started');
});

/**
 * A full-scope token made through the reference's Control API: what an implementer without a Control API
 * creates in their own gateway and hands the suite with --token. (The startup token is gone once a run
 * with the Control API has reset the target.)
 */
async function fullToken(ref: Reference): Promise<string> {
  const res = await fetch(`${ref.controlUrl}/control/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ref.controlSecret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ scopes: ['read', 'record', 'write', 'delete'], name: 'token-only run' }),
  });
  const body = (await res.json()) as { token?: string };
  assert.ok(res.ok && typeof body.token === 'string', `POST /control/tokens answered ${res.status}`);
  return body.token;
}

test('the installed bin passes real checks against the reference gateway', async () => {
  const ref = await startReference();
  try {
    const json = path.join(tmp, 'report');
    const only = 'health/,identity/whoami-fields,meetings/transcript-shape,openapi/version-3-1,jobs/import-no-source-path';
    const r = await mas([
      `--base-url=${ref.baseUrl}`,
      `--control-url=${ref.controlUrl}`,
      `--control-secret=${ref.controlSecret}`,
      `--only=${only}`,
      '--seed',
      '1',
      '--runs',
      '5',
      '--no-retry',
      `--json=${json}`,
    ]);
    assert.equal(r.code, 0, `${show(r)}\n--- gateway\n${ref.log().slice(-2000)}`);
    // jobs/import-no-source-path reads the WAV embedded in the bundle: PASS, not SKIPPED.
    for (const id of [
      'health/no-auth',
      'identity/whoami-fields',
      'meetings/transcript-shape',
      'openapi/version-3-1',
      'jobs/import-no-source-path',
    ]) {
      assert.match(r.out, new RegExp(`^PASS +${id} `, 'm'), `${id} passes\n${r.out}`);
    }
    // The OpenAPI schema validator is bundled: the check validated the document instead of noting it missing.
    const openapi = JSON.parse(readFileSync(path.join(json, detailPath('openapi/version-3-1')), 'utf8')) as DetailFile;
    assert.equal(openapi.outcome, 'PASS');
    assert.deepEqual(
      openapi.notes.filter((n) => n.includes('not installed')),
      [],
    );

    // The same bin with an API token only (no Control API): the checks that need no more still run and pass.
    const tokenOnly = await mas([
      `--base-url=${ref.baseUrl}`,
      `--token=${await fullToken(ref)}`,
      '--only',
      'health/no-auth,identity/whoami-fields,openapi/version-3-1,jobs/import-no-source-path',
      '--seed',
      '1',
      '--runs',
      '5',
      '--no-retry',
    ]);
    assert.equal(tokenOnly.code, 0, `${show(tokenOnly)}\n--- gateway\n${ref.log().slice(-2000)}`);
    for (const id of ['health/no-auth', 'identity/whoami-fields', 'openapi/version-3-1']) {
      assert.match(tokenOnly.out, new RegExp(`^PASS +${id} `, 'm'), `${id} passes with --token only\n${tokenOnly.out}`);
    }
    assert.doesNotMatch(tokenOnly.out, /^(FAIL|ERROR) /m);
  } finally {
    await ref.stop();
  }
});

test('the installed bin: the gate options and their exit codes, hints naming npx', async () => {
  const ref = await startReference();
  try {
    const target = [
      `--base-url=${ref.baseUrl}`,
      `--control-url=${ref.controlUrl}`,
      `--control-secret=${ref.controlSecret}`,
      '--seed',
      '1',
      '--runs',
      '5',
      '--no-retry',
    ];
    const none = await mas([...target, '--only', 'no-such-area/']);
    assert.equal(none.code, 2, show(none));
    assert.match(none.err, /selects no check/);
    assert.match(none.err, /^run with --help for usage: npx mas-conformance --help$/m, 'the hint names the way the suite was started');
    // transport/default-address is SKIPPED: the reference runs on a free port, not 127.0.0.1:8420.
    const some = [...target, '--only', 'health/no-auth,transport/default-address'];
    const plain = await mas(some);
    assert.equal(plain.code, 0, show(plain));
    const failOn = await mas([...some, '--fail-on', 'skipped']);
    assert.equal(failOn.code, 1, show(failOn));
    assert.match(failOn.out, /Gate: --fail-on skipped/);
    const cover = await mas([...some, '--min-coverage', '90']);
    assert.equal(cover.code, 1, show(cover));
    assert.match(cover.out, /Gate: --min-coverage 90%/);
    const wait = await mas([...some, '--wait-for-target', '5', '--reporter', 'github']);
    assert.equal(wait.code, 0, show(wait));
    assert.match(wait.out, /^::notice title=1 check SKIPPED::.*transport\/default-address/m);
    const bad = await mas([...some, '--fail-on', 'nothing']);
    assert.equal(bad.code, 2, show(bad));
    // A failing check prints a replay hint naming npx, not the checkout's npm script. The reference breaks
    // no clause, so the failing target is a stand-in that answers every request with 200 and an empty object.
    const broken = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((ok) => broken.listen(0, '127.0.0.1', ok));
    try {
      const port = (broken.address() as AddressInfo).port;
      const failing = await mas([
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--token',
        'not-a-real-token-0123',
        '--only',
        'health/',
        '--seed',
        '1',
        '--no-retry',
      ]);
      assert.equal(failing.code, 1, show(failing));
      assert.match(failing.out, /^FAIL /m, show(failing));
      assert.match(failing.out, /^Replay one check: npx mas-conformance .*--only <check id>/m, show(failing));
    } finally {
      await new Promise((ok) => broken.close(ok));
    }

    // Nobody listens on a port just freed: the run does not start, and says why.
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await mas([
      `--base-url=${nobody}`,
      '--token',
      'not-a-real-token-0123',
      '--only',
      'health/no-auth',
      '--wait-for-target',
      '1',
    ]);
    assert.notEqual(unreachable.code, 0, show(unreachable));
    assert.match(unreachable.out + unreachable.err, /did not answer GET \/health within 1 s/);
  } finally {
    await ref.stop();
  }
});
