// Herald — the sign-in page (signin.html): user and password, sent as JSON to POST /api/session. The server
// answers 204 with the session cookie (HttpOnly: this page never sees it), 401 with an error message, or 429
// with Retry-After while failed sign-ins are being slowed; then this page goes to the dashboard or says why
// not. The password is never kept: the field is cleared after every answer.
import { button, input, $ } from './dom.js';

const form = /** @type {HTMLFormElement} */ ($('signin-page-form'));
const user = input('signin-user');
const password = input('signin-password');
const submit = button('signin-page-submit');
const error = $('signin-page-error');

/** @param {boolean} busy */
function setBusy(busy) {
  submit.disabled = busy;
  submit.textContent = busy ? 'Signing in…' : 'Sign in';
  form.setAttribute('aria-busy', String(busy));
}

/** @param {string} text @param {HTMLInputElement} field */
function showError(text, field) {
  error.textContent = text;
  field.setAttribute('aria-invalid', 'true');
  field.focus();
}

// Words for "try again in …" from a Retry-After header (seconds; an HTTP date is possible too).
/** @param {string | null} header @returns {string} */
export function retryText(header) {
  let seconds = Number.NaN;
  if (header !== null && /^\d+$/.test(header.trim())) seconds = Number(header.trim());
  else if (header) seconds = Math.ceil((Date.parse(header) - Date.now()) / 1000);
  if (!Number.isFinite(seconds) || seconds <= 0) return 'Too many failed sign-ins. Wait a little, then try again.';
  if (seconds < 90) return 'Too many failed sign-ins. Try again in ' + seconds + (seconds === 1 ? ' second.' : ' seconds.');
  const minutes = Math.ceil(seconds / 60);
  return 'Too many failed sign-ins. Try again in ' + minutes + ' minutes.';
}

// The server's message from an error body ({"error":{"code","message"}}), or null.
/** @param {Response} response @returns {Promise<string | null>} */
async function serverMessage(response) {
  try {
    const body = await response.json();
    const message = body && body.error && body.error.message;
    return typeof message === 'string' && message.length > 0 ? message : null;
  } catch (failure) {
    return null;
  }
}

async function signIn() {
  error.textContent = '';
  user.removeAttribute('aria-invalid');
  password.removeAttribute('aria-invalid');
  const name = user.value.trim();
  if (name === '') {
    showError('Enter your user name.', user);
    return;
  }
  if (password.value === '') {
    showError('Enter your password.', password);
    return;
  }
  setBusy(true);
  let response;
  try {
    response = await fetch('/api/session', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ user: name, password: password.value }),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (failure) {
    setBusy(false);
    showError('The server could not be reached. Check the connection and try again.', password);
    return;
  }
  password.value = '';
  if (response.ok) {
    window.location.assign('/');
    return;
  }
  setBusy(false);
  if (response.status === 429) showError(retryText(response.headers.get('Retry-After')), password);
  else if (response.status === 401) showError((await serverMessage(response)) || 'That user name and password were not accepted.', password);
  else showError((await serverMessage(response)) || 'The server answered ' + response.status + '. Try again.', password);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!submit.disabled) signIn();
});
for (const field of [user, password]) field.addEventListener('input', () => field.removeAttribute('aria-invalid'));
