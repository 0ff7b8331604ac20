// Herald dashboard — the Jobs list: one row per job, newest first, with its progress, rate, time left,
// elapsed time, outcome and a Cancel button. Progress events are batched to one redraw per frame.
import * as fmt from '../format.js';
import { $, clone, part, setText, show, inNextFrame } from '../dom.js';
import { isActiveState, isFinalState } from '../store.js';
import { kindName, paramsSummary, placeText, startedByText, stateWords, stateClass, summaryText } from '../words.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Job} Job */
/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../api.js').Api} Api */

const MAX_JOB_ROWS = 200;

class JobsView {
  /** @param {Context} context */
  constructor({ store, api, rowDecorators }) {
    this.store = store;
    this.api = api;
    this.decorators = rowDecorators;
    this.list = $('jobs');
    this.empty = $('jobs-empty');
    this.more = $('jobs-more');
    /** @type {Map<string, HTMLElement>} job id → row */
    this.rows = new Map();
    this.list.addEventListener('click', (event) => {
      const button = /** @type {HTMLButtonElement | null} */ (/** @type {Element} */ (event.target).closest('.job-cancel'));
      if (!button || button.disabled) return;
      const row = /** @type {HTMLElement | null} */ (button.closest('.job-row'));
      if (row) this.cancel(row.dataset.jobId, row);
    });
  }

  rebuild() {
    this.rows.clear();
    const jobs = Array.from(this.store.jobs.values()).reverse(); // newest first
    jobs.sort((a, b) => (b.createdAt || 0) - (a.createdAt || 0));
    const fragment = document.createDocumentFragment();
    for (const job of jobs.slice(0, MAX_JOB_ROWS)) {
      const row = clone('job-row-template');
      this.fill(row, job);
      this.rows.set(job.id, row);
      fragment.append(row);
    }
    this.list.replaceChildren(fragment);
    this.updateCounts();
  }

  /** @param {Job} job */
  upsert(job) {
    let row = this.rows.get(job.id);
    if (!row) {
      row = clone('job-row-template');
      this.rows.set(job.id, row);
      this.list.prepend(row);
      while (this.rows.size > MAX_JOB_ROWS) {
        const last = /** @type {HTMLElement | null} */ (this.list.lastElementChild);
        if (!last) break;
        this.rows.delete(last.dataset.jobId);
        last.remove();
      }
      this.updateCounts();
    }
    this.fill(row, job);
  }

  // The workers changed: queued jobs may have found (or lost) one that runs them.
  refreshQueued() {
    for (const [id, row] of this.rows) {
      const job = this.store.jobs.get(id);
      if (job && job.state === 'queued') this.fillProgress(row, job);
    }
  }

  /** @param {Job} job */
  progress(job) {
    const id = job.id;
    inNextFrame('job:' + id, () => {
      const row = this.rows.get(id);
      const current = this.store.jobs.get(id); // the newest copy: a job event may have replaced it since
      if (row && current) this.fillProgress(row, current);
    });
  }

  /** @param {string} jobId @param {HTMLElement} row */
  cancel(jobId, row) {
    const errorSpan = part(row, '.job-error');
    setText(errorSpan, '');
    if (!this.api.isOpen()) {
      setText(errorSpan, fmt.errorText('disconnected'));
      return;
    }
    row.dataset.cancelling = 'true';
    /** @type {HTMLButtonElement} */ (part(row, '.job-cancel')).disabled = true;
    this.api.request({ type: 'cancel', job: jobId }, (reply) => {
      const current = this.rows.get(jobId) || row;
      delete current.dataset.cancelling;
      const job = this.store.jobs.get(jobId);
      /** @type {HTMLButtonElement} */ (part(current, '.job-cancel')).disabled = false;
      if (reply.type === 'error') setText(part(current, '.job-error'), fmt.errorText(reply.code, reply.message, { job: 'The job' }));
      if (job) this.upsert(job);
    });
  }

  updateCounts() {
    show(this.empty, this.rows.size === 0);
    const hiddenCount = this.store.jobs.size - this.rows.size;
    show(this.more, hiddenCount > 0);
    if (hiddenCount > 0) setText(this.more, fmt.count(hiddenCount) + ' older jobs not shown.');
  }

