/**
 * A self-contained HTML report (no external assets): counts, coverage per
 * area, the checks with filters by outcome, area and text, each expandable
 * to its failures (clause, requirement, expected, actual, curl, seed) and
 * its exchanges; and the per-clause table. Works without JavaScript (all
 * rows shown); the script filters (applying the boxes' initial state, so a
 * failing run opens without its PASS rows) and opens the check or clause a
 * #check-… / #clause-… link points at, even when a filter hid its row.
 */
import type { Clause } from '../catalog.ts';
import type { Delivery, Exchange } from '../harness/exchange.ts';
import type { CheckResult, Failure, RunReport } from '../runner/result.ts';
import { OUTCOMES, clauseRows, countOutcomes, coverage } from '../runner/result.ts';

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const BODY_SHOWN = 4096;
const EXCHANGES_SHOWN_ON_PASS = 20;

function clip(text: string, max = BODY_SHOWN): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters in the JSON report)` : text;
}

function failureHtml(f: Failure): string {
  const p = f.property;
  return `<div class="failure ${f.severity}">
<div><b>Clause</b> <code>${esc(f.clause)}</code>${f.severity === 'non_strict' ? ' <span class="tag NON_STRICT">non-strict</span>' : ''}</div>
<blockquote>${esc(f.requirement)}</blockquote>
<div><b>What</b> ${esc(f.what)}</div>
<div><b>Expected</b><ul>${f.expected.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></div>
<div><b>Actual</b><pre>${esc(clip(f.actual, 2000))}</pre></div>
${f.alternative === undefined ? '' : `<div><b>Alternative observed</b> ${esc(f.alternative)}</div>`}
${p === undefined ? '' : `<div><b>Property</b> <code>${esc(p.name)}</code> seed <code>${p.seed}</code>${p.path === undefined ? '' : ` path <code>${esc(p.path)}</code>`} · ${p.numRuns} runs · ${p.shrinks ?? 0} shrinks${p.counterexample === undefined ? '' : `<pre>${esc(clip(p.counterexample, 1500))}</pre>`}${p.replay === undefined ? '' : `<div>replay: <code>${esc(p.replay)}</code></div>`}</div>`}
${f.curl === undefined ? '' : `<pre class="curl">${esc(f.curl)}</pre>`}
${f.exchanges === undefined || f.exchanges.length === 0 ? '' : `<details><summary>Exchanges of the counterexample (${f.exchanges.length})</summary>${f.exchanges.map(exchangeHtml).join('')}</details>`}
</div>`;
}

function headersText(h: Record<string, string>): string {
  return Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

function exchangeHtml(x: Exchange): string {
  const res = x.response;
  const line = `#${x.seq} ${x.channel === 'api' ? '' : `[${x.channel}] `}${x.request.method} ${x.request.url} → ${res === undefined ? esc(x.error ?? 'no response') : res.status} (${x.durationMs} ms)${x.label === undefined ? '' : ` · ${x.label}`}${x.failed === undefined ? '' : ` · the verdict of ${x.failed.join(', ')} rests on this`}`;
  const sse =
    x.sse === undefined
      ? ''
      : `<div><b>SSE</b> (${esc(x.sse.end)}, ${x.sse.closedByServer ? 'closed by the server' : 'not closed by the server'} at ${x.sse.endedAtMs} ms)<pre>${esc(
          x.sse.frames
            .map(
              (f) =>
                `+${f.atMs}ms ${f.kind}${f.event === undefined ? '' : ` event=${f.event}`}${f.data === undefined ? '' : ` data=${f.data}`}${f.text === undefined ? '' : ` ${f.text}`}`,
            )
            .join('\n'),
        )}</pre></div>`;
  return `<details class="exchange"><summary>${esc(line)}</summary>
<pre>${esc(`${x.request.method} ${x.request.url}\n${headersText(x.request.headers)}${x.request.body === undefined ? '' : `\n\n${clip(x.request.body)}`}`)}</pre>
${res === undefined ? `<pre>${esc(x.error ?? '')}</pre>` : `<pre>${esc(`HTTP ${res.status} ${res.statusText}\n${headersText(res.headers)}\n\n${clip(res.body)}`)}</pre>`}
${sse}
${x.notes === undefined ? '' : `<div>${x.notes.map(esc).join('<br>')}</div>`}
<pre class="curl">${esc(x.curl)}</pre>
</details>`;
}

