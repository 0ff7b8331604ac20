// Herald dashboard — the connection status in the header: the state words are announced (role=status); the
// ticking countdown to the next attempt is for the eyes only, with "Retry now" beside it.
import { $, setText, show } from '../dom.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Status} Status */

/** @type {Record<string, string>} */
const WORDS = {
  live: 'Live',
  connecting: 'Connecting…',
  reconnecting: 'Reconnecting',
  offline: 'Offline — waiting for the network',
};

/** @param {Status} status */
function draw(status) {
  const element = $('status');
  const label = element.querySelector('.status-label');
  const countdown = element.querySelector('.status-countdown');
  element.dataset.state = status.state;
  setText(label, WORDS[status.state] || status.state);
  if (status.state === 'reconnecting' && status.retryAt) {
    const seconds = Math.max(0, Math.ceil((status.retryAt - Date.now()) / 1000));
    setText(countdown, ' in ' + seconds + ' s');
    element.dataset.countdown = String(seconds);
  } else {
    setText(countdown, status.state === 'reconnecting' ? '…' : '');
    delete element.dataset.countdown;
  }
  show($('reconnect-now'), status.state === 'reconnecting' && !!status.retryAt);
}

/** @param {Context} context */
export function mount({ store, api }) {
  store.onChange((what) => {
    if (what === 'status') draw(store.status);
  });
  $('reconnect-now').addEventListener('click', () => api.client.retryNow());
  // This server's own trouble (docs/protocol.md, "health"): said beside the connection's status.
  api.client.addEventListener('health', (event) => {
    const { status, reason } = /** @type {CustomEvent} */ (event).detail;
    const note = $('health-note');
    const degraded = status === 'degraded';
    setText(
      note,
      degraded
        ? 'This server is degraded (' + (typeof reason === 'string' ? reason : 'no reason given') + '): new jobs may be refused and what you see may be behind.'
        : '',
    );
    show(note, degraded);
  });
  setInterval(() => {
    if (store.status.state === 'reconnecting' && store.status.retryAt) draw(store.status);
  }, 250);
}