  /** @param {HTMLElement} row @param {Job} job */
  fill(row, job) {
    row.dataset.jobId = job.id;
    row.dataset.kind = job.kind;
    row.dataset.state = job.state;
    setText(part(row, '.job-kind'), kindName(job.kind));
    const after = Array.isArray(job.after) && job.after.length > 0 ? ' · after ' + job.after.length + (job.after.length === 1 ? ' job' : ' jobs') : '';
    setText(part(row, '.job-params'), paramsSummary(job) + after);
    setText(part(row, '.job-worker'), placeText(job));
    setText(part(row, '.job-by'), startedByText(job));
    const badge = part(row, '.job-state');
    setText(badge, stateWords[job.state] || job.state);
    badge.dataset.state = job.state;
    badge.className = 'job-state badge ' + stateClass(job.state);
    const outcome = part(row, '.job-outcome');
    if (job.state === 'succeeded') {
      setText(outcome, summaryText(job));
      outcome.className = 'job-outcome';
    } else if (isFinalState(job.state)) {
      setText(outcome, typeof job.error === 'string' && job.error ? job.error : 'The job ' + job.state + '.');
      outcome.className = 'job-outcome failure';
    } else {
      setText(outcome, '');
      outcome.className = 'job-outcome';
    }
    const cancel = /** @type {HTMLButtonElement} */ (part(row, '.job-cancel'));
    const active = isActiveState(job.state);
    show(cancel, active && this.store.mayCancel(job));
    if (!active) {
      cancel.disabled = false;
      delete row.dataset.cancelling;
    } else {
      cancel.disabled = row.dataset.cancelling === 'true';
    }
    cancel.setAttribute('aria-label', 'Cancel ' + kindName(job.kind) + ' ' + paramsSummary(job));
    this.fillProgress(row, job);
    this.fillTimes(row, job);
    for (const decorate of this.decorators) decorate(row, job);
  }

  /** @param {HTMLElement} row @param {Job} job */
  fillProgress(row, job) {
    const p = job.progress || {};
    const bar = /** @type {HTMLProgressElement} */ (part(row, '.job-progress'));
    const total = fmt.isNumber(p.total) && p.total > 0 ? p.total : 0;
    const completed = fmt.isNumber(p.completed) ? Math.max(0, p.completed) : 0;
    let fraction = fmt.isNumber(p.fraction) ? p.fraction : total > 0 ? completed / total : 0;
    if (job.state === 'succeeded') fraction = 1;
    fraction = Math.min(1, Math.max(0, fraction));
    if (job.state === 'running' && total === 0 && fraction === 0) {
      bar.removeAttribute('value'); // indeterminate: running, size not known yet
      bar.max = 1;
    } else if (total > 0) {
      bar.max = total;
      bar.value = job.state === 'succeeded' ? total : Math.min(completed, total);
    } else {
      bar.max = 1;
      bar.value = fraction;
    }
    bar.setAttribute('aria-label', kindName(job.kind) + ' progress');
    setText(part(row, '.job-percent'), job.state === 'queued' || job.state === 'waiting' ? '' : fmt.percent(fraction));
    const running = job.state === 'running';
    setText(part(row, '.job-rate'), running ? fmt.rate(job.kind, p.rate) : '—');
    setText(part(row, '.job-eta'), running && fmt.isNumber(p.eta) ? fmt.duration(p.eta) : '—');
    let message = running && typeof p.message === 'string' ? p.message : '';
    if (this.store.waitsForWorker(job)) message = 'waiting for a worker';
    setText(part(row, '.job-message'), message);
  }

  /** @param {HTMLElement} row @param {Job} job */
  fillTimes(row, job) {
    const now = this.store.serverNow();
    const label = part(row, '.job-time-label');
    const value = part(row, '.job-elapsed');
    if (isFinalState(job.state)) {
      setText(label, 'Took');
      const start = fmt.isNumber(job.startedAt) ? job.startedAt : job.createdAt;
      setText(value, fmt.isNumber(job.finishedAt) && fmt.isNumber(start) ? fmt.duration((job.finishedAt - start) / 1000) : '—');
      value.title = fmt.isNumber(job.finishedAt) ? 'Finished ' + fmt.dateTime(job.finishedAt) : '';
    } else if (job.state === 'running' && fmt.isNumber(job.startedAt)) {
      setText(label, 'Elapsed');
      setText(value, fmt.duration(Math.max(0, now - job.startedAt) / 1000));
    } else {
      setText(label, 'Waiting');
      setText(value, fmt.isNumber(job.createdAt) ? fmt.duration(Math.max(0, now - job.createdAt) / 1000) : '—');
    }
  }

  // Elapsed and waiting times move on while nothing else happens.
  tick() {
    for (const [id, row] of this.rows) {
      const job = this.store.jobs.get(id);
      if (job && isActiveState(job.state)) this.fillTimes(row, job);
    }
  }
}

/** @param {Context} context */
export function mount(context) {
  const view = new JobsView(context);
  context.store.onChange((what, detail) => {
    if (what === 'reset' || what === 'principal') view.rebuild();
    else if (what === 'job') view.upsert(detail.job);
    else if (what === 'progress') view.progress(detail.job);
    else if (what === 'workers') view.refreshQueued();
  });
  setInterval(() => view.tick(), 1000);
}
