// Herald — the page of a share link (share.html?t=TOKEN): one job's bar, rate, time left, state and log, for
// someone with no account. The token is a bearer credential for exactly that job: the WebSocket is opened as
// /ws?t=TOKEN, and the server sends the snapshot and events of that job alone. The rows and the log are the
// dashboard's own views (views/jobs.js, views/log.js, views/status.js) over the same store; nothing else of
// the dashboard is loaded. When the link has expired or was revoked the server refuses or closes the
// connection: the page then says so and stops trying.
import { Store } from './store.js';
import { HeraldClient } from './client.js';
import { Api } from './api.js';
import { LogBook } from './logs.js';
import { $, part, setText, show } from './dom.js';
import * as statusView from './views/status.js';
import * as jobsView from './views/jobs.js';
import * as logView from './views/log.js';

/** @typedef {import('./types.js').Context} Context */

// setTimeout takes at most 2^31 − 1 ms (about 24.8 days); a longer link is checked again then.
const LONGEST_TIMER_MS = 2147483647;

/**
 * What the token's payload says (`{"v":1,"id","job","exp","kid"}`, base64url before the dot). Read only to
 * name the job and to know when the link ends; the server checks the signature, this page cannot.
 * @param {string} token @returns {{ job: string, exp: number } | null}
 */
export function linkClaims(token) {
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  try {
    const base64 = token.slice(0, dot).replace(/-/g, '+').replace(/_/g, '/');
    const payload = JSON.parse(atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4)));
    if (!payload || typeof payload.job !== 'string' || typeof payload.exp !== 'number') return null;
    return { job: payload.job, exp: payload.exp };
  } catch (error) {
    return null;
  }
}

class SharePage {
  /** @param {string} token @param {{ job: string, exp: number }} claims */
  constructor(token, claims) {
    this.token = token;
    this.job = claims.job;
    this.endsAt = claims.exp * 1000;
    this.ended = false;
    this.probing = false;
    this.logOpened = false;
    this.store = new Store();
    this.logBook = new LogBook();
    this.client = new HeraldClient('/ws?t=' + encodeURIComponent(token));
    this.api = new Api(this.client);
    // The link is this page's only credential: never a dashboard token this tab may also hold.
    this.client.token = null;
  }

  start() {
    const { client, store } = this;
    client.addEventListener('open', () => store.newConnection());
    client.addEventListener('status', (event) => store.setStatus(/** @type {CustomEvent} */ (event).detail));
    client.addEventListener('snapshot', (event) => store.applySnapshot(/** @type {CustomEvent} */ (event).detail));
    client.addEventListener('event', (event) => store.applyEvent(/** @type {CustomEvent} */ (event).detail));
    // A connection that ends (or could not open) may mean the link ended: ask the server.
    client.addEventListener('close', () => this.probe());
    /** @type {Context} */
    const context = { store, api: this.api, logBook: this.logBook, rowDecorators: [] };
    for (const view of [statusView, jobsView, logView]) view.mount(context);
    store.onChange((what) => {
      if (what === 'reset' || what === 'job') this.openLog();
    });
    this.scheduleEnd();
    client.connect();
  }

  // The log opens by itself once the job's row offers one (command jobs).
  openLog() {
    if (this.logOpened) return;
    const row = document.querySelector('#jobs .job-row[data-job-id="' + CSS.escape(this.job) + '"]');
    const logButton = row ? part(row, '.job-log') : null;
    if (!logButton || logButton.hidden) return;
    this.logOpened = true;
    logButton.click();
  }

  scheduleEnd() {
    const left = this.endsAt - Date.now();
    if (left <= 0) {
      this.end();
      return;
    }
    setTimeout(() => this.scheduleEnd(), Math.min(left + 250, LONGEST_TIMER_MS));
  }

  // Whether the server still takes the link: a REST read of the job with the token; 401 or 403 means it
  // expired or was revoked. A network failure says nothing: the client keeps reconnecting.
  async probe() {
    if (this.ended || this.probing) return;
    this.probing = true;
    try {
      const response = await fetch('/api/jobs/' + encodeURIComponent(this.job), {
        headers: { Authorization: 'Bearer ' + this.token, Accept: 'application/json' },
        credentials: 'omit',
        cache: 'no-store',
      });
      if (response.status === 401 || response.status === 403) this.end();
    } catch (error) {
      // unreachable for now: the reconnecting status says so
    } finally {
      this.probing = false;
    }
  }

  end() {
    if (this.ended) return;
    this.ended = true;
    this.client.close();
    showGone(null);
  }
}

/** @param {string | null} note words under the heading, or null to keep the page's */
function showGone(note) {
  if (note !== null) setText($('share-gone-note'), note);
  show($('share-gone'), true);
  show($('jobs-section'), false);
  show($('log-section'), false);
  const status = $('status');
  status.dataset.state = 'closed';
  setText(status.querySelector('.status-label'), 'Link ended');
  show($('reconnect-now'), false);
}

const token = new URLSearchParams(window.location.search).get('t') || '';
const claims = linkClaims(token);
if (claims === null) {
  showGone('This address is not a complete share link. Ask whoever shared it for the link again.');
} else {
  const page = new SharePage(token, claims);
  page.start();
  // For the browser tests: the page's client and store, read-only.
  Object.defineProperty(window, 'Herald', { value: Object.freeze({ debug: Object.freeze({ client: page.client, store: page.store }) }) });
}
