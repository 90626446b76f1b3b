/* global document, sessionStorage */
// Talking to the Control API from the settings page (docs/decisions/020-settings-page.md):
// the control secret of this tab, each call with it, and one user action at a
// time with its outcome on the page's status and error lines.
//
// The secret is asked for once and kept in this tab's sessionStorage; every
// call sends it as Authorization: Bearer.

const SECRET_KEY = 'mas-control-secret';

/** The secret of this tab, or null while signed out. */
let secret = sessionStorage.getItem(SECRET_KEY);
/** What a secret the Control API no longer accepts leads to (app.js signs out). */
let onRefused = () => {};

export function signedIn() {
  return secret !== null;
}

/** Keeps an accepted secret for the rest of this tab's session. */
export function keepSecret(candidate) {
  secret = candidate;
  sessionStorage.setItem(SECRET_KEY, secret);
}

export function forgetSecret() {
  secret = null;
  sessionStorage.removeItem(SECRET_KEY);
}

/** Sets what act does when the Control API refuses the kept secret. */
export function whenRefused(handler) {
  onRefused = handler;
}

export class ControlError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function call(method, path, body, presented = secret) {
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
export async function act(button, done, work) {
  showError('');
  if (button) button.disabled = true;
  try {
    await work();
    if (done) say(done);
  } catch (err) {
    if (err instanceof ControlError && err.status === 401 && secret !== null) {
      onRefused();
      return;
    }
    showError(err instanceof ControlError ? `${err.message} (${err.status} ${err.code})` : `The request failed: ${err.message}`);
  } finally {
    if (button) button.disabled = false;
  }
}

export function say(text) {
  document.getElementById('status').textContent = text;
}

export function showError(text) {
  document.getElementById('error').textContent = text;
}
