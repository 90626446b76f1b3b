/* global document, window, navigator */
// The lists of the settings page (docs/decisions/020-settings-page.md): its
// tokens, pairing requests, webhooks and a webhook's delivery log, each with
// its actions, and the DOM helpers the whole page builds with.
//
// Nothing the server returns is ever parsed as HTML: the DOM is built with
// createElement and textContent (the page's CSP also requires Trusted Types,
// so an HTML sink would throw).
import { act, call, say, showError } from './api.js';

export const $ = (id) => document.getElementById(id);

let tokensById = new Map();
/** The webhook whose delivery log is shown, or null. */
let selectedWebhook = null;
const lastRendered = { pairings: '', webhooks: '', deliveries: '' };

/** Empties every list and forgets what was shown (at sign-out). */
export function clearLists() {
  tokensById = new Map();
  selectedWebhook = null;
  for (const key of Object.keys(lastRendered)) lastRendered[key] = '';
  $('pairings').replaceChildren();
  for (const id of ['tokens', 'webhooks', 'delivery-log']) $(id).tBodies[0].replaceChildren();
  hideNewToken();
  $('deliveries').hidden = true;
}

// ── DOM helpers (text only, never HTML) ─────────────────────────────────────

export function el(tag, attrs = {}, ...children) {
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

export function confirmed(question) {
  return window.confirm(question);
}

// ── Tokens ──────────────────────────────────────────────────────────────────

export async function loadTokens() {
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

export function createToken(event) {
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

export function hideNewToken() {
  $('new-token-value').value = '';
  $('new-token-meta').textContent = '';
  $('new-token').hidden = true;
}

export function copyToken(event) {
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

export async function loadPairings(force) {
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

export async function loadWebhooks(force) {
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

export async function loadDeliveries(force) {
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
