/* global document, window */
// The integration settings page: a thin client of the Control API on the same
// origin (docs/decisions/020-settings-page.md).
//
// This is the page's entry script: signing in and out, loading and polling,
// the settings section and the wiring of the page's controls. api.js talks to
// the Control API (the tab's secret, each call, each user action); lists.js
// shows the tokens, pairing requests, webhooks and delivery log, and holds the
// DOM helpers, which build text only, never HTML (the page's CSP also requires
// Trusted Types, so an HTML sink would throw).
import { act, call, ControlError, forgetSecret, keepSecret, say, showError, signedIn, whenRefused } from './api.js';
import {
  $,
  clearLists,
  confirmed,
  copyToken,
  createToken,
  el,
  hideNewToken,
  loadDeliveries,
  loadPairings,
  loadTokens,
  loadWebhooks,
} from './lists.js';

const POLL_MS = 5000;
const REFUSED = 'The control secret is no longer accepted. Sign in again.';

let settings = null;
/** The startup settings as this page last saw them applied (at sign-in or after its restart); null until known. */
let applied = null;
let pollTimer = null;

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
  keepSecret(candidate);
  await enter();
}

async function enter() {
  $('login').hidden = true;
  $('app').hidden = false;
  $('session').hidden = false;
  $('session-where').textContent = `Signed in to ${window.location.host}`;
  await act(null, null, loadAll);
  if (signedIn()) {
    say('Signed in.');
    startPolling();
  }
}

function signOut(message) {
  forgetSecret();
  stopPolling();
  settings = null;
  applied = null;
  $('targets').replaceChildren();
  clearLists();
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
  await loadDeliveries(true); // of the webhook whose log is shown, if any
}

function startPolling() {
  stopPolling();
  pollTimer = window.setInterval(() => {
    if (!signedIn() || document.hidden) return;
    // Quiet refresh of what changes from outside: a device asks to pair, a client registers a webhook.
    Promise.all([loadPairings(false), loadWebhooks(false), loadDeliveries(false)]).catch((err) => {
      if (err instanceof ControlError && err.status === 401) signOut(REFUSED);
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
  whenRefused(() => signOut(REFUSED));

  if (signedIn()) void enter();
  else $('secret').focus();
}

wire();
