// Herald dashboard — a panel's list that the stream does not push (schedules, webhooks): fetched at each
// snapshot, a moment after a job event that may change it (a burst is one request), when the tab is shown
// again, and every few seconds while the stream is live. One request at a time; a change meanwhile asks for
// one more afterwards.
import { isHidden } from './dom.js';

/** @typedef {import('./types.js').Job} Job */
/** @typedef {import('./store.js').Store} Store */

export class ListPoller {
  // `load` fetches and draws the list, saying its own errors; it must not throw.
  /** @param {() => Promise<void>} load @param {number} soonMs how long after a job event to ask */
  constructor(load, soonMs) {
    this.load = load;
    this.soonMs = soonMs;
    this.loading = false;
    this.again = false;
    /** @type {number | null} */
    this.soon = null;
  }

  // Asks for the list now, or right after the request on its way.
  async refresh() {
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    try {
      await this.load();
    } finally {
      this.loading = false;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    }
  }

  // Asks a moment later, so that a burst of events is one request.
  refreshSoon() {
    if (this.soon !== null) return;
    this.soon = window.setTimeout(() => {
      this.soon = null;
      this.refresh();
    }, this.soonMs);
  }

  // Follows the store: a snapshot asks at once, a job whose state changed and that `matters` asks soon,
  // the tab shown again asks, and so does every `everyMs` while the stream is live and the tab shown.
  /** @param {Store} store @param {(job: Job) => boolean} matters @param {number} everyMs */
  follow(store, matters, everyMs) {
    store.onChange((what, detail) => {
      if (what === 'reset') this.refresh();
      else if (what === 'job' && matters(detail.job)) {
        const previous = detail.previous;
        if (!previous || previous.state !== detail.job.state) this.refreshSoon();
      }
    });
    document.addEventListener('visibilitychange', () => {
      if (!isHidden()) this.refresh();
    });
    setInterval(() => {
      if (!isHidden() && store.isLive()) this.refresh();
    }, everyMs);
  }
}
