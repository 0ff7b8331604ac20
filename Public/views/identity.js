// Herald dashboard — who is signed in (docs/security.md): the header names the user and the role from
// `GET /api/session`, and the page shows only the controls that role may use (viewers watch: the start
// controls are absent, with a line saying why; an operator's cancel shows on its own jobs). A server with
// no identities answers with the local default (anonymous, admin) and the header stays as it was.
// When the server closes the connection because the credential expired (4001) or was revoked (4003), the
// page says so; a session that is gone sends the browser to the sign-in page.
import { $, setText, show } from '../dom.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Principal} Principal */

const CLOSED = {
  4001: 'Your sign-in expired.',
  4003: 'Your access was revoked.',
};

/** @returns {Promise<Principal | null>} null: no identity (the server answered 401) */
async function fetchSession() {
  const response = await window.fetch('/api/session', { cache: 'no-store', headers: { Accept: 'application/json' } });
  if (response.status === 401) return null;
  if (!response.ok) throw new Error('GET /api/session answered ' + response.status);
  return /** @type {Principal} */ (await response.json());
}

/** @param {Principal} principal */
function draw(principal) {
  // Anonymous (no identities, or only a control token): the controls stay, and a refused start or cancel
  // asks for the token as before.
  const anonymous = principal.via === 'anonymous';
  show($('identity'), !anonymous);
  if (anonymous) return;
  document.documentElement.dataset.role = principal.role;
  setText($('identity-name'), principal.name);
  setText($('identity-role'), principal.role);
  show($('identity-signout'), principal.via === 'session');
  show($('role-note'), principal.role === 'viewer');
}

/** @param {Context} context */
export function mount({ store, api }) {
  const refresh = () =>
    fetchSession().then(
      (principal) => {
        if (principal === null) {
          window.location.assign('/signin.html');
          return;
        }
        store.setPrincipal(principal);
        draw(principal);
      },
      () => {}, // unreachable: the connection status says so already
    );
  refresh();
  api.client.addEventListener('close', (event) => {
    const code = /** @type {CustomEvent} */ (event).detail.code;
    const said = CLOSED[/** @type {4001 | 4003} */ (code)];
    if (!said) return;
    setText($('identity-note'), said + ' Sign in again to go on watching.');
    show($('identity-note'), true);
    refresh();
  });
  $('identity-signout').addEventListener('click', () => {
    window
      .fetch('/api/session', { method: 'DELETE', cache: 'no-store' })
      .catch(() => {})
      .then(() => window.location.assign('/signin.html'));
  });
}
