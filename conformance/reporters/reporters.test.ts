import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadClauses } from '../catalog.ts';
import { syntheticReport } from '../harness/testing.ts';
import { mergeReports } from '../runner/merge.ts';
import { clauseRows, coverage } from '../runner/result.ts';
import { htmlReport } from './html.ts';
import { readJsonReport, writeJsonReport } from './json.ts';
import { githubAnnotations } from './github.ts';
import { junitReport } from './junit.ts';
import { markdownReport } from './markdown.ts';

const catalog = loadClauses();

/** A small XML well-formedness check: one root, balanced tags, quoted attributes, valid entities, legal characters. */
export function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  let rest = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(rest)) problems.push('illegal control character');
  const entity = /&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  const stack: string[] = [];
  let roots = 0;
  const token = /^(?:<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+))/;
  while (rest.length > 0) {
    const m = token.exec(rest);
    if (m === null) {
      problems.push(`cannot parse at: ${rest.slice(0, 60)}`);
      break;
    }
    const [all, close, name, attrs, selfClose, text] = m;
    if (text !== undefined) {
      if (entity.test(text)) problems.push(`bad entity in text: ${text.slice(0, 60)}`);
      if (stack.length === 0 && text.trim() !== '') problems.push('text outside the root');
    } else {
      if (attrs !== undefined && entity.test(attrs)) problems.push(`bad entity in attributes of <${name}>`);
      if (close === '/') {
        const open = stack.pop();
        if (open !== name) problems.push(`</${name}> closes <${open}>`);
      } else if (selfClose !== '/') {
        if (stack.length === 0) roots += 1;
        stack.push(name!);
      } else if (stack.length === 0) roots += 1;
    }
    rest = rest.slice(all.length);
  }
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(' > ')}`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}

test('the XML checker itself catches broken documents', () => {
  assert.deepEqual(xmlProblems('<a><b x="1">t &amp; u</b></a>'), []);
  assert.notDeepEqual(xmlProblems('<a><b></a>'), []);
  assert.notDeepEqual(xmlProblems('<a>x & y</a>'), []);
  assert.notDeepEqual(xmlProblems('<a x="<">y</a>'), []);
});

test('JUnit: well-formed, one testsuite per area plus the coverage suite, counts and bodies', () => {
  const xml = junitReport(syntheticReport(), catalog);
  assert.deepEqual(xmlProblems(xml), []);
  assert.match(xml, /<testsuites [^>]*tests="7" failures="1" errors="1" skipped="1"/);
  for (const area of ['health', 'meetings', 'config', 'webhooks', 'auth', 'search', 'clause-coverage'])
    assert.match(xml, new RegExp(`<testsuite name="${area}"`));
  assert.match(xml, /<failure type="meetings.rename.title-max-500"/);
  assert.match(xml, /Requirement: &quot;A rename title of at most 500 characters/);
  assert.match(xml, /Property: &quot;title lengths&quot; seed 42 path &quot;6:0:1&quot;/);
  assert.match(xml, /curl: curl -sS -i -X PATCH/);
  assert.match(xml, /<error type="harness"/);
  assert.match(xml, /<skipped message="needs a receiver/);
  assert.match(xml, /<property name="outcome" value="FLAKY"\/>/);
  assert.match(xml, /<property name="coverage.checkable" value="294"\/>/);
  assert.ok(!xml.includes('<script>'), 'payload escaped');
});

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The attributes (entities decoded) of every element named `tag` (the document is well-formed, attributes double-quoted). */
function elements(xml: string, tag: string): Array<Record<string, string>> {
  const decode = (v: string): string =>
    v.replace(/&(\w+|#\d+);/g, (_, e: string) => (e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1))) : ENTITIES[e]!));
  return [...xml.matchAll(new RegExp(`<${tag}((?:\\s+[\\w:.-]+="[^"]*")*)\\s*/?>`, 'g'))].map((m) =>
    Object.fromEntries([...m[1]!.matchAll(/([\w:.-]+)="([^"]*)"/g)].map((a) => [a[1]!, decode(a[2]!)])),
  );
}

