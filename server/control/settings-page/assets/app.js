/* global document, window, sessionStorage, navigator */
// The integration settings page: a thin client of the Control API on the same
// origin (docs/decisions/020-settings-page.md).
//
// The control secret is asked for once and kept in this tab's sessionStorage;
// every call sends it as Authorization: Bearer. Nothing the server returns is
// ever parsed as HTML: the DOM is built with createElement and textContent
// (the page's CSP also requires Trusted Types, so an HTML sink would throw).

const SECRET_KEY = 'mas-control-secret';
const POLL_MS = 5000;

const $ = (id) => document.getElementById(id);

/** The secret of this tab, or null while signed out. */
let secret = sessionStorage.getItem(SECRET_KEY);
let settings = null;
/** The startup settings as this page last saw them applied (at sign-in or after its restart); null until known. */
let applied = null;
let tokensById = new Map();
let selectedWebhook = null;
let pollTimer = null;
const lastRendered = { pairings: '', webhooks: '', deliveries: '' };

class ControlError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// ── Talking to the Control API ──────────────────────────────────────────────

async function call(method, path, body, presented = secret) {
  const headers = { Authorization: `Bearer ${presented}`, Accept: 'application/json' };
  const init = { method, headers, cache: 'no-store', credentials: 'omit', redirect: 'error', referrerPolicy: 'no-referrer' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (res.status === 204) return null;
  const text = await res.text();
  let data;
  try {
    data = text === '' ? null : JSON.parse(text);
  } catch {
    data = null;
  }
  if (!res.ok) {
    const code = data?.error?.code ?? 'error';
    const message = data?.error?.message ?? `HTTP ${res.status}`;
    throw new ControlError(res.status, code, message);
  }
  return data;
}

/** Runs one user action: clears the last error, disables the button meanwhile, reports the outcome. */
async function act(button, done, work) {
  showError('');
  if (button) button.disabled = true;
  try {
    await work();
    if (done) say(done);
  } catch (err) {
    if (err instanceof ControlError && err.status === 401 && secret !== null) {
      signOut('The control secret is no longer accepted. Sign in again.');
      return;
    }
    showError(err instanceof ControlError ? `${err.message} (${err.status} ${err.code})` : `The request failed: ${err.message}`);
  } finally {
    if (button) button.disabled = false;
  }
}

function say(text) {
  $('status').textContent = text;
}

function showError(text) {
  $('error').textContent = text;
}

// ── DOM helpers (text only, never HTML) ─────────────────────────────────────

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'onclick') node.addEventListener('click', value);
    else if (value === true) node.setAttribute(key, '');
    else node.setAttribute(key, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

function confirmed(question) {
  return window.confirm(question);
}

// ── Signing in and out ──────────────────────────────────────────────────────

async function signIn(event) {
  event.preventDefault();
  const input = $('secret');
  const candidate = input.value.trim();
  $('login-error').textContent = '';
  if (candidate === '') {
    $('login-error').textContent = 'Enter the control secret.';
    input.focus();
    return;
  }
  const button = event.submitter ?? null;
  if (button) button.disabled = true;
  try {
    await call('GET', '/control', undefined, candidate);
  } catch (err) {
    input.select();
    $('login-error').textContent =
      err instanceof ControlError && err.status === 401
        ? 'The control secret is not recognized.'
        : `Cannot reach the Control API: ${err.message}`;
    return;
  } finally {
    if (button) button.disabled = false;
  }
  input.value = '';
  secret = candidate;
  sessionStorage.setItem(SECRET_KEY, secret);
  await enter();
}

async function enter() {
  $('login').hidden = true;
  $('app').hidden = false;
  $('session').hidden = false;
  $('session-where').textContent = `Signed in to ${window.location.host}`;
  await act(null, null, loadAll);
  if (secret !== null) {
    say('Signed in.');
    startPolling();
  }
}

function signOut(message) {
  secret = null;
  sessionStorage.removeItem(SECRET_KEY);
  stopPolling();
  settings = null;
  applied = null;
  tokensById = new Map();
  selectedWebhook = null;
  for (const key of Object.keys(lastRendered)) lastRendered[key] = '';
  for (const id of ['targets', 'pairings']) $(id).replaceChildren();
  for (const id of ['tokens', 'webhooks', 'delivery-log']) $(id).tBodies[0].replaceChildren();
  hideNewToken();
  $('deliveries').hidden = true;
  $('restart-needed').hidden = true;
  $('app').hidden = true;
  $('session').hidden = true;
  $('login').hidden = false;
  showError('');
  say(message ? '' : 'Signed out.');
  $('login-error').textContent = message ?? '';
  $('secret').focus();
}

// ── Loading ─────────────────────────────────────────────────────────────────

async function loadAll() {
  await loadSettings();
  await loadTokens();
  await Promise.all([loadPairings(true), loadWebhooks(true)]);
  if (selectedWebhook !== null) await loadDeliveries(true);
}

function startPolling() {
  stopPolling();
  pollTimer = window.setInterval(() => {
    if (secret === null || document.hidden) return;
    // Quiet refresh of what changes from outside: a device asks to pair, a client registers a webhook.
    Promise.all([loadPairings(false), loadWebhooks(false), selectedWebhook === null ? null : loadDeliveries(false)]).catch((err) => {
      if (err instanceof ControlError && err.status === 401) signOut('The control secret is no longer accepted. Sign in again.');
    });
  }, POLL_MS);
}

function stopPolling() {
  if (pollTimer !== null) window.clearInterval(pollTimer);
  pollTimer = null;
}

// ── Settings ────────────────────────────────────────────────────────────────

async function loadSettings() {
  renderSettings(await call('GET', '/control/settings'));
}

function renderSettings(next) {
  settings = next;
  applied ??= startupPart(next);
  showRestartNeeded();
  for (const input of document.querySelectorAll('[data-setting]')) {
    const key = input.dataset.setting;
    if (input.type === 'checkbox') input.checked = Boolean(settings[key]);
    else input.value = String(settings[key]);
  }
  const list = $('targets');
  list.replaceChildren();
  if (settings.local_webhook_targets.length === 0) {
    list.append(el('li', { class: 'empty', text: 'No local targets: loopback and private destinations are refused.' }));
  }
  for (const target of settings.local_webhook_targets) {
    list.append(
      el(
        'li',
        {},
        el('code', { text: target }),
        ' ',
        el('button', {
          type: 'button',
          'aria-label': `Remove target ${target}`,
          text: 'Remove',
          onclick: (e) => removeTarget(e.currentTarget, target),
        }),
      ),
    );
  }
}

/** The settings read only at startup (CONTROL.md, Settings): they apply after a restart. */
function startupPart(s) {
  return { lan_enabled: s.lan_enabled, local_webhook_targets: [...s.local_webhook_targets] };
}

/** Names what changed since the application last started (as far as this page knows), or hides the notice. */
function showRestartNeeded() {
  const changed = [];
  if (settings !== null && applied !== null) {
    if (settings.lan_enabled !== applied.lan_enabled) changed.push('LAN access');
    if (JSON.stringify(settings.local_webhook_targets) !== JSON.stringify(applied.local_webhook_targets))
      changed.push('local webhook targets');
  }
  $('restart-needed').textContent =
    changed.length === 0 ? '' : `Saved, not yet in effect: ${changed.join(' and ')}. Restart the application for the change to apply.`;
  $('restart-needed').hidden = changed.length === 0;
}

function changeSetting(event) {
  const input = event.currentTarget;
  const key = input.dataset.setting;
  const value = input.type === 'checkbox' ? input.checked : input.value;
  const label = input.type === 'checkbox' ? `${labelOf(input)} ${value ? 'on' : 'off'}` : `${labelOf(input)}: ${value}`;
  void act(input, null, async () => {
    try {
      renderSettings(await call('PATCH', '/control/settings', { [key]: value }));
    } catch (err) {
      if (settings !== null) renderSettings(settings); // show what is really stored
      throw err;
    }
    say(input.dataset.restart === 'true' ? `${label}. It applies after restart.` : `${label}.`);
  });
}

function labelOf(input) {
  const label = input.labels?.[0];
  return (label?.textContent ?? input.id).trim();
}

function addTarget(event) {
  event.preventDefault();
  const input = $('target');
  const target = input.value.trim();
  if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(target)) {
    showError('A target is host:port, for example 127.0.0.1:9000 or [::1]:9000.');
    input.focus();
    return;
  }
  void act(event.submitter ?? null, null, async () => {
    const current = settings?.local_webhook_targets ?? [];
    if (current.includes(target)) {
      say(`${target} is already on the list.`);
      return;
    }
    renderSettings(await call('PATCH', '/control/settings', { local_webhook_targets: [...current, target] }));
    input.value = '';
    say(`Added ${target}. It applies after restart.`);
  });
}

