/**
 * The GitHub composite action (.github/actions/mas-conformance/action.yml)
 * run here as a runner would run it: action.yml parsed, each `run:` step's
 * shell executed with bash and the environment GitHub gives a step
 * (RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, the step's `env:` with
 * its ${{ inputs.* }} and ${{ steps.*.outputs.* }} expressions filled in),
 * against the reference gateway with its startup token only. The `uses:`
 * steps (setup-node, upload-artifact) cannot run here: the test checks what
 * they are given, and puts this process's Node (24) first on PATH in place
 * of setup-node. The bundle is built by esbuild into a temporary folder and
 * handed over with the `bundle` input, so nothing is downloaded.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { ROOT, startReference } from '../reference.ts';
import type { Reference } from '../reference.ts';
import { BUNDLE_NAME, bundle } from './build.ts';

const ACTION_FILE = path.join(ROOT, '.github', 'actions', 'mas-conformance', 'action.yml');

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(ACTION_FILE, 'utf8')) as Action;

/** Fills in the ${{ }} expressions a step's env uses; any other expression is a test failure (this runner knows no more). */
function expand(text: string, inputs: Record<string, string>, outputs: Map<string, Record<string, string>>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expr);
    if (input !== null) {
      const name = input[1] ?? '';
      const spec = action.inputs[name];
      assert.ok(spec !== undefined, `action.yml uses an undeclared input ${name}`);
      return inputs[name] ?? spec.default ?? '';
    }
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
    if (output !== null) return outputs.get(output[1] ?? '')?.[output[2] ?? ''] ?? '';
    assert.fail(`an expression this test cannot evaluate: ${expr}`);
  });
}

function readOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

interface ActionRun {
  status: number | null;
  log: string;
  summary: string;
  outputs: Map<string, Record<string, string>>;
  temp: string;
}

/** Runs the action's shell steps in order, as GitHub would: a failing step ends the job. */
function runAction(inputs: Record<string, string>): ActionRun {
  const temp = mkdtempSync(path.join(tmp, 'runner-'));
  const summaryFile = path.join(temp, 'step-summary.md');
  writeFileSync(summaryFile, '');
  const outputs = new Map<string, Record<string, string>>();
  let log = '';
  let status: number | null = 0;
  for (const step of action.runs.steps) {
    if (step.run === undefined) continue;
    const outputFile = path.join(temp, `output-${step.id ?? 'step'}`);
    writeFileSync(outputFile, '');
    const env: NodeJS.ProcessEnv = {
      // setup-node's part: the Node it installs comes first on PATH.
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? temp,
      RUNNER_TEMP: temp,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_REPOSITORY: 'example/meeting-automation-service',
    };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = expand(v, inputs, outputs);
    assert.equal(step.shell, 'bash', `${step.name ?? step.id ?? 'a step'} names its shell`);
    const r = spawnSync('bash', ['-e', '-c', step.run], { cwd: temp, env, encoding: 'utf8' });
    log += `--- ${step.name ?? ''}\n${r.stdout}${r.stderr}`;
    if (step.id !== undefined) outputs.set(step.id, readOutputs(outputFile));
    status = r.status;
    if (status !== 0) break;
  }
  return { status, log, summary: readFileSync(summaryFile, 'utf8'), outputs, temp };
}

let tmp: string;
let bundleFile: string;
let ref: Reference;
let token: string;

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'mas-action-'));
  mkdirSync(path.join(tmp, 'build'));
  bundleFile = path.join(tmp, 'build', BUNDLE_NAME);
  await bundle(bundleFile, 'esm');
  ref = await startReference();
  const m = /Startup token\s+(\S+)/.exec(ref.log());
  assert.ok(m?.[1] !== undefined, `the reference printed no startup token\n${ref.log().slice(-1000)}`);
  token = m[1];
});

after(async () => {
  await ref?.stop();
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
});

