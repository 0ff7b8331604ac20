// Herald dashboard — the job history: past and current jobs from `GET /api/jobs?state=&kind=&before=&limit=`
// (docs/rest.md), newest first, filtered by kind, state and who started them, and paged with the server's `next` cursor; and the
// last hour's timeline (timeline.js) of the same jobs plus the live ones.
//
// The live stream says when jobs change; the list is then fetched again a second after the first change (a
// burst is one request), at most once every MIN_INTERVAL_MS and never while the tab is hidden, so a busy
// server is not asked more often as more jobs run. Rows already shown follow the stream at once. The timeline fetches the last hour once per
// snapshot; after that the stream keeps it current (finished jobs do not change).
import * as fmt from '../format.js';
import { $, button, inNextFrame, input, isHidden, part, select, setText, show } from '../dom.js';
import { isActiveState, isFinalState, isObject } from '../store.js';
import { kindName, paramsSummary, startedByText, stateClass, summaryText } from '../words.js';
import { HOUR_MS, Timeline } from './timeline.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Job} Job */
/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../api.js').Api} Api */
/** @typedef {{ kind: string, states: string[], startedBy: string, limit: number }} Filter */

const STATES = ['running', 'queued', 'waiting', 'succeeded', 'failed', 'cancelled', 'interrupted'];
const DEBOUNCE_MS = 1000; // a burst of job events is one request
const MIN_INTERVAL_MS = 3000; // and refetches are at least this far apart
const TYPING_MS = 400; // a name typed into "Started by" applies this long after the last key
const TIMELINE_PAGE = 500;
const TIMELINE_PAGES = 2; // at most 1,000 jobs for the picture; it draws the newest 60 anyway

// The query of one page: `filter` is { kind, states, startedBy, limit }; all states, no kind or no name
// means no filter there. `startedBy` is matched whole by the server (a user, a key's name, `schedule:NAME`).
/** @param {Filter} filter @param {string | null} before */
function listQuery(filter, before) {
  const parts = ['limit=' + filter.limit];
  if (filter.kind) parts.push('kind=' + encodeURIComponent(filter.kind));
  if (filter.states.length < STATES.length) parts.push('state=' + filter.states.map(encodeURIComponent).join(','));
  if (filter.startedBy) parts.push('startedBy=' + encodeURIComponent(filter.startedBy));
  if (before) parts.push('before=' + encodeURIComponent(before));
  return parts.join('&');
}