test('JUnit: a testcase is named by its check id alone, classed by its area; description and clauses are properties', () => {
  const report = syntheticReport();
  const xml = junitReport(report, catalog);
  assert.deepEqual(xmlProblems(xml), []);
  const cases = elements(xml, 'testcase');
  assert.equal(cases.length, report.results.length);
  for (const [i, r] of report.results.entries()) {
    // CI test-report tools key a test's history on its name: a reworded description must not make it "new".
    assert.equal(cases[i]!.name, r.id);
    assert.equal(cases[i]!.classname, r.id.split('/')[0]);
    assert.match(cases[i]!.time!, /^\d+\.\d{3}$/);
  }
  assert.match(xml, /<property name="description" value="fails &lt;\/script&gt;/);
  assert.match(xml, /<property name="clause" value="meetings.rename.title-max-500"\/>/);
  // Short failure and error messages, one line each; the details go in the element's body.
  const failures = elements(xml, 'failure');
  assert.equal(failures.length, 1, 'one <failure> per failing testcase');
  for (const f of [...failures, ...elements(xml, 'error')]) {
    assert.ok(f.message!.length <= 200, f.message);
    assert.doesNotMatch(f.message!, /[\n\r]/);
  }
  assert.match(
    xml,
    /<failure type="meetings.rename.title-max-500" message="meetings.rename.title-max-500: PATCH with a 501-character title/,
  );
  // The counts of every testsuite agree with its testcases.
  const suites = xml.split('<testsuite ').slice(1);
  for (const suite of suites) {
    const attrs = elements(`<testsuite ${suite}`, 'testsuite')[0]!;
    assert.equal(Number(attrs.tests), (suite.match(/<testcase /g) ?? []).length, attrs.name);
    assert.equal(Number(attrs.failures), (suite.match(/<failure /g) ?? []).length, attrs.name);
    assert.equal(Number(attrs.errors), (suite.match(/<error /g) ?? []).length, attrs.name);
    assert.equal(Number(attrs.skipped), (suite.match(/<skipped /g) ?? []).length, attrs.name);
  }
});

test('GitHub: one ::error per FAIL and ERROR, every SKIP in one ::notice, file= only where the check file exists, data escaped', () => {
  const base = syntheticReport();
  const skipped = base.results.find((r) => r.outcome === 'SKIPPED')!;
  // Many skips, as a run without a Control API has: GitHub shows only 10 annotations of a kind per step.
  const extra = Array.from({ length: 30 }, (_, i) => ({
    ...skipped,
    id: `webhooks/skip-${i}`,
    skipReason: `needs the Control API: none ${i}`,
  }));
  const report = { ...base, results: [...base.results, ...extra] };
  const cov = coverage(clauseRows(catalog, report));
  const empty = mkdtempSync(join(tmpdir(), 'conf-gh-'));
  const out = githubAnnotations(report.results, cov, { cwd: empty });
  const lines = out.split('\n').filter((l) => l !== '');
  for (const l of lines) assert.match(l, /^::(error|warning|notice)( [^:]*)?::/, l);
  const errors = lines.filter((l) => l.startsWith('::error'));
  assert.deepEqual(
    errors.map((l) => /title=([^,:]*)/.exec(l)![1]),
    ['FAIL meetings/rename-title-max-500', 'ERROR auth/api-disabled'],
  );
  const skipNotices = lines.filter((l) => l.startsWith('::notice') && l.includes('SKIPPED'));
  assert.equal(skipNotices.length, 1);
  assert.match(skipNotices[0]!, /31 checks SKIPPED/);
  assert.match(skipNotices[0]!, /needs the Control API \(30\)/);
  assert.ok(lines.filter((l) => l.startsWith('::notice')).length <= 2, 'the SKIP summary and the clause coverage');
  assert.ok(!out.includes('file='), 'no check file in this workspace: no file= at all');
  // Workflow-command escaping: % CR LF in the message; also : and , in properties.
  const fail = errors[0]!;
  assert.match(fail, /%0AExpected: /);
  const odd = githubAnnotations([{ ...skipped, outcome: 'ERROR', id: 'a/b,c:d', error: { message: '100% done\r\nnext' } }], cov, {
    cwd: empty,
  });
  assert.match(odd, /^::error title=ERROR a\/b%2Cc%3Ad::100%25 done%0D%0Anext$/m);
  // In a checkout of the suite the annotation points at the check's source file.
  mkdirSync(join(empty, 'conformance/checks/meetings'), { recursive: true });
  writeFileSync(join(empty, 'conformance/checks/meetings/rename-title-max-500.check.ts'), '');
  const here = githubAnnotations(report.results, cov, { cwd: empty });
  assert.match(
    here,
    /^::error file=conformance\/checks\/meetings\/rename-title-max-500\.check\.ts,title=FAIL meetings\/rename-title-max-500::/m,
  );
  assert.match(here, /^::error title=ERROR auth\/api-disabled::/m);
});

test('JSON: index.json and one detail per check, read back unchanged', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conf-json-'));
  const report = syntheticReport();
  const index = writeJsonReport(dir, report, catalog);
  assert.equal(index.summary.total, 7);
  assert.equal(index.summary.failed, true);
  assert.equal(index.coverage.checkable, 294);
  assert.equal(index.clauses.length, catalog.length);
  const parsed = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as typeof index;
  for (const entry of parsed.checks) assert.ok(existsSync(join(dir, entry.detail)), entry.detail);
  assert.deepEqual(readdirSync(join(dir, 'checks')).sort(), ['auth', 'config', 'health', 'meetings', 'search', 'webhooks']);
  const back = readJsonReport(dir);
  assert.deepEqual(back.results, report.results);
  assert.deepEqual(back.meta, report.meta);
  const row = parsed.clauses.find((c) => c.id === 'meetings.rename.title-max-500')!;
  assert.equal(row.status, 'FAIL');
  assert.equal(parsed.clauses.find((c) => c.id === 'config.section.unknown')!.status, 'NON_STRICT');
  assert.equal(parsed.clauses.find((c) => c.id === 'transport.no-relay')!.status, 'NOT_CHECKABLE');
  assert.equal(parsed.clauses.find((c) => c.id === 'jobs.cancel.running')!.status, 'NOT_COVERED');
});