function removeTarget(button, target) {
  void act(button, `Removed ${target}. It applies after restart.`, async () => {
    const next = (settings?.local_webhook_targets ?? []).filter((t) => t !== target);
    renderSettings(await call('PATCH', '/control/settings', { local_webhook_targets: next }));
  });
}

function restart(event) {
  if (
    !confirmed(
      'Restart the application now? Open event streams close, undelivered webhook events and pending pairing requests are dropped.',
    )
  )
    return;
  void act(event.currentTarget, 'The application restarted.', async () => {
    await call('POST', '/control/restart');
    applied = null; // what is stored now is what the restarted application read
    await loadAll();
  });
}

// ── Tokens ──────────────────────────────────────────────────────────────────

async function loadTokens() {
  const { tokens } = await call('GET', '/control/tokens');
  tokensById = new Map(tokens.map((t) => [t.id, t]));
  const body = $('tokens').tBodies[0];
  body.replaceChildren();
  if (tokens.length === 0) body.append(el('tr', {}, el('td', { colspan: 7, class: 'empty', text: 'No tokens.' })));
  for (const t of tokens) {
    const toggle = el('button', {
      type: 'button',
      'aria-label': `${t.enabled ? 'Disable' : 'Enable'} token ${t.name}`,
      text: t.enabled ? 'Disable' : 'Enable',
      onclick: (e) => setTokenEnabled(e.currentTarget, t, !t.enabled),
    });
    const revoke = el('button', {
      type: 'button',
      class: 'danger',
      'aria-label': `Revoke token ${t.name}`,
      text: 'Revoke',
      onclick: (e) => revokeToken(e.currentTarget, t),
    });
    body.append(
      el(
        'tr',
        { 'data-token-id': t.id },
        el('th', { scope: 'row' }, t.name, el('br'), el('small', { class: 'id', text: t.id })),
        el('td', { text: t.scopes.length === 0 ? '(none)' : t.scopes.join(', ') }),
        el('td', { text: t.origin }),
        el('td', { text: t.kind }),
        el('td', {}, el('span', { class: t.enabled ? 'state ok' : 'state off', text: t.enabled ? 'Enabled' : 'Disabled' })),
        el('td', { text: when(t.created_at) }),
        el('td', { class: 'actions' }, toggle, revoke),
      ),
    );
  }
}

