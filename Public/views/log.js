// Herald dashboard — the live log of one command job, opened from its row under Jobs: follows new lines
// until the user scrolls up (then offers to follow again), pages back through older lines, marks stdout and
// stderr apart (a class per stream, and a filter), and shows the attempt and the exit status. Lines reach
// the page as text nodes only. The lines themselves are the log book's (logs.js), which this module feeds
// from the store's `log` events.
import * as fmt from '../format.js';
import { $, button, part, select, setText, show, inNextFrame } from '../dom.js';
import { isFinalState } from '../store.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Job} Job */
/** @typedef {import('../types.js').Reply} Reply */
/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../logs.js').LogBook} LogBook */
/** @typedef {{ requestPage: (job: string, offset: number, limit: number, onReply: (reply: Reply) => void) => string,
 *   isCommandKind: (kind: string) => boolean, kindTitle: (kind: string) => string | null }} LogViewOptions */

const PAGE_SIZE = 200;
const AT_BOTTOM_PX = 4;
const PAGING_REFUSED = new Set(['unknown_type', 'bad_request', 'not_found', 'gone']);

/** @type {Record<string, string>} */
const stateWords = {
  queued: 'Queued',
  waiting: 'Waiting',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
  interrupted: 'Interrupted',
};

/** @param {{ stream: string, text: string }} line */
function lineElement(line) {
  const li = document.createElement('li');
  li.className = 'log-line stream-' + line.stream;
  if (line.stream === 'stderr') li.dataset.stream = 'stderr';
  else if (line.stream === 'stdout') li.dataset.stream = 'stdout';
  li.textContent = line.text;
  return li;
}

// Words for a job's exit: "Exit code 3", "Killed by signal KILL", or null before the program ended.
/** @param {Job} job */
function exitText(job) {
  const exit = job && job.exit;
  if (!exit || typeof exit !== 'object') return null;
  if (fmt.isNumber(exit.code)) return 'Exit code ' + exit.code;
  if (typeof exit.signal === 'string') return 'Killed by signal ' + exit.signal;
  return null;
}

class LogView {
  /** @param {Store} store @param {LogBook} logBook @param {LogViewOptions} options */
  constructor(store, logBook, options) {
    this.store = store;
    this.logBook = logBook;
    this.options = options;
    this.section = $('log-section');
    this.title = $('log-job');
    this.state = $('log-state');
    this.attempt = $('log-attempt');
    this.exit = $('log-exit');
    this.list = $('log-lines');
    this.filter = select('log-filter');
    this.olderButton = button('log-older');
    this.followButton = $('log-follow');
    this.note = $('log-note');
    /** @type {string | null} the job shown */
    this.job = null;
    this.following = true;
    this.rendered = 0;
    this.renderedGeneration = -1;
    /** @type {string | null} */
    this.pageRequest = null;
    this.pagingRefused = false;
    this.list.addEventListener('scroll', () => this.onScroll());
    this.filter.addEventListener('change', () => {
      this.list.dataset.filter = this.filter.value;
      if (this.following) this.scrollToEnd();
    });
    this.followButton.addEventListener('click', () => this.follow(true));
    this.olderButton.addEventListener('click', () => this.loadOlder(3));
    $('log-close').addEventListener('click', () => this.close());
    // The row's Log button (rows come and go; one listener on the list).
    $('jobs').addEventListener('click', (event) => {
      const logButton = /** @type {Element} */ (event.target).closest('.job-log');
      if (!logButton) return;
      const row = /** @type {HTMLElement | null} */ (logButton.closest('.job-row'));
      if (!row) return;
      if (this.job === row.dataset.jobId) this.close();
      else this.open(row.dataset.jobId);
    });
  }

  // Called by the jobs view for every row it fills: a Log button on command jobs, the kind's title.
  /** @param {HTMLElement} row @param {Job} job */
  decorateRow(row, job) {
    const logButton = part(row, '.job-log');
    if (!logButton) return;
    const command = this.options.isCommandKind(job.kind) || fmt.isNumber(job.attempt) || !!job.exit;
    show(logButton, command);
    const open = this.job === job.id;
    logButton.setAttribute('aria-expanded', String(open));
    setText(logButton, open ? 'Hide log' : 'Log');
    const title = this.options.kindTitle(job.kind);
    if (title) setText(part(row, '.job-kind'), title);
  }