function deliveryHtml(d: Delivery): string {
  return `<details class="exchange"><summary>${esc(`delivery #${d.seq} ${d.method} ${d.path} at ${new Date(d.receivedAt).toISOString()} → answered ${d.answered}`)}</summary><pre>${esc(`${headersText(d.headers)}\n\n${clip(d.body)}`)}</pre></details>`;
}

function checkHtml(r: CheckResult): string {
  const pass = r.outcome === 'PASS' || r.outcome === 'INFORMATIONAL' || r.outcome === 'SKIPPED';
  const exchanges = pass ? r.exchanges.slice(0, EXCHANGES_SHOWN_ON_PASS) : r.exchanges;
  const hidden = r.exchanges.length - exchanges.length + r.exchangesOmitted;
  const search = `${r.id} ${r.clauses.join(' ')} ${r.description}`.toLowerCase();
  return `<tr class="check" data-outcome="${r.outcome}" data-area="${esc(r.area)}" data-search="${esc(search)}">
<td><span class="tag ${r.outcome}">${r.outcome}</span></td>
<td><details id="check-${esc(r.id)}"><summary><code>${esc(r.id)}</code> ${esc(r.description)}</summary>
<div class="detail">
<div><b>Clauses</b> ${r.clauses.map((c) => `<a href="#clause-${esc(c)}"><code>${esc(c)}</code></a>`).join(' ')} · level ${r.level}${r.needs.length === 0 ? '' : ` · needs ${r.needs.map(esc).join(', ')}`}</div>
<blockquote>${esc(r.requirement)}</blockquote>
${r.skipReason === undefined ? '' : `<div class="skip"><b>Skipped</b>: ${esc(r.skipReason)}</div>`}
${r.error === undefined ? '' : `<div class="failure fail"><b>Error</b>: ${esc(r.error.message)}${r.error.curl === undefined ? '' : `<pre class="curl">${esc(r.error.curl)}</pre>`}${r.error.stack === undefined ? '' : `<pre>${esc(r.error.stack)}</pre>`}</div>`}
${r.failures.map(failureHtml).join('\n')}
${r.retry === undefined ? '' : `<div><b>Second run</b>: <span class="tag ${r.retry.outcome}">${r.retry.outcome}</span>${r.retry.error === undefined ? '' : ` ${esc(r.retry.error.message)}`}</div>`}
${r.observations.length === 0 ? '' : `<div><b>Observations</b><ul>${r.observations.map((o) => `<li><code>${esc(o.clause)}</code> ${esc(o.what)}: ${esc(clip(o.actual, 1500))}</li>`).join('')}</ul></div>`}
${r.notes.length === 0 ? '' : `<div><b>Notes</b><ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></div>`}
${r.properties.length === 0 ? '' : `<div><b>Properties</b><ul>${r.properties.map((p) => `<li><code>${esc(p.name)}</code> seed ${p.seed}, ${p.numRuns} runs${p.failed ? ' — failed' : ''}</li>`).join('')}</ul></div>`}
${exchanges.length === 0 ? '' : `<div><b>Exchanges</b>${exchanges.map(exchangeHtml).join('')}${hidden > 0 ? `<div class="muted">${hidden} more in the JSON report</div>` : ''}</div>`}
${r.deliveries.length === 0 ? '' : `<div><b>Deliveries</b>${r.deliveries.map(deliveryHtml).join('')}</div>`}
</div></details></td>
<td class="num">${r.durationMs} ms</td>
</tr>`;
}

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{background:#1d232a;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
main{padding:16px 24px}section{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:12px 16px;margin-bottom:16px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eef0f2;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5;position:sticky;top:0}.num{text-align:right;white-space:nowrap}
.tag{display:inline-block;padding:1px 6px;border-radius:4px;font-size:12px;font-weight:600;white-space:nowrap}
.PASS{background:#d8f5dd;color:#135d22}.FAIL{background:#fbd9d9;color:#8a1414}.ERROR{background:#f5d0f0;color:#6d136a}
.NON_STRICT{background:#fff1c2;color:#6b5200}.INFORMATIONAL{background:#dbeafe;color:#1e3a8a}.SKIPPED{background:#eceff3;color:#4b5563}
.FLAKY{background:#ffe4cc;color:#7c3d00}.NOT_RUN,.NOT_CHECKABLE{background:#f3f4f6;color:#6b7280}.NOT_COVERED{background:#fde68a;color:#78350f}
pre{background:#f6f8fa;border:1px solid #e5e7eb;padding:6px 8px;overflow:auto;white-space:pre-wrap;word-break:break-all;max-height:420px}
pre.curl{background:#111827;color:#e5e7eb}blockquote{margin:6px 0;padding:4px 10px;border-left:3px solid #9ca3af;color:#374151;background:#fafafa}
.failure{border-left:4px solid #dc2626;padding:4px 10px;margin:8px 0;background:#fffafa}.failure.non_strict{border-color:#d4a000;background:#fffdf3}
.detail{padding:6px 0 6px 12px}.muted{color:#6b7280}.filters label{margin-right:10px;white-space:nowrap}
.filters input[type=search]{padding:4px 8px;min-width:260px}details.exchange summary{font-family:ui-monospace,monospace;font-size:12px}
.chips span{margin-right:8px}`;

const SCRIPT = `
(function(){
  var boxes=[].slice.call(document.querySelectorAll('input[name=outcome]'));
  var area=document.getElementById('area');var q=document.getElementById('q');
  function apply(){
    var on={};boxes.forEach(function(b){on[b.value]=b.checked;});
    var a=area.value;var t=q.value.toLowerCase();
    [].slice.call(document.querySelectorAll('tr.check')).forEach(function(tr){
      var ok=on[tr.dataset.outcome]&&(!a||tr.dataset.area===a)&&(!t||tr.dataset.search.indexOf(t)>=0);
      tr.style.display=ok?'':'none';
    });
    var cs=document.getElementById('cstatus').value;
    [].slice.call(document.querySelectorAll('tr.clause')).forEach(function(tr){
      var ok=(!cs||tr.dataset.status===cs)&&(!a||tr.dataset.area===a)&&(!t||tr.dataset.search.indexOf(t)>=0);
      tr.style.display=ok?'':'none';
    });
  }
  function reveal(){
    if(location.hash.indexOf('#check-')!==0&&location.hash.indexOf('#clause-')!==0)return;
    var el=document.getElementById(decodeURIComponent(location.hash.slice(1)));if(!el)return;
    var tr=el.closest('tr');if(tr)tr.style.display='';
    if(el.tagName==='DETAILS')el.open=true;
    el.scrollIntoView();
  }
  boxes.forEach(function(b){b.addEventListener('change',apply);});
  area.addEventListener('change',apply);q.addEventListener('input',apply);
  document.getElementById('cstatus').addEventListener('change',apply);
  window.addEventListener('hashchange',reveal);
  apply();reveal();
})();`;

export function htmlReport(report: RunReport, catalog: readonly Clause[]): string {
  const counts = countOutcomes(report.results);
  const rows = clauseRows(catalog, report);
  const cov = coverage(rows);
  const failing = counts.FAIL + counts.ERROR;
  const areas = [...new Set([...report.results.map((r) => r.area), ...rows.map((r) => r.id.split('.')[0]!)])].sort();
  const statuses = [...new Set(rows.map((r) => r.status))];
  const m = report.meta;
  const ms = Date.parse(m.finishedAt) - Date.parse(m.startedAt);
  const defaultOn = (o: string): boolean => o !== 'PASS' || failing === 0;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${failing === 0 ? 'PASS' : 'FAIL'} · conformance · ${esc(m.target.baseUrl)}</title>
<style>${CSS}</style></head><body>
<header><h1>${failing === 0 ? '✅' : '❌'} Meeting Automation Service conformance</h1>
<div>Target <code>${esc(m.target.baseUrl)}</code>${m.target.controlUrl === undefined ? ' · no Control API' : ` · Control API <code>${esc(m.target.controlUrl)}</code> (${esc((m.target.capabilities ?? []).join(', '))})`} · seed <code>${m.seed}</code> · ${m.runs} runs/property${m.shard === undefined ? '' : ` · shard ${esc(m.shard)}`}${m.mergedFrom === undefined ? '' : ` · merged from ${m.mergedFrom.length} parts`} · ${esc(m.startedAt)} · ${(ms / 1000).toFixed(1)} s · ${esc(m.suite)} ${esc(m.suiteVersion)} on Node ${esc(m.nodeVersion)}</div>
${m.placeholders.length === 0 ? '' : `<div class="muted">curl lines use ${m.placeholders.map((p) => `<code>${esc(p)}</code>`).join(', ')} in place of secrets.</div>`}
</header>
<main>
<section><h2>Summary</h2><div class="chips">${OUTCOMES.map((o) => `<span class="tag ${o}">${o} ${counts[o]}</span>`).join('')}</div>
<p><b>${cov.covered}/${cov.checkable}</b> checkable clauses have checks; <b>${cov.exercised}/${cov.checkable}</b> were exercised in this run; ${cov.internal} cannot be observed over HTTP.</p>
<table><thead><tr><th>Area</th><th class="num">Checkable</th><th class="num">Covered</th><th class="num">Exercised</th><th class="num">Pass</th><th class="num">Fail</th></tr></thead><tbody>
${cov.byArea.map((a) => `<tr><td>${esc(a.area)}</td><td class="num">${a.checkable}</td><td class="num">${a.covered}</td><td class="num">${a.exercised}</td><td class="num">${a.pass}</td><td class="num">${a.fail}</td></tr>`).join('\n')}
</tbody></table></section>
<section class="filters"><b>Filter</b>
${OUTCOMES.map((o) => `<label><input type="checkbox" name="outcome" value="${o}"${defaultOn(o) ? ' checked' : ''}> ${o} (${counts[o]})</label>`).join('')}
<label>Area <select id="area"><option value="">all</option>${areas.map((a) => `<option>${esc(a)}</option>`).join('')}</select></label>
<input id="q" type="search" placeholder="check id, clause id or text">
</section>
<section><h2>Checks (${report.results.length})</h2>
<table><thead><tr><th>Outcome</th><th>Check</th><th class="num">Time</th></tr></thead><tbody>
${report.results.map(checkHtml).join('\n')}
</tbody></table></section>
<section><h2>Clauses (${rows.length})</h2>
<label>Status <select id="cstatus"><option value="">all</option>${statuses.map((s) => `<option>${s}</option>`).join('')}</select></label>
<table><thead><tr><th>Status</th><th>Clause</th><th>Kind</th><th>Observe</th><th>Statement</th><th>Checks</th></tr></thead><tbody>
${rows
  .map(
    (
      r,
    ) => `<tr class="clause" id="clause-${esc(r.id)}" data-status="${r.status}" data-area="${esc(r.id.split('.')[0]!)}" data-search="${esc(`${r.id} ${r.statement}`.toLowerCase())}">
<td><span class="tag ${r.status}">${r.status}</span></td><td><code>${esc(r.id)}</code></td><td>${r.kind}</td><td>${r.observe}</td><td>${esc(r.statement)}</td>
<td>${r.checks
      .map((c) => {
        const res = r.results.find((x) => x.check === c);
        return `<a href="#check-${esc(c)}"><code>${esc(c)}</code></a>${res === undefined ? '' : ` <span class="tag ${res.outcome}">${res.outcome}</span>`}`;
      })
      .join('<br>')}</td></tr>`,
  )
  .join('\n')}
</tbody></table></section>
</main>
<script>${SCRIPT}</script>
</body></html>
`;
}