function createToken(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const name = $('token-name').value.trim();
  const scopes = [...form.querySelectorAll('input[name="scope"]:checked')].map((i) => i.value);
  const body = { scopes, origin: $('token-origin').value, kind: $('token-kind').value };
  if (name !== '') body.name = name;
  void act(event.submitter ?? null, null, async () => {
    const created = await call('POST', '/control/tokens', body);
    const shown = $('new-token-value');
    shown.value = created.token;
    $('new-token-meta').textContent =
      `${name || 'control'} · ${created.token_id} · scopes: ${created.scopes.length === 0 ? '(none)' : created.scopes.join(', ')}`;
    $('new-token').hidden = false;
    $('token-name').value = '';
    shown.focus();
    shown.select();
    say('Token created. Copy it now: it is shown only once.');
    await loadTokens();
  });
}

function hideNewToken() {
  $('new-token-value').value = '';
  $('new-token-meta').textContent = '';
  $('new-token').hidden = true;
}

function copyToken(event) {
  const value = $('new-token-value').value;
  void act(event.currentTarget, 'Token copied to the clipboard.', async () => {
    await navigator.clipboard.writeText(value);
  });
}

function setTokenEnabled(button, token, enabled) {
  void act(button, `Token ${token.name} ${enabled ? 'enabled' : 'disabled'}.`, async () => {
    await call('PATCH', `/control/tokens/${encodeURIComponent(token.id)}`, { enabled });
    await loadTokens();
  });
}

function revokeToken(button, token) {
  if (!confirmed(`Revoke the token "${token.name}"? Its webhooks are deleted with it, and it cannot be undone.`)) return;
  void act(button, `Token ${token.name} revoked.`, async () => {
    await call('DELETE', `/control/tokens/${encodeURIComponent(token.id)}`);
    await Promise.all([loadTokens(), loadWebhooks(true)]);
  });
}

// ── Pairing requests ────────────────────────────────────────────────────────