test('action.yml: a composite action whose Node and artifact steps are setup-node and upload-artifact of the report folder', () => {
  assert.equal(action.runs.using, 'composite');
  assert.equal(action.inputs['base-url']?.required, true);
  for (const name of ['token', 'tokens-file', 'fail-on', 'min-coverage', 'only', 'skip', 'version'])
    assert.ok(action.inputs[name] !== undefined, `input ${name}`);
  const setup = action.runs.steps.find((s) => s.uses?.startsWith('actions/setup-node@') === true);
  assert.ok(setup !== undefined, 'a setup-node step');
  assert.equal(setup.with?.['node-version'], '${{ inputs.node-version }}');
  const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@') === true);
  assert.ok(upload !== undefined, 'an upload-artifact step');
  assert.equal(upload.with?.path, '${{ steps.suite.outputs.report-dir }}');
  assert.match(upload.if ?? '', /always\(\)/, 'the reports are kept when the suite fails too');
  // The token goes through the environment the suite reads, never onto a command line.
  const suite = action.runs.steps.find((s) => s.id === 'suite');
  assert.equal(suite?.env?.MAS_TOKEN, '${{ inputs.token }}');
  assert.doesNotMatch(suite?.run ?? '', /MAS_TOKEN/);
});

test('the action run against the reference with a token only: the Markdown report in the step summary, the JUnit file kept', () => {
  const run = runAction({
    'base-url': ref.baseUrl,
    token,
    bundle: bundleFile,
    only: 'health/,identity/whoami-fields,openapi/version-3-1',
    seed: '1',
  });
  assert.equal(run.status, 0, run.log);
  const outputs = run.outputs.get('suite') ?? {};
  assert.equal(outputs['exit-code'], '0');
  assert.ok(outputs.junit !== undefined && existsSync(outputs.junit), `the JUnit file exists\n${run.log}`);
  assert.match(readFileSync(outputs.junit, 'utf8'), /<testsuites[\s>]/);
  assert.ok(existsSync(path.join(outputs['report-dir'] ?? '', 'json', 'index.json')), 'the JSON report is in the kept folder');
  // The step summary holds the suite's Markdown report (the same as summary.md), not a link to it.
  assert.equal(run.summary, readFileSync(path.join(outputs['report-dir'] ?? '', 'summary.md'), 'utf8'));
  assert.match(run.summary, /^#+ .*[Cc]onformance/m);
  assert.match(run.summary, /health\/no-auth/);
  assert.doesNotMatch(run.summary + run.log, new RegExp(token), 'the token is printed nowhere');
});

test('a gate that does not hold fails the step and still writes the summary and the JUnit file', () => {
  const run = runAction({
    'base-url': ref.baseUrl,
    token,
    bundle: bundleFile,
    // transport/default-address is SKIPPED: the reference runs on a free port, not 127.0.0.1:8420.
    only: 'health/no-auth,transport/default-address',
    'fail-on': 'skipped',
    seed: '1',
  });
  assert.equal(run.status, 1, run.log);
  const outputs = run.outputs.get('suite') ?? {};
  assert.equal(outputs['exit-code'], '1');
  assert.ok(outputs.junit !== undefined && existsSync(outputs.junit));
  assert.match(run.summary, /transport\/default-address/);
  assert.match(run.log, /Gate: --fail-on skipped/);
});

/** The GitLab job of conformance/README.md ("Your gateway's CI: GitLab"), parsed from its yaml block. */
function gitlabJob(): { variables: Record<string, string>; script: string[]; artifacts: { reports: { junit: string } } } {
  const readme = readFileSync(path.join(ROOT, 'conformance', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf("### Your gateway's CI: GitLab"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block !== undefined, 'the GitLab section has a yaml block');
  const doc = parse(block) as Record<
    string,
    { variables: Record<string, string>; script: string[]; artifacts: { reports: { junit: string } } }
  >;
  const job = doc.conformance;
  assert.ok(job !== undefined, 'the yaml block defines the job conformance');
  return job;
}

test('the GitLab job of the README: its script run against the reference leaves the JUnit report it declares', () => {
  const job = gitlabJob();
  const dir = mkdtempSync(path.join(tmp, 'gitlab-'));
  // GitLab's part: the job's variables, with the target and the download address pointing here, and the token as a CI/CD variable.
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? dir,
    ...job.variables,
    MAS_BASE_URL: ref.baseUrl,
    MAS_TOKEN: token,
    SUITE_URL: `file://${bundleFile}`,
  };
  const script = [...job.script];
  // The whole suite would take minutes here: the same command, on a few checks.
  const last = script.length - 1;
  script[last] = `${script[last] ?? ''} --only=health/,identity/whoami-fields --seed=1`;
  const r = spawnSync('bash', ['-e', '-c', script.join('\n')], { cwd: dir, env, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const junit = path.join(dir, job.artifacts.reports.junit);
  assert.ok(existsSync(junit), `${job.artifacts.reports.junit} exists`);
  assert.match(readFileSync(junit, 'utf8'), /<testsuites[\s>]/);
});
