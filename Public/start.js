// Herald dashboard — the one flow every start control follows (search, sort, news fetch, the jobs file's
// kinds): read the params (the form may refuse them itself), say so when not connected, disable the button
// at once (double clicks, Enter, impatient users), send `start` through the API, and route the reply back:
// the accepted job, or the refusal next to the control. Which controls are enabled is derived from the
// store's state, so every open tab agrees on what can be started.
import * as fmt from './format.js';
import { setText } from './dom.js';

/** @typedef {import('./types.js').Reply} Reply */
/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./api.js').Api} Api */

/**
 * @typedef {object} StartOptions
 * @property {string} kind
 * @property {HTMLButtonElement} button
 * @property {HTMLElement} error the line that shows a refusal
 * @property {() => (Record<string, any> | null)} params null: the form showed why it cannot start
 * @property {boolean} [waitForJob] keep the button disabled until the accepted job's first event arrives
 * @property {(job: string) => void} [accepted]
 * @property {(reply: Reply) => void} [refused] shows the refusal (by default, its words on the error line)
 * @property {() => void} update redraws the control from the flow's and the store's state
 */

export class StartFlow {
  /** @param {Store} store @param {Api} api @param {StartOptions} options */
  constructor(store, api, options) {
    this.store = store;
    this.api = api;
    this.options = options;
    /** @type {string | null} the request id of a start not answered yet */
    this.request = null;
    /** @type {string | null} a job the server accepted whose first event has not arrived yet */
    this.awaitJob = null;
    this.unsubscribe = store.onChange((what, detail) => {
      if (what === 'reset') this.awaitJob = null;
      else if (what === 'job' && detail.job.id === this.awaitJob) this.awaitJob = null;
      if (what === 'reset' || what === 'job' || what === 'status') options.update();
    });
  }

  // The control is gone (a snapshot rebuilt the kinds' forms): it no longer hears the store.
  dispose() {
    this.unsubscribe();
  }

  // Nothing of ours on its way: no start unanswered, no accepted job unseen.
  idle() {
    return this.request === null && this.awaitJob === null;
  }

  /** @param {Reply} reply */
  refuse(reply) {
    if (this.options.refused) this.options.refused(reply);
    else setText(this.options.error, fmt.errorText(reply.code, reply.message));
  }

  submit() {
    const { button, kind } = this.options;
    if (button.disabled || this.request !== null) return;
    setText(this.options.error, '');
    const params = this.options.params();
    if (params === null) return;
    if (!this.api.isOpen()) {
      this.refuse({ type: 'error', code: 'disconnected', message: '' });
      return;
    }
    button.disabled = true; // at once, before any reply
    this.request = this.api.request({ type: 'start', kind, params }, (reply) => {
      this.request = null;
      if (reply.type === 'accepted' && typeof reply.job === 'string') {
        if (this.options.waitForJob && !this.store.jobs.has(reply.job)) this.awaitJob = reply.job;
        if (this.options.accepted) this.options.accepted(reply.job);
      } else if (reply.type === 'error') {
        this.refuse(reply);
      }
      this.options.update();
    });
    this.options.update();
  }
}
