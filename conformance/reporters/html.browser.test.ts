/**
 * The HTML report in a real browser: Debian's chromium driven through
 * playwright-core (no downloaded browser), the report opened from a file://
 * URL as a reader would open it. A synthetic run with every outcome across
 * three areas; checks that the outcome and area filters show exactly the
 * rows they name, that a failure opens to its clause, requirement,
 * expected, actual, curl and seed, that the per-clause table is there and
 * its links open the check, and that the page logs no error. Screenshots go
 * to reports/conformance-html/*.png.
 *
 * Skipped, with the reason, only when /usr/bin/chromium is missing and CI
 * is not set; in CI it always runs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadClauses } from '../catalog.ts';
import type { CheckResult, Outcome, RunReport } from '../runner/result.ts';
import { OUTCOMES } from '../runner/result.ts';
import { htmlReport } from './html.ts';
import { resultBase, sampleExchange, syntheticRun } from '../harness/testing.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../../reports/conformance-html/', import.meta.url));

const skip =
  !existsSync(CHROMIUM) && (process.env.CI ?? '') === ''
    ? `${CHROMIUM} is not installed (apt-get install -y chromium); CI installs it and runs this test`
    : false;

const FAIL_ID = 'meetings/rename-title-max-500';
const FAIL_CLAUSE = 'meetings.rename.title-max-500';
const REQUIREMENT =
  'A rename title of at most 500 characters is accepted, while a longer one is refused with a ' +
  '4xx error and leaves the title unchanged.';
const CURL = `curl -sS -i -X PATCH 'http://127.0.0.1:8420/v1/meetings/m1' -H 'authorization: Bearer $MAS_TOKEN' --data-binary '{"title":"aaaa"}'`;
/** Text that would run as script, or break the page, if the reporter did not escape it. */
const NASTY = `</script><script>window.__injected=1</script> & <b>bold</b> "quotes" 'apos' 🚀`;

function browserRun(): RunReport {
  const base = resultBase();
  const exchange = {
    ...sampleExchange('{"title":"aaaa"}', `{"id":"m1","title":"${NASTY}"}`),
    curl: CURL,
  };
  const pass = (id: string, area: string, clause: string, description: string): CheckResult => ({
    ...base,
    id,
    area,
    clauses: [clause],
    description,
    requirement: 'r',
    outcome: 'PASS',
    exchanges: [exchange],
  });
  const results: CheckResult[] = [
    pass('meetings/list-shape', 'meetings', 'meetings.list.shape', 'GET /v1/meetings answers the list shape'),
    {
      ...base,
      id: FAIL_ID,
      area: 'meetings',
      clauses: [FAIL_CLAUSE],
      description: `PATCH with a 501-character title is refused ${NASTY}`,
      requirement: REQUIREMENT,
      outcome: 'FAIL',
      exchanges: [exchange],
      failures: [
        {
          clause: FAIL_CLAUSE,
          requirement: REQUIREMENT,
          what: 'PATCH /v1/meetings/{id} with a 501-character title',
          expected: ['a 4xx status with the error envelope (422 presumed)'],
          actual: `200 (application/json) {"id":"m1","title":"${NASTY}"}`,
          severity: 'fail',
          exchange: 1,
          curl: CURL,
          property: {
            name: 'title lengths',
            seed: 373913517,
            numRuns: 2,
            failed: true,
            path: '1',
            counterexample: '"aaaa"',
            shrinks: 0,
            replay: `--replay reports/conformance/checks/${FAIL_ID}.json`,
          },
          exchanges: [exchange],
        },
      ],
      properties: [{ name: 'title lengths', seed: 373913517, numRuns: 2, failed: true, path: '1' }],
    },
    {
      ...base,
      id: 'meetings/delete-cascade',
      area: 'meetings',
      clauses: ['meetings.rename.applies'],
      description: 'flaky: failed once, then passed',
      requirement: 'r',
      outcome: 'FLAKY',
      retry: { outcome: 'PASS', durationMs: 5, failures: [] },
    },
    pass('auth/no-token-401', 'auth', 'auth.no-token.401', 'no token answers 401'),
    {
      ...base,
      id: 'auth/scope-four-only',
      area: 'auth',
      clauses: ['auth.scope.four-only'],
      level: 'conflict',
      description: 'an unknown scope is refused',
      requirement: 'r',
      outcome: 'NON_STRICT',
      failures: [
        {
          clause: 'auth.scope.four-only',
          requirement: 'r',
          what: 'POST a token with scope admin',
          expected: ['422 invalid_request'],
          actual: '400',
          severity: 'non_strict',
          alternative: '400 invalid_request',
        },
      ],
    },
    {
      ...base,
      id: 'auth/admin-parses-to-nothing',
      area: 'auth',
      clauses: ['auth.scope.admin-parses-to-nothing'],
      level: 'gap',
      description: 'what admin parses to',
      requirement: 'r',
      outcome: 'INFORMATIONAL',
      observations: [{ clause: 'auth.scope.admin-parses-to-nothing', what: 'scopes', actual: '[]' }],
    },
    pass('webhooks/create-201', 'webhooks', 'webhooks.create.201', 'creating a target answers 201'),
    {
      ...base,
      id: 'webhooks/hmac-secret-once',
      area: 'webhooks',
      clauses: ['webhooks.create.hmac-secret-once'],
      description: 'the secret is shown once',
      requirement: 'r',
      outcome: 'SKIPPED',
      completed: false,
      skipReason: 'needs a receiver: no --receiver-host',
    },
    {
      ...base,
      id: 'webhooks/feature-toggle',
      area: 'webhooks',
      clauses: ['webhooks.feature-toggle'],
      description: 'the feature toggle',
      requirement: 'r',
      outcome: 'ERROR',
      completed: false,
      error: { message: 'Control API PATCH /settings answered 500', curl: 'curl -sS -i http://127.0.0.1:8429/settings' },
    },
  ];
  return syntheticRun(results);
}