async function loadPairings(force) {
  const { pairings } = await call('GET', '/control/pairings');
  const key = JSON.stringify(pairings);
  if (!force && key === lastRendered.pairings) return;
  lastRendered.pairings = key;
  // Keep what the person already unticked on requests still pending.
  const unticked = new Set(
    [...document.querySelectorAll('#pairings input[type="checkbox"]:not(:checked)')].map((i) => `${i.dataset.pairing} ${i.value}`),
  );
  const list = $('pairings');
  list.replaceChildren();
  if (pairings.length === 0) list.append(el('li', { class: 'empty', text: 'No pairing requests.' }));
  for (const p of pairings) {
    const item = el(
      'li',
      { class: `pairing ${p.state}`, 'data-pairing-id': p.id, 'aria-label': `Pairing request from ${p.client_name}` },
      el('strong', { text: p.client_name }),
      ' ',
      el('span', { class: `state ${p.state === 'approved' ? 'ok' : p.state === 'pending' ? 'wait' : 'off'}`, text: p.state }),
      el('p', { class: 'hint', text: `Asked ${when(p.created_at)} for: ${p.scopes.join(', ')}` }),
    );
    if (p.state === 'pending') {
      const fieldset = el('fieldset', {}, el('legend', { text: `Scopes to grant to ${p.client_name}` }));
      for (const scope of p.scopes) {
        fieldset.append(
          el(
            'label',
            {},
            el('input', { type: 'checkbox', value: scope, 'data-pairing': p.id, checked: !unticked.has(`${p.id} ${scope}`) }),
            ` ${scope}`,
          ),
        );
      }
      item.append(
        fieldset,
        el(
          'div',
          { class: 'actions' },
          el('button', {
            type: 'button',
            'aria-label': `Approve ${p.client_name}`,
            text: 'Approve',
            onclick: (e) => approvePairing(e.currentTarget, p, fieldset),
          }),
          el('button', {
            type: 'button',
            class: 'danger',
            'aria-label': `Reject ${p.client_name}`,
            text: 'Reject',
            onclick: (e) => rejectPairing(e.currentTarget, p),
          }),
        ),
        el('p', { class: 'hint', text: `Expires ${when(p.expires_at)}.` }),
      );
    } else if (p.state === 'approved') {
      item.append(el('p', { text: `Granted ${(p.granted_scopes ?? []).join(', ')} (token ${p.token_id}).` }));
    }
    list.append(item);
  }
  const pending = pairings.filter((p) => p.state === 'pending').length;
  $('pairings-heading').textContent = pending === 0 ? 'Pairing requests' : `Pairing requests (${pending} pending)`;
}

function approvePairing(button, pairing, fieldset) {
  const scopes = [...fieldset.querySelectorAll('input:checked')].map((i) => i.value);
  if (scopes.length === 0) {
    showError(`Tick at least one scope to approve ${pairing.client_name}, or reject the request.`);
    return;
  }
  void act(
    button,
    `Approved ${pairing.client_name} with ${scopes.join(', ')}. The device collects its token on its next poll.`,
    async () => {
      await call('POST', `/control/pairings/${encodeURIComponent(pairing.id)}/approve`, { scopes });
      await Promise.all([loadPairings(true), loadTokens()]);
    },
  );
}

function rejectPairing(button, pairing) {
  void act(button, `Rejected ${pairing.client_name}.`, async () => {
    await call('POST', `/control/pairings/${encodeURIComponent(pairing.id)}/reject`);
    await loadPairings(true);
  });
}

// ── Webhooks and their delivery log ─────────────────────────────────────────

async function loadWebhooks(force) {
  const { webhooks } = await call('GET', '/control/webhooks');
  const key = JSON.stringify(webhooks);
  if (!force && key === lastRendered.webhooks) return;
  lastRendered.webhooks = key;
  const body = $('webhooks').tBodies[0];
  body.replaceChildren();
  if (webhooks.length === 0) body.append(el('tr', {}, el('td', { colspan: 6, class: 'empty', text: 'No webhooks.' })));
  for (const w of webhooks) {
    const owner = tokensById.get(w.owner_token_id);
    const actions = el('td', { class: 'actions' });
    if (w.approval_state === 'pending') {
      actions.append(
        el('button', {
          type: 'button',
          'aria-label': `Allow webhook ${w.url}`,
          text: 'Allow',
          onclick: (e) => setApproval(e.currentTarget, w, 'allowed'),
        }),
        el('button', {
          type: 'button',
          class: 'danger',
          'aria-label': `Deny webhook ${w.url}`,
          text: 'Deny',
          onclick: (e) => setApproval(e.currentTarget, w, 'denied'),
        }),
      );
    } else if (w.approval_state === 'allowed') {
      actions.append(
        el('button', {
          type: 'button',
          class: 'danger',
          'aria-label': `Revoke webhook ${w.url}`,
          text: 'Revoke',
          onclick: (e) => setApproval(e.currentTarget, w, 'denied'),
        }),
      );
    }
    actions.append(
      el('button', {
        type: 'button',
        'aria-label': `Show deliveries of ${w.url}`,
        text: 'Deliveries',
        onclick: (e) => showDeliveries(e.currentTarget, w),
      }),
    );
    body.append(
      el(
        'tr',
        { 'data-webhook-id': w.id, class: selectedWebhook?.id === w.id ? 'selected' : undefined },
        el('th', { scope: 'row' }, el('span', { class: 'url', text: w.url }), el('br'), el('small', { class: 'id', text: w.id })),
        el('td', { text: w.events.join(', ') }),
        el('td', { text: owner ? owner.name : w.owner_token_id }),
        el('td', { text: w.delivery_mode }),
        el(
          'td',
          {},
          el('span', {
            class: `state ${w.approval_state === 'allowed' ? 'ok' : w.approval_state === 'pending' ? 'wait' : 'off'}`,
            text: w.approval_state,
          }),
        ),
        actions,
      ),
    );
  }
  if (selectedWebhook !== null) {
    const still = webhooks.find((w) => w.id === selectedWebhook.id);
    if (still === undefined) {
      selectedWebhook = null;
      $('deliveries').hidden = true;
    } else {
      selectedWebhook = still;
    }
  }
}