test('HTML: self-contained, escaped, filterable, with the per-clause table', () => {
  const html = htmlReport(syntheticReport(), catalog);
  assert.match(html, /^<!doctype html>/);
  assert.ok(!/<(link|img|iframe)\b/i.test(html), 'no external assets');
  assert.ok(!/\s(src|href)="(https?:)?\/\//i.test(html), 'no external URLs');
  assert.equal((html.match(/<script>/g) ?? []).length, 1, 'only the report’s own script');
  assert.ok(html.includes('&lt;/script&gt;&lt;script&gt;alert(1)'), 'payload escaped');
  for (const tag of ['details', 'tr', 'table', 'section', 'pre']) {
    assert.equal(
      (html.match(new RegExp(`<${tag}[\\s>]`, 'g')) ?? []).length,
      (html.match(new RegExp(`</${tag}>`, 'g')) ?? []).length,
      `<${tag}> balanced`,
    );
  }
  assert.match(html, /name="outcome" value="FAIL"/);
  assert.match(html, /<select id="area">/);
  assert.match(html, /id="clause-meetings.rename.title-max-500"/);
  assert.match(html, /data-status="NOT_COVERED"/);
  assert.match(html, /seed <code>42<\/code>/);
});

test('Markdown: verdict, coverage, failures with clause, requirement, curl and seed; fences survive payloads', () => {
  const md = markdownReport(syntheticReport(), catalog);
  assert.match(md, /^# ❌ Conformance: 1 PASS · 1 FAIL · 1 NON_STRICT · 1 INFORMATIONAL · 1 SKIPPED · 1 ERROR · 1 FLAKY/);
  assert.match(md, /\*\*\d+\/294\*\* checkable clauses have checks/);
  assert.match(md, /\| meetings \| 26 \|/);
  assert.match(md, /- \*\*Clause\*\* `meetings.rename.title-max-500`/);
  assert.match(md, /> A rename title of at most 500 characters/);
  assert.match(md, /seed `42`, path `6:0:1`/);
  const fence = md.match(/^(`{4,})sh$/m);
  assert.ok(fence !== null, 'the curl block uses a fence longer than the payload’s backticks');
  for (const line of md.split('\n').filter((l) => l.startsWith('|'))) assert.ok(!/[^\\]\|[^|]*\n/.test(line));
});

test('merge: shards join, a check met twice keeps its worse outcome', () => {
  const full = syntheticReport();
  const a = { ...full, meta: { ...full.meta, shard: '1/2' }, results: full.results.slice(0, 4) };
  const b = { ...full, meta: { ...full.meta, shard: '2/2', finishedAt: '2026-11-20T09:00:09.000Z' }, results: full.results.slice(3) };
  const merged = mergeReports([a, b]);
  assert.equal(merged.results.length, 7);
  assert.equal(merged.meta.shard, undefined);
  assert.equal(merged.meta.finishedAt, '2026-11-20T09:00:09.000Z');
  assert.deepEqual(
    merged.meta.mergedFrom?.map((m) => m.shard),
    ['1/2', '2/2'],
  );
  const twice = mergeReports([
    full,
    { ...full, results: full.results.map((r) => (r.id === 'health/no-auth' ? { ...r, outcome: 'FAIL' as const } : r)) },
  ]);
  assert.equal(twice.results.find((r) => r.id === 'health/no-auth')!.outcome, 'FAIL');
});