describe('the HTML report in a browser', { skip, timeout: 60_000 }, () => {
  const report = browserRun();
  const dir = mkdtempSync(join(tmpdir(), 'conf-html-'));
  const file = join(dir, 'report.html');
  let browser: Browser | null = null;
  let page: Page;
  const problems: string[] = [];
  let shot = 0;

  /** The viewport (the clause table makes the full page ~20 000 px tall), or one section of the page. */
  const screenshot = async (name: string, section?: string): Promise<void> => {
    shot += 1;
    const path = join(SHOTS, `${String(shot).padStart(2, '0')}-${name}.png`);
    if (section === undefined) await page.screenshot({ path });
    else await page.locator('section', { has: page.getByRole('heading', { name: section }) }).screenshot({ path });
  };
  /** The ids of the check rows a reader sees. */
  const visibleChecks = async (): Promise<string[]> => {
    const ids: string[] = [];
    for (const row of await page.locator('tr.check').all())
      if (await row.isVisible()) ids.push((await row.locator('summary code').first().textContent()) ?? '');
    return ids.sort();
  };
  const idsOf = (pred: (r: CheckResult) => boolean): string[] =>
    report.results
      .filter(pred)
      .map((r) => r.id)
      .sort();
  const showOnly = async (outcomes: readonly Outcome[]): Promise<void> => {
    for (const o of OUTCOMES) await page.locator(`input[name=outcome][value=${o}]`).setChecked(outcomes.includes(o));
  };

  before(async () => {
    writeFileSync(file, htmlReport(report, loadClauses()));
    mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(5000);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`);
    });
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.type()} ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (req) => {
      if (!req.url().startsWith('file:')) problems.push(`request to ${req.url()}`);
    });
    await page.goto(pathToFileURL(file).href);
  });

  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens with the failing run’s non-PASS rows, PASS unticked', async () => {
    await page.getByRole('heading', { name: /Checks \(9\)/ }).waitFor();
    assert.equal(await page.title(), 'FAIL · conformance · http://127.0.0.1:8420');
    assert.equal(await page.locator('input[name=outcome][value=PASS]').isChecked(), false);
    assert.deepEqual(
      await visibleChecks(),
      idsOf((r) => r.outcome !== 'PASS'),
    );
    await screenshot('opened');
  });

  it('filters to FAIL: only the failed rows', async () => {
    await showOnly(['FAIL']);
    assert.deepEqual(await visibleChecks(), [FAIL_ID]);
    await showOnly(['FAIL', 'ERROR']);
    assert.deepEqual(
      await visibleChecks(),
      idsOf((r) => r.outcome === 'FAIL' || r.outcome === 'ERROR'),
    );
    await showOnly(OUTCOMES);
    assert.deepEqual(
      await visibleChecks(),
      idsOf(() => true),
    );
  });

  it('filters by area, and by area with outcome and text together', async () => {
    await showOnly(OUTCOMES);
    await page.getByLabel('Area').selectOption('auth');
    assert.deepEqual(
      await visibleChecks(),
      idsOf((r) => r.area === 'auth'),
    );
    await screenshot('area-auth', 'Checks (9)');
    await showOnly(['PASS']);
    assert.deepEqual(await visibleChecks(), ['auth/no-token-401']);
    await page.getByLabel('Area').selectOption('');
    assert.deepEqual(
      await visibleChecks(),
      idsOf((r) => r.outcome === 'PASS'),
    );
    await showOnly(OUTCOMES);
    await page.getByPlaceholder('check id, clause id or text').fill('webhooks.create');
    assert.deepEqual(await visibleChecks(), ['webhooks/create-201', 'webhooks/hmac-secret-once']);
    await page.getByPlaceholder('check id, clause id or text').fill('');
    // the clause table follows the area filter too
    await page.getByLabel('Area').selectOption('webhooks');
    for (const row of await page.locator('tr.clause').all()) {
      if (await row.isVisible()) assert.match((await row.getAttribute('id')) ?? '', /^clause-webhooks\./);
    }
    await page.getByLabel('Area').selectOption('');
  });

  it('opens a failure to its clause, requirement, expected, actual, curl and seed', async () => {
    await showOnly(['FAIL']);
    const row = page.locator('tr.check', { has: page.locator(`details[id="check-${FAIL_ID}"]`) });
    const failure = row.locator('.failure').first();
    assert.equal(await failure.isVisible(), false, 'closed until clicked');
    await row.locator('summary').first().click();
    await failure.waitFor({ state: 'visible' });
    const text = (await failure.innerText()).replace(/\s+/g, ' ');
    assert.ok(text.includes(`Clause ${FAIL_CLAUSE}`), text);
    assert.ok(text.includes(REQUIREMENT), text);
    assert.ok(text.includes('Expected a 4xx status with the error envelope (422 presumed)'), text);
    assert.ok(text.includes('Actual 200 (application/json)'), text);
    assert.ok(text.includes(NASTY), 'the payload shows as text');
    assert.ok(text.includes('seed 373913517 path 1'), text);
    const curl = failure.locator(':scope > pre.curl');
    assert.equal(await curl.isVisible(), true);
    assert.equal(await curl.innerText(), CURL);
    assert.equal(await page.evaluate('window.__injected'), undefined, 'no injected script ran');
    await screenshot('failure-open', 'Checks (9)');
  });

  it('has the per-clause coverage table, linked both ways', async () => {
    await page.getByRole('heading', { name: /^Clauses \(\d+\)$/ }).waitFor();
    const clause = page.locator(`tr.clause[id="clause-${FAIL_CLAUSE}"]`);
    assert.equal(await clause.getAttribute('data-status'), 'FAIL');
    assert.ok((await page.locator('tr.clause[data-status=NOT_COVERED]').count()) > 0, 'uncovered clauses listed');
    assert.ok((await page.locator('tr.clause[data-status=NOT_CHECKABLE]').count()) > 0, 'internal clauses listed');
    await page.getByLabel('Status').selectOption('FAIL');
    const shown: string[] = [];
    for (const row of await page.locator('tr.clause').all()) if (await row.isVisible()) shown.push((await row.getAttribute('id')) ?? '');
    assert.deepEqual(shown, [`clause-${FAIL_CLAUSE}`]);
    await page.getByLabel('Status').selectOption('');
    // The coverage summary per area
    const summary = page.locator('section', { has: page.getByRole('heading', { name: 'Summary' }) });
    assert.match(await summary.innerText(), /checkable clauses have checks/);
    assert.ok((await summary.locator('tbody tr').count()) >= 3);
    // clause → check link: opens the check even when its row was filtered out
    await showOnly(['FAIL']);
    await clause.locator(`a[href="#check-${FAIL_ID}"]`).click();
    await page.locator(`details[id="check-${FAIL_ID}"][open]`).waitFor();
    await showOnly([]);
    await page.locator('tr.clause[id="clause-meetings.rename.applies"] a[href="#check-meetings/delete-cascade"]').click();
    await page.locator('details[id="check-meetings/delete-cascade"][open]').waitFor({ state: 'visible' });
    assert.ok(await page.locator('details[id="check-meetings/delete-cascade"] .detail').isVisible(), 'the check opened and its row shown');
    await screenshot('clauses');
  });

  it('logged no error, opened no dialog, requested nothing outside the file', () => {
    assert.deepEqual(problems, []);
  });
});