// A local time: the time of day for today, with the date for other days.
/** @param {number} ms @param {number} now */
function when(ms, now) {
  const date = new Date(ms);
  if (date.toDateString() === new Date(now).toDateString()) return fmt.clock(ms);
  return date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

// How long a job took (final), has run (running) or has waited; words for a person.
/** @param {Job} job @param {number} now */
function took(job, now) {
  const start = fmt.isNumber(job.startedAt) ? job.startedAt : job.createdAt;
  if (isFinalState(job.state)) {
    return fmt.isNumber(job.finishedAt) && fmt.isNumber(start) ? fmt.durationMs(Math.max(0, job.finishedAt - start)) : '—';
  }
  if (job.state === 'running' && fmt.isNumber(job.startedAt)) return fmt.durationMs(Math.max(0, now - job.startedAt)) + ' so far';
  return fmt.isNumber(job.createdAt) ? 'waiting ' + fmt.durationMs(Math.max(0, now - job.createdAt)) : '—';
}

/** @param {Job} job */
function resultText(job) {
  if (job.state === 'succeeded') return summaryText(job);
  if (isFinalState(job.state)) return typeof job.error === 'string' && job.error ? job.error : 'The job ' + job.state + '.';
  if (job.state === 'running') {
    const p = job.progress || {};
    const known = fmt.isNumber(p.fraction) && (p.fraction > 0 || (fmt.isNumber(p.total) && p.total > 0));
    const parts = [known ? fmt.percent(p.fraction) : '', typeof p.message === 'string' ? p.message : ''];
    return parts.filter((part) => part).join(' · ');
  }
  return '';
}

class HistoryView {
  /** @param {Store} store @param {Api} api */
  constructor(store, api) {
    this.store = store;
    this.api = api;
    this.rows = $('history-rows');
    this.table = $('history-table');
    this.error = $('history-error');
    this.empty = $('history-empty');
    this.pageInfo = $('history-page-info');
    this.kindSelect = select('history-kind');
    this.limitSelect = select('history-limit');
    this.startedByInput = input('history-by');
    /** @type {Set<string>} every `startedBy` seen, offered as the field's suggestions */
    this.starters = new Set();
    /** the name the list shown (or on its way) was asked for */
    this.appliedStartedBy = '';
    /** @type {HTMLInputElement[]} */
    this.stateBoxes = Array.from(document.querySelectorAll('#history-states input[type="checkbox"]'));
    this.timeline = new Timeline($('timeline'), $('timeline-note'), (kind) => this.kindTitle(kind));
    this.timelineError = $('timeline-error');

    /** @type {Array<string | null>} the `before` of each page from the newest to the one shown */
    this.cursors = [null];
    /** @type {string | null} the shown page's `next` */
    this.next = null;
    /** @type {Map<string, Job>} job id → the JOB its row shows */
    this.shown = new Map();
    /** @type {{ controller: AbortController | null, generation: number }} */
    this.list = { controller: null, generation: 0 };
    this.lastFetchAt = -Infinity;
    /** @type {number | null} */
    this.timer = null;
    this.want = { list: false, timeline: false }; // what the timer will fetch
    this.started = false;
    /** @type {Map<string, Job>} jobs of the last hour from the server, id → JOB (the store's copy wins) */
    this.recent = new Map();
    this.timelineBusy = false;
    this.timelineAgain = false;

    $('history-filters').addEventListener('change', () => this.filterChanged());
    // A name applies a moment after typing stops, as well as on Enter or leaving the field ('change').
    /** @type {number | null} */
    this.typingTimer = null;
    this.startedByInput.addEventListener('input', () => {
      if (this.typingTimer !== null) window.clearTimeout(this.typingTimer);
      this.typingTimer = window.setTimeout(() => {
        this.typingTimer = null;
        if (this.startedByInput.value.trim() !== this.appliedStartedBy) this.filterChanged();
      }, TYPING_MS);
    });
    $('history-filters').addEventListener('submit', (event) => event.preventDefault());
    $('history-refresh').addEventListener('click', () => this.refreshNow());
    $('history-older').addEventListener('click', () => this.older());
    $('history-newer').addEventListener('click', () => this.newer());
    $('history-newest').addEventListener('click', () => this.newest());
    document.addEventListener('visibilitychange', () => {
      if (!isHidden() && (this.want.list || this.want.timeline)) this.schedule({});
    });
    setInterval(() => this.tickRows(), 1000);
    $('timeline-window').addEventListener('change', () => {
      this.timeline.setWindow(Number(select('timeline-window').value) * 1000);
      this.drawTimeline();
    });
    const redraw = () => {
      if (!isHidden()) this.drawTimeline(); // running bars grow, the axis moves on
      setTimeout(redraw, this.timeline.redrawEveryMs());
    };
    setTimeout(redraw, this.timeline.redrawEveryMs());
    this.drawPager();
  }

  /** @param {string} kind */
  kindTitle(kind) {
    const info = this.store.kindInfo(kind);
    return info && typeof info.title === 'string' && info.title ? info.title : kindName(kind);
  }

  // ---- from the store ----------------------------------------------------------------

  // A snapshot: new kinds, and possibly jobs the stream never told about (a reconnect): fetch both again.
  reset() {
    this.fillKinds();
    this.drawTimeline();
    if (!this.started) {
      this.started = true;
      this.loadList();
      this.loadTimeline();
    } else {
      this.schedule({ list: true, timeline: true });
    }
  }

  // A job event: its row (if shown) and the timeline follow at once; which jobs the page holds may have
  // changed (a new job, one leaving a state filter), so the page is fetched again, later.
  /** @param {Job} job @param {boolean} created @param {Job | null} previous */
  jobChanged(job, created, previous) {
    this.learnStarters([job]);
    if (this.shown.has(job.id)) {
      this.shown.set(job.id, job);
      const row = part(this.rows, 'tr[data-job-id="' + CSS.escape(job.id) + '"]');
      if (row) this.fill(row, job, this.store.serverNow());
    }
    inNextFrame('timeline', () => this.drawTimeline());
    if (created || !previous || previous.state !== job.state) this.schedule({ list: true });
  }

  // ---- fetching --------------------------------------------------------------------------------------

  // Fetches what `wanted` asks for DEBOUNCE_MS after the first change that asks (later ones ride along), and
  // not sooner than MIN_INTERVAL_MS after the previous fetch; while the tab is hidden it only remembers what
  // is wanted (the visibilitychange listener calls again).
  /** @param {{ list?: boolean, timeline?: boolean }} wanted */
  schedule(wanted) {
    if (wanted.list) this.want.list = true;
    if (wanted.timeline) this.want.timeline = true;
    if (isHidden() || !(this.want.list || this.want.timeline)) return;
    if (this.timer !== null) return; // the fetch on its way takes this change along
    const delay = Math.max(DEBOUNCE_MS, this.lastFetchAt + MIN_INTERVAL_MS - Date.now());
    this.timer = window.setTimeout(() => {
      this.timer = null;
      const want = this.want;
      this.want = { list: false, timeline: false };
      if (want.list) this.loadList();
      if (want.timeline) this.loadTimeline();
    }, delay);
  }

  /** @returns {Filter} */
  filter() {
    const states = this.stateBoxes.filter((box) => box.checked).map((box) => box.value);
    const limit = Number(this.limitSelect.value);
    const startedBy = this.startedByInput.value.trim();
    return { kind: this.kindSelect.value, states, startedBy, limit: Number.isInteger(limit) && limit > 0 ? limit : 50 };
  }

  // Fetches the page shown (cursors' last) now; a reply to an earlier request that is still on its way is
  // dropped.
  async loadList() {
    if (this.list.controller) this.list.controller.abort();
    this.list.generation += 1;
    const generation = this.list.generation;
    const filter = this.filter();
    this.appliedStartedBy = filter.startedBy;
    if (filter.states.length === 0) {
      this.list.controller = null;
      this.drawRows([]);
      this.next = null;
      setText(this.error, '');
      this.showEmpty('Choose at least one state to see jobs.');
      this.drawPager();
      return;
    }
    const controller = typeof AbortController === 'function' ? new AbortController() : null;
    this.list.controller = controller;
    this.lastFetchAt = Date.now();
    this.table.setAttribute('aria-busy', 'true');
    let reply = null;
    let failure = null;
    try {
      reply = await this.api.jobs(listQuery(filter, this.cursors[this.cursors.length - 1]), controller ? controller.signal : undefined);
    } catch (error) {
      failure = error;
    }
    if (generation !== this.list.generation) return; // overtaken by a newer request
    this.list.controller = null;
    this.table.removeAttribute('aria-busy');
    if (failure) {
      if (failure.name === 'AbortError') return;
      setText(this.error, 'Could not load the job history: ' + failure.message);
      this.error.dataset.failed = 'true';
      this.drawPager();
      return;
    }
    setText(this.error, '');
    delete this.error.dataset.failed;
    this.next = reply.next;
    this.drawRows(reply.jobs);
    if (reply.jobs.length > 0) this.showEmpty(null);
    else if (this.cursors.length > 1) this.showEmpty('No older jobs.');
    else if (filter.kind || filter.startedBy || filter.states.length < STATES.length) this.showEmpty('No jobs match these filters.');
    else this.showEmpty('No jobs yet.');
    this.drawPager();
  }

  // The last hour's jobs, newest first, a page or two: they are final or in the store, so the stream keeps
  // them current from here on. A job created before the hour shows when it is still in the store.
  async loadTimeline() {
    if (this.timelineBusy) {
      this.timelineAgain = true;
      return;
    }
    this.timelineBusy = true;
    this.lastFetchAt = Date.now();
    const since = this.store.serverNow() - HOUR_MS;
    const found = new Map();
    let before = null;
    try {
      for (let page = 0; page < TIMELINE_PAGES; page += 1) {
        const reply = await this.api.jobs(listQuery({ kind: '', states: STATES, startedBy: '', limit: TIMELINE_PAGE }, before));
        for (const job of reply.jobs) found.set(job.id, job);
        const oldest = reply.jobs[reply.jobs.length - 1];
        if (!reply.next || !oldest || !(oldest.createdAt >= since)) break;
        before = reply.next;
      }
      this.recent = found;
      setText(this.timelineError, '');
    } catch (error) {
      setText(this.timelineError, 'Could not load the earlier jobs of the last hour: ' + error.message + ' Live jobs are still drawn.');
    }
    this.timelineBusy = false;
    this.drawTimeline();
    if (this.timelineAgain) {
      this.timelineAgain = false;
      this.schedule({ timeline: true });
    }
  }

  // ---- the controls ----------------------------------------------------------------------------------

  filterChanged() {
    this.cursors = [null];
    this.loadList();
  }

  refreshNow() {
    this.loadList();
    this.loadTimeline();
  }

  older() {
    if (!this.next) return;
    this.cursors.push(this.next);
    this.next = null;
    this.drawPager();
    this.loadList();
  }

  newer() {
    if (this.cursors.length <= 1) return;
    this.cursors.pop();
    this.loadList();
  }

  newest() {
    this.cursors = [null];
    this.loadList();
  }

  // The kinds of the snapshot's limits.kinds; a kind chosen before that is no longer there stays offered.
  fillKinds() {
    const kinds = isObject(this.store.limits.kinds) ? Object.keys(this.store.limits.kinds) : [];
    const chosen = this.kindSelect.value;
    if (chosen && !kinds.includes(chosen)) kinds.push(chosen);
    const options = [new Option('All kinds', '')];
    for (const kind of kinds) options.push(new Option(this.kindTitle(kind), kind));
    this.kindSelect.replaceChildren(...options);
    this.kindSelect.value = chosen;
  }

  // ---- drawing ---------------------------------------------------------------------------------------

  /** @param {Job[]} jobs */
  drawRows(jobs) {
    const now = this.store.serverNow();
    const template = /** @type {HTMLTemplateElement} */ ($('history-row-template'));
    const fragment = document.createDocumentFragment();
    this.shown = new Map();
    for (const job of jobs) {
      const row = /** @type {HTMLElement} */ (template.content.firstElementChild.cloneNode(true));
      this.fill(row, job, now);
      this.shown.set(job.id, job);
      fragment.append(row);
    }
    this.rows.replaceChildren(fragment);
    this.learnStarters(jobs);
    this.table.dataset.count = String(jobs.length);
    show(this.table, jobs.length > 0);
  }

  // Names the "Started by" field suggests: whoever started a job this page has seen.
  /** @param {Job[]} jobs */
  learnStarters(jobs) {
    let learned = false;
    for (const job of jobs) {
      if (typeof job.startedBy === 'string' && job.startedBy && !this.starters.has(job.startedBy)) {
        this.starters.add(job.startedBy);
        learned = true;
      }
    }
    if (!learned) return;
    const options = Array.from(this.starters)
      .sort()
      .map((name) => new Option(name, name));
    $('history-by-names').replaceChildren(...options);
  }

  /** @param {HTMLElement} row @param {Job} job @param {number} now */
  fill(row, job, now) {
    row.dataset.jobId = job.id;
    row.dataset.kind = job.kind;
    row.dataset.state = job.state;
    const start = fmt.isNumber(job.startedAt) ? job.startedAt : job.createdAt;
    const time = /** @type {HTMLTimeElement} */ (part(row, '.history-when time'));
    if (fmt.isNumber(start)) {
      time.dateTime = new Date(start).toISOString();
      setText(time, when(start, now));
      const parts = ['Created ' + fmt.dateTime(job.createdAt)];
      if (fmt.isNumber(job.startedAt)) parts.push('started ' + fmt.dateTime(job.startedAt));
      if (fmt.isNumber(job.finishedAt)) parts.push('finished ' + fmt.dateTime(job.finishedAt));
      time.title = parts.join(', ');
      row.dataset.start = String(start);
    }
    setText(part(row, '.history-kind'), this.kindTitle(job.kind));
    setText(part(row, '.history-params'), paramsSummary(job));
    setText(part(row, '.history-by'), startedByText(job));
    const badge = part(row, '.history-state .badge');
    setText(badge, job.state);
    badge.className = 'badge ' + stateClass(job.state);
    setText(part(row, '.history-took'), took(job, now));
    const result = part(row, '.history-result');
    setText(result, resultText(job));
    result.classList.toggle('failure', isFinalState(job.state) && job.state !== 'succeeded');
    setText(part(row, '.history-id code'), job.id);
  }

  tickRows() {
    const now = this.store.serverNow();
    for (const row of /** @type {HTMLCollectionOf<HTMLElement>} */ (this.rows.children)) {
      const job = this.shown.get(row.dataset.jobId);
      if (job && isActiveState(job.state)) setText(part(row, '.history-took'), took(job, now));
    }
  }

  /** @param {string | null} text */
  showEmpty(text) {
    show(this.empty, text !== null);
    setText(this.empty, text || '');
  }

  drawPager() {
    const first = this.cursors.length <= 1;
    button('history-newer').disabled = first;
    button('history-newest').disabled = first;
    button('history-older').disabled = !this.next;
    const count = Number(this.table.dataset.count || 0);
    const page = this.cursors.length;
    setText(this.pageInfo, count === 0 ? '' : (first ? 'Newest ' : 'Page ' + page + ': ') + fmt.count(count) + (count === 1 ? ' job' : ' jobs'));
    this.pageInfo.dataset.page = String(page);
  }

  drawTimeline() {
    const jobs = new Map(this.recent);
    for (const job of this.store.jobs.values()) jobs.set(job.id, job);
    this.timeline.draw(Array.from(jobs.values()), this.store.serverNow());
  }
}

/** @param {Context} context */
export function mount({ store, api }) {
  const view = new HistoryView(store, api);
  store.onChange((what, detail) => {
    if (what === 'reset') view.reset();
    else if (what === 'job') view.jobChanged(detail.job, detail.created, detail.previous);
  });
}