function setApproval(button, webhook, state) {
  if (state === 'denied') {
    const verb = webhook.approval_state === 'allowed' ? 'Revoke' : 'Deny';
    if (!confirmed(`${verb} the webhook to ${webhook.url}? Denied is final: it will never deliver again.`)) return;
  }
  const done = state === 'allowed' ? `Allowed the webhook to ${webhook.url}.` : `Denied the webhook to ${webhook.url}.`;
  void act(button, done, async () => {
    await call('POST', `/control/webhooks/${encodeURIComponent(webhook.id)}/approval`, { state });
    await loadWebhooks(true);
  });
}

function showDeliveries(button, webhook) {
  selectedWebhook = webhook;
  lastRendered.deliveries = '';
  void act(button, null, async () => {
    await loadDeliveries(true);
    await loadWebhooks(true);
    $('deliveries').hidden = false;
    $('deliveries-heading').focus();
  });
}

async function loadDeliveries(force) {
  if (selectedWebhook === null) return;
  const webhook = selectedWebhook;
  const { deliveries } = await call('GET', `/control/webhooks/${encodeURIComponent(webhook.id)}/deliveries`);
  const key = JSON.stringify([webhook.id, deliveries]);
  if (!force && key === lastRendered.deliveries) return;
  lastRendered.deliveries = key;
  $('deliveries-heading').textContent = `Delivery log of ${webhook.url}`;
  const body = $('delivery-log').tBodies[0];
  body.replaceChildren();
  if (deliveries.length === 0) body.append(el('tr', {}, el('td', { colspan: 6, class: 'empty', text: 'No deliveries yet.' })));
  for (const d of deliveries) {
    body.append(
      el(
        'tr',
        {},
        el('td', { text: when(d.occurred_at) }),
        el('td', { text: d.event }),
        el('td', { text: d.attempt ?? '' }),
        el(
          'td',
          {},
          el('span', { class: `state ${d.delivered ? 'ok' : 'off'}`, text: d.delivered ? 'delivered' : (d.reason ?? 'failed') }),
        ),
        el('td', { text: d.status_code ?? '' }),
        el('td', { text: d.detail ?? '' }),
      ),
    );
  }
}

// ── Wiring ──────────────────────────────────────────────────────────────────

function wire() {
  $('login-form').addEventListener('submit', (e) => void signIn(e));
  $('sign-out').addEventListener('click', () => signOut(null));
  for (const input of document.querySelectorAll('[data-setting]')) input.addEventListener('change', changeSetting);
  $('target-form').addEventListener('submit', addTarget);
  $('restart').addEventListener('click', restart);
  $('token-form').addEventListener('submit', createToken);
  $('copy-token').addEventListener('click', copyToken);
  $('dismiss-token').addEventListener('click', hideNewToken);
  $('refresh-pairings').addEventListener(
    'click',
    (e) => void act(e.currentTarget, 'Pairing requests refreshed.', () => loadPairings(true)),
  );
  $('refresh-webhooks').addEventListener(
    'click',
    (e) =>
      void act(e.currentTarget, 'Webhooks refreshed.', async () => {
        await loadTokens();
        await loadWebhooks(true);
      }),
  );
  $('refresh-deliveries').addEventListener(
    'click',
    (e) => void act(e.currentTarget, 'Delivery log refreshed.', () => loadDeliveries(true)),
  );
  $('deliveries-heading').tabIndex = -1;

  if (secret !== null) void enter();
  else $('secret').focus();
}

wire();