  // Shows `jobId`'s log; `quiet` (after a snapshot) leaves the page where the reader has it.
  /** @param {string} jobId @param {boolean} [quiet] */
  open(jobId, quiet) {
    this.job = jobId;
    this.following = true;
    this.rendered = 0;
    this.renderedGeneration = -1;
    this.pageRequest = null;
    this.pagingRefused = false;
    this.list.replaceChildren();
    this.list.dataset.jobId = jobId;
    this.section.dataset.jobId = jobId;
    show(this.section, true);
    show(this.followButton, false);
    setText(this.note, '');
    this.drawJob();
    this.draw();
    this.redecorate();
    const buffer = this.logBook.get(jobId);
    if (buffer.start === null) this.loadOlder(3); // a tab that did not see the job start: the lines before ours
    if (!quiet) this.section.scrollIntoView({ block: 'nearest' });
  }

  close() {
    const was = this.job;
    this.job = null;
    show(this.section, false);
    this.list.replaceChildren();
    delete this.section.dataset.jobId;
    this.redecorate();
    if (was) {
      const logButton = part(document, '#jobs .job-row[data-job-id="' + CSS.escape(was) + '"] .job-log');
      if (logButton) logButton.focus();
    }
  }

  redecorate() {
    for (const row of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('#jobs .job-row'))) {
      const job = this.store.jobs.get(row.dataset.jobId);
      if (job) this.decorateRow(row, job);
    }
  }

  // ---- store and log events ----

  /** @param {Job} job */
  jobChanged(job) {
    if (job.id === this.job) this.drawJob();
  }

  /** @param {string} jobId */
  linesArrived(jobId) {
    if (jobId === this.job) inNextFrame('log', () => this.draw());
  }

  // A snapshot replaced the state: the lines kept may have holes, so they were dropped; load again.
  reset() {
    if (this.job === null) return;
    if (!this.store.jobs.has(this.job)) {
      this.close();
      return;
    }
    this.open(this.job, true);
  }

  // ---- drawing ----

  drawJob() {
    const job = this.store.jobs.get(this.job);
    if (!job) return;
    const title = this.options.kindTitle(job.kind) || job.kind;
    setText(this.title, title + ' · ' + job.id);
    setText(this.state, stateWords[job.state] || job.state);
    this.state.className = 'badge state-' + job.state.replace(/[^a-z]/g, '');
    this.section.dataset.state = job.state;
    setText(this.attempt, fmt.isNumber(job.attempt) ? 'Attempt ' + job.attempt : '');
    const exit = exitText(job);
    let text = exit || '';
    if (exit && typeof job.error === 'string' && job.error) text += ' — ' + job.error;
    else if (!exit && isFinalState(job.state) && typeof job.error === 'string') text = job.error;
    setText(this.exit, text);
    this.exit.className = 'log-exit' + (job.state === 'succeeded' ? ' ok' : isFinalState(job.state) ? ' failure' : '');
    if (job.exit && fmt.isNumber(job.exit.code)) this.exit.dataset.code = String(job.exit.code);
    else delete this.exit.dataset.code;
    if (job.exit && typeof job.exit.signal === 'string') this.exit.dataset.signal = job.exit.signal;
    else delete this.exit.dataset.signal;
  }

  draw() {
    if (this.job === null) return;
    const buffer = this.logBook.get(this.job);
    if (buffer.generation !== this.renderedGeneration) {
      // Lines were put in front (older ones) or dropped: redraw, keeping the reader's place.
      const fromBottom = this.list.scrollHeight - this.list.scrollTop;
      const fragment = document.createDocumentFragment();
      for (const line of buffer.lines) fragment.append(lineElement(line));
      this.list.replaceChildren(fragment);
      this.rendered = buffer.lines.length;
      this.renderedGeneration = buffer.generation;
      if (!this.following) this.list.scrollTop = this.list.scrollHeight - fromBottom;
    } else if (this.rendered < buffer.lines.length) {
      const fragment = document.createDocumentFragment();
      for (const line of buffer.lines.slice(this.rendered)) fragment.append(lineElement(line));
      this.list.append(fragment);
      this.rendered = buffer.lines.length;
    }
    this.list.dataset.count = String(buffer.streamed);
    if (buffer.start !== null) this.list.dataset.start = String(buffer.start);
    if (this.following) this.scrollToEnd();
    this.drawOlder(buffer);
  }

  /** @param {import('../logs.js').LogBuffer} buffer */
  drawOlder(buffer) {
    const none = buffer.olderKnownNone || buffer.start === 0;
    this.olderButton.disabled = none || this.pagingRefused || this.pageRequest !== null;
    setText(this.olderButton, this.pageRequest !== null ? 'Loading…' : none ? 'No older lines' : 'Load older lines');
  }

  // ---- following ----

  scrollToEnd() {
    this.list.scrollTop = this.list.scrollHeight;
  }

  atBottom() {
    return this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight <= AT_BOTTOM_PX;
  }

  onScroll() {
    const bottom = this.atBottom();
    if (this.following && !bottom) this.follow(false);
    else if (!this.following && bottom) this.follow(true);
  }

  /** @param {boolean} on */
  follow(on) {
    this.following = on;
    this.list.dataset.following = String(on);
    show(this.followButton, !on);
    if (on) this.scrollToEnd();
  }

  // ---- paging back ----

  // Asks for the lines before the first one shown; `tries` bounds the follow-up asks a first reply may
  // need (it tells where our lines are in the server's log).
  /** @param {number} tries */
  loadOlder(tries) {
    if (this.job === null || this.pageRequest !== null || this.pagingRefused || tries <= 0) return;
    const jobId = this.job;
    const buffer = this.logBook.get(jobId);
    const range = buffer.olderRange(PAGE_SIZE);
    if (!range) return;
    this.pageRequest = this.options.requestPage(jobId, range.offset, range.limit, (reply) => {
      if (this.job !== jobId || this.pageRequest !== reply.requestId) return; // closed, or started over
      this.pageRequest = null;
      if (reply.type === 'page' && !Array.isArray(reply.lines)) {
        // A server from before log paging answers with a job's result values, which are not its log.
        this.pagingRefused = true;
        setText(this.note, 'Older lines are not available from this server; new lines show as they come.');
        this.drawOlder(buffer);
      } else if (reply.type === 'page') {
        const outcome = buffer.applyPage(reply.offset, Array.isArray(reply.lines) ? reply.lines : [], reply.total, reply.first);
        setText(this.note, '');
        this.draw();
        if (outcome === 'calibrated') this.loadOlder(tries - 1);
      } else if (reply.type === 'error') {
        if (PAGING_REFUSED.has(reply.code)) {
          this.pagingRefused = true;
          setText(this.note, reply.code === 'not_found' || reply.code === 'gone' ? 'The server no longer keeps this job’s log.'
            : 'Older lines are not available from this server; new lines show as they come.');
        } else {
          setText(this.note, fmt.errorText(reply.code, reply.message));
        }
        this.drawOlder(buffer);
      }
    });
    this.drawOlder(buffer);
  }
}

/** @param {Context} context */
export function mount({ store, api, logBook, rowDecorators }) {
  /** @param {string} kind */
  const kindTitle = (kind) => {
    const info = store.kindInfo(kind);
    return info && typeof info.title === 'string' && info.title ? info.title : null;
  };
  /** @param {string} kind */
  const isCommandKind = (kind) => (store.kindInfo(kind) || {}).command === true;
  const view = new LogView(store, logBook, {
    requestPage: (job, offset, limit, onReply) => api.request({ type: 'page', job, offset, limit }, onReply),
    isCommandKind,
    kindTitle,
  });
  rowDecorators.push((row, job) => view.decorateRow(row, job));
  logBook.onChange((job) => view.linesArrived(job));
  store.onChange((what, detail) => {
    if (what === 'reset') {
      logBook.clear(); // events may have been missed: what the book holds may have holes
      view.reset();
    } else if (what === 'job') {
      if (detail.created && isCommandKind(detail.job.kind)) logBook.sawCreated(detail.job.id);
      view.jobChanged(detail.job);
    } else if (what === 'log') {
      logBook.applyEvent(detail.message);
    }
  });
}
