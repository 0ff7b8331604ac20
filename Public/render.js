// Herald dashboard — rendering. Server data reaches the page only through textContent, text nodes and
// attributes set from JS; rows are cloned from <template>s. Nothing here talks to the network.
(function () {
  'use strict';
  const Herald = (window.Herald = window.Herald || {});
  const fmt = Herald.format;

  const MAX_JOB_ROWS = 200;

  function $(id) {
    return document.getElementById(id);
  }

  function clone(templateId) {
    return $(templateId).content.firstElementChild.cloneNode(true);
  }

  function setText(element, text) {
    const value = text === null || text === undefined ? '' : String(text);
    if (element.textContent !== value) element.textContent = value;
  }

  function show(element, visible) {
    if (element.hidden === visible) element.hidden = !visible;
  }

  // ---- frame batching: many events, one DOM update per frame (and still some when the tab is hidden) ----

  const pendingWork = new Map();
  let frameScheduled = false;

  function runFrame() {
    if (!frameScheduled) return;
    frameScheduled = false;
    const work = Array.from(pendingWork.values());
    pendingWork.clear();
    for (const task of work) task();
  }

  function inNextFrame(key, task) {
    pendingWork.set(key, task);
    if (frameScheduled) return;
    frameScheduled = true;
    requestAnimationFrame(runFrame);
    setTimeout(runFrame, 250); // rAF does not run in background tabs
  }

  // ---- words for jobs ----------------------------------------------------------------------------

  const kindNames = { search: 'Search', sort: 'Sort', fetch: 'News fetch', ticker: 'Ticker' };

  function kindName(kind) {
    return kindNames[kind] || kind;
  }

  function primitivePairs(object) {
    const parts = [];
    for (const key of Object.keys(object || {})) {
      const value = object[key];
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) parts.push(key + ': ' + String(value));
    }
    return parts.join(', ');
  }

  // Where a job runs: "on gpu-1" (a remote worker, docs/workers.md), "on node n2" (a cluster node,
  // docs/scaling.md), both, or nothing for a single server's own jobs.
  function placeText(job) {
    const worker = typeof job.worker === 'string' ? 'on ' + job.worker : '';
    const node = typeof job.node === 'string' ? 'node ' + job.node : '';
    if (worker && node) return worker + ' · ' + node;
    return worker || (node ? 'on ' + node : '');
  }

  function paramsSummary(job) {
    const p = job.params || {};
    switch (job.kind) {
      case 'search': {
        let text = '“' + String(p.query === undefined ? '' : p.query) + '”';
        if (p.caseSensitive === true) text += ', case-sensitive';
        if (typeof p.path === 'string' && p.path) text += ' in ' + p.path;
        return text;
      }
      case 'sort':
        return fmt.count(typeof p.count === 'number' ? p.count : 10000) + ' numbers';
      case 'fetch':
        return p.background === true ? 'news feed, automatic' : 'news feed';
      case 'ticker':
        return (fmt.isNumber(p.rate) ? fmt.compact(p.rate) + '/s' : '') + (fmt.isNumber(p.duration) ? ' for ' + p.duration + ' s' : '');
      default:
        return primitivePairs(p).slice(0, 120);
    }
  }

  function summaryText(job) {
    const s = job.summary || {};
    switch (job.kind) {
      case 'search': {
        let text = fmt.count(s.matches) + (s.matches === 1 ? ' match' : ' matches') + ' in ' + fmt.count(s.files) +
          (s.files === 1 ? ' file' : ' files') + ', ' + fmt.bytes(s.bytes) + ' searched';
        if (s.capped === true) text += ' (list capped)';
        return text;
      }
      case 'sort':
        return fmt.count(s.count) + ' numbers from ' + fmt.count(s.min) + ' to ' + fmt.count(s.max) +
          '; data file ' + (s.created === true ? 'created' : s.created === false ? 'reused' : '?');
      case 'fetch':
        return fmt.count(s.newItems) + (s.newItems === 1 ? ' new headline' : ' new headlines');
      case 'ticker':
        return fmt.count(s.events) + ' events';
      default:
        return primitivePairs(s);
    }
  }

  const stateWords = {
    queued: 'queued',
    waiting: 'waiting',
    running: 'running',
    succeeded: 'done',
    failed: 'failed',
    cancelled: 'cancelled',
    interrupted: 'interrupted',
  };

  // ---- jobs ----------------------------------------------------------------------------------------

  class JobsView {
    // decorate(row, job), optional: another view's additions to a row (the log view's Log button).
    constructor(store, onCancel, decorate) {
      this.store = store;
      this.decorate = decorate || null;
      this.list = $('jobs');
      this.empty = $('jobs-empty');
      this.more = $('jobs-more');
      this.rows = new Map(); // job id → row element
      this.list.addEventListener('click', (event) => {
        const button = event.target.closest('.job-cancel');
        if (!button || button.disabled) return;
        const row = button.closest('.job-row');
        if (row) onCancel(row.dataset.jobId, row);
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

    upsert(job) {
      let row = this.rows.get(job.id);
      if (!row) {
        row = clone('job-row-template');
        this.rows.set(job.id, row);
        this.list.prepend(row);
        while (this.rows.size > MAX_JOB_ROWS) {
          const last = this.list.lastElementChild;
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

    progress(job) {
      const id = job.id;
      inNextFrame('job:' + id, () => {
        const row = this.rows.get(id);
        const current = this.store.jobs.get(id); // the newest copy: a job event may have replaced it since
        if (row && current) this.fillProgress(row, current);
      });
    }

    updateCounts() {
      show(this.empty, this.rows.size === 0);
      const hiddenCount = this.store.jobs.size - this.rows.size;
      show(this.more, hiddenCount > 0);
      if (hiddenCount > 0) setText(this.more, fmt.count(hiddenCount) + ' older jobs not shown.');
    }

    fill(row, job) {
      row.dataset.jobId = job.id;
      row.dataset.kind = job.kind;
      row.dataset.state = job.state;
      setText(row.querySelector('.job-kind'), kindNames[job.kind] || job.kind);
      const after = Array.isArray(job.after) && job.after.length > 0 ? ' · after ' + job.after.length + (job.after.length === 1 ? ' job' : ' jobs') : '';
      setText(row.querySelector('.job-params'), paramsSummary(job) + after);
      setText(row.querySelector('.job-worker'), placeText(job));
      const badge = row.querySelector('.job-state');
      setText(badge, stateWords[job.state] || job.state);
      badge.dataset.state = job.state;
      badge.className = 'job-state badge state-' + job.state.replace(/[^a-z]/g, '');
      const outcome = row.querySelector('.job-outcome');
      if (job.state === 'succeeded') {
        setText(outcome, summaryText(job));
        outcome.className = 'job-outcome';
      } else if (Herald.isFinalState(job.state)) {
        setText(outcome, typeof job.error === 'string' && job.error ? job.error : 'The job ' + job.state + '.');
        outcome.className = 'job-outcome failure';
      } else {
        setText(outcome, '');
        outcome.className = 'job-outcome';
      }
      const cancel = row.querySelector('.job-cancel');
      const active = Herald.isActiveState(job.state);
      show(cancel, active);
      if (!active) {
        cancel.disabled = false;
        delete row.dataset.cancelling;
      } else {
        cancel.disabled = row.dataset.cancelling === 'true';
      }
      cancel.setAttribute('aria-label', 'Cancel ' + (kindNames[job.kind] || job.kind) + ' ' + paramsSummary(job));
      this.fillProgress(row, job);
      this.fillTimes(row, job);
      if (this.decorate) this.decorate(row, job);
    }

    fillProgress(row, job) {
      const p = job.progress || {};
      const bar = row.querySelector('.job-progress');
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
      bar.setAttribute('aria-label', (kindNames[job.kind] || job.kind) + ' progress');
      setText(row.querySelector('.job-percent'), job.state === 'queued' || job.state === 'waiting' ? '' : fmt.percent(fraction));
      const running = job.state === 'running';
      setText(row.querySelector('.job-rate'), running ? fmt.rate(job.kind, p.rate) : '—');
      setText(row.querySelector('.job-eta'), running && fmt.isNumber(p.eta) ? fmt.duration(p.eta) : '—');
      let message = running && typeof p.message === 'string' ? p.message : '';
      if (this.store.waitsForWorker(job)) message = 'waiting for a worker';
      setText(row.querySelector('.job-message'), message);
    }

    fillTimes(row, job) {
      const now = this.store.serverNow();
      const label = row.querySelector('.job-time-label');
      const value = row.querySelector('.job-elapsed');
      if (Herald.isFinalState(job.state)) {
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

    tick() {
      for (const [id, row] of this.rows) {
        const job = this.store.jobs.get(id);
        if (job && Herald.isActiveState(job.state)) this.fillTimes(row, job);
      }
    }
  }

  // ---- matches -------------------------------------------------------------------------------------

  // Characters that are syntax in a `u`-flag regular expression.
  function escapeRegExp(text) {
    return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }

  // Fills `container` with `text`, each occurrence of `query` wrapped in a <mark>; text nodes only.
  function highlight(container, text, query, caseSensitive) {
    container.replaceChildren();
    let pattern = null;
    if (typeof query === 'string' && query.length > 0) {
      try {
        pattern = new RegExp(escapeRegExp(query), caseSensitive ? 'gu' : 'giu');
      } catch (error) {
        pattern = null;
      }
    }
    if (!pattern) {
      container.append(document.createTextNode(text));
      return;
    }
    let last = 0;
    let found;
    while ((found = pattern.exec(text)) !== null) {
      if (found[0].length === 0) {
        pattern.lastIndex += 1;
        continue;
      }
      if (found.index > last) container.append(document.createTextNode(text.slice(last, found.index)));
      const mark = document.createElement('mark');
      mark.textContent = found[0];
      container.append(mark);
      last = found.index + found[0].length;
    }
    if (last < text.length) container.append(document.createTextNode(text.slice(last)));
  }

  class MatchesView {
    constructor(store) {
      this.store = store;
      this.list = $('matches');
      this.count = $('match-count');
      this.capped = $('match-capped');
      this.shown = 0;
      this.shownJob = null;
      this.shownGeneration = 0;
    }

    // Draws what changed since the last call: appends new matches, or redraws after a reset.
    update() {
      inNextFrame('matches', () => this.draw());
    }

    draw() {
      const results = this.store.results;
      const job = results ? this.store.jobs.get(results.job) : null;
      if (!results || !job) {
        this.list.replaceChildren();
        this.shown = 0;
        this.shownJob = null;
        setText(this.count, 'No search yet.');
        show(this.capped, false);
        return;
      }
      const generation = results.generation || 0;
      if (this.shownJob !== results.job || this.shownGeneration !== generation || this.shown > results.items.length) {
        this.list.replaceChildren();
        this.shown = 0;
        this.shownJob = results.job;
        this.shownGeneration = generation;
      }
      const query = job.params && typeof job.params.query === 'string' ? job.params.query : '';
      const caseSensitive = !!(job.params && job.params.caseSensitive === true);
      if (this.shown < results.items.length) {
        const fragment = document.createDocumentFragment();
        for (const item of results.items.slice(this.shown)) {
          const li = clone('match-template');
          const line = fmt.isNumber(item.line) ? String(item.line) : '?';
          setText(li.querySelector('.match-loc'), item.file + ':' + line);
          highlight(li.querySelector('.match-text'), typeof item.text === 'string' ? item.text : '', query, caseSensitive);
          fragment.append(li);
        }
        this.list.append(fragment);
        this.shown = results.items.length;
      }
      this.list.dataset.jobId = results.job;
      this.drawCount(job, results);
    }

    drawCount(job, results) {
      const max = this.store.maxSearchResults();
      const summary = job.summary || {};
      const total = job.state === 'succeeded' && fmt.isNumber(summary.matches) ? summary.matches : Math.max(results.received, results.items.length);
      const noun = total === 1 ? ' match' : ' matches';
      const forQuery = ' for “' + String(job.params.query) + '”';
      let text;
      if (Herald.isActiveState(job.state)) {
        text = fmt.count(total) + noun + ' so far' + forQuery;
        if (!results.complete) text += ' (earlier ones load when the search ends)';
      } else if (job.state === 'succeeded') {
        text = fmt.count(total) + noun + forQuery + ' in ' + fmt.count(summary.files) + (summary.files === 1 ? ' file' : ' files');
      } else {
        text = fmt.count(total) + noun + forQuery + ' before the search ' + (job.state === 'failed' ? 'failed' : 'was ' + job.state);
      }
      setText(this.count, text);
      this.count.dataset.count = String(total);
      const capped = summary.capped === true || results.items.length >= max;
      show(this.capped, capped);
      if (capped) {
        setText(this.capped, 'Showing the first ' + fmt.count(Math.min(max, results.items.length)) + ' matches' +
          (fmt.isNumber(summary.matches) ? ' of ' + fmt.count(summary.matches) : '') + ' (the server keeps at most ' + fmt.count(max) + ').');
      }
    }
  }

  // ---- news ----------------------------------------------------------------------------------------

  class NewsView {
    constructor() {
      this.list = $('news-list');
      this.empty = $('news-empty');
      this.stale = $('news-stale');
      this.newCount = $('news-new-count');
      this.shownIds = new Set();
      this.revision = null;
    }

    // Draws `items` (newest first); those in `fresh` (a Set of ids) are marked new.
    draw(feed, fresh) {
      const fragment = document.createDocumentFragment();
      for (const item of feed.items) {
        const li = clone('news-template');
        li.dataset.newsId = item.id;
        if (fresh && fresh.has(item.id)) li.classList.add('is-new');
        const time = li.querySelector('.news-time');
        if (fmt.isNumber(item.time)) {
          time.dateTime = new Date(item.time).toISOString();
          setText(time, fmt.clock(item.time));
          time.title = fmt.dateTime(item.time);
        }
        setText(li.querySelector('.news-headline'), typeof item.headline === 'string' ? item.headline : '');
        fragment.append(li);
      }
      this.list.replaceChildren(fragment);
      this.shownIds = new Set(feed.items.map((item) => item.id));
      this.revision = feed.revision;
      this.list.dataset.revision = String(feed.revision);
      show(this.empty, feed.items.length === 0);
    }

    countUnseen(feed) {
      return feed.items.filter((item) => !this.shownIds.has(item.id)).length;
    }

    setStale(stale) {
      show(this.stale, stale);
      this.list.classList.toggle('stale', stale);
      this.list.dataset.stale = String(stale);
    }

    setNewCount(count) {
      show(this.newCount, count !== null);
      setText(this.newCount, count === null ? '' : fmt.count(count) + ' new');
      this.newCount.dataset.count = count === null ? '' : String(count);
    }
  }

  // ---- sort ----------------------------------------------------------------------------------------

  class SortView {
    constructor() {
      this.summary = $('sort-summary');
      this.pager = $('sort-pager');
      this.rows = $('sort-rows');
      this.info = $('sort-page-info');
      this.prev = $('sort-prev');
      this.next = $('sort-next');
      this.table = $('sort-table');
    }

    drawSummary(job) {
      show(this.summary, !!job);
      show(this.pager, !!job);
      if (!job) return;
      const s = job.summary || {};
      this.summary.dataset.jobId = job.id;
      setText($('sort-summary-count'), fmt.count(s.count));
      setText($('sort-summary-min'), fmt.count(s.min));
      setText($('sort-summary-max'), fmt.count(s.max));
      const created = $('sort-summary-created');
      setText(created, s.created === true ? 'created now' : s.created === false ? 'reused from an earlier run' : '—');
      created.dataset.created = String(s.created);
      this.summary.dataset.count = String(s.count);
      this.summary.dataset.min = String(s.min);
      this.summary.dataset.max = String(s.max);
      this.summary.dataset.created = String(s.created);
    }

    // Reuses the table's rows, so paging does not make the layout jump.
    drawPage(offset, values, total) {
      const have = this.rows.children.length;
      for (let i = have; i < values.length; i += 1) this.rows.append(clone('sort-row-template'));
      while (this.rows.children.length > values.length) this.rows.lastElementChild.remove();
      values.forEach((value, i) => {
        const tr = this.rows.children[i];
        tr.dataset.row = String(offset + i);
        setText(tr.children[0], fmt.count(offset + i + 1));
        setText(tr.children[1], typeof value === 'number' ? fmt.count(value) : String(value));
        tr.children[1].dataset.value = String(value);
      });
      this.table.dataset.offset = String(offset);
      this.table.removeAttribute('aria-busy');
      this.drawPosition(offset, values.length, total);
    }

    drawPosition(offset, length, total) {
      if (length > 0) {
        setText(this.info, 'Rows ' + fmt.count(offset + 1) + '–' + fmt.count(offset + length) + ' of ' + fmt.count(total));
      } else {
        setText(this.info, total > 0 ? 'No rows there.' : 'No rows.');
      }
    }

    busy(flag) {
      if (flag) this.table.setAttribute('aria-busy', 'true');
      else this.table.removeAttribute('aria-busy');
    }

    clear() {
      this.rows.replaceChildren();
      setText(this.info, '');
    }
  }

  // ---- connection status ---------------------------------------------------------------------------

  // The state words are announced (role=status); the ticking countdown is for the eyes only.
  function drawStatus(status) {
    const element = $('status');
    const label = element.querySelector('.status-label');
    const countdown = element.querySelector('.status-countdown');
    const retryButton = $('reconnect-now');
    element.dataset.state = status.state;
    const words = {
      live: 'Live',
      connecting: 'Connecting…',
      reconnecting: 'Reconnecting',
      offline: 'Offline — waiting for the network',
    };
    setText(label, words[status.state] || status.state);
    if (status.state === 'reconnecting' && status.retryAt) {
      const seconds = Math.max(0, Math.ceil((status.retryAt - Date.now()) / 1000));
      setText(countdown, ' in ' + seconds + ' s');
      element.dataset.countdown = String(seconds);
    } else {
      setText(countdown, status.state === 'reconnecting' ? '…' : '');
      delete element.dataset.countdown;
    }
    show(retryButton, status.state === 'reconnecting' && !!status.retryAt);
  }

  Herald.render = { $, setText, show, highlight, kindName, paramsSummary, summaryText, inNextFrame, drawStatus, JobsView, MatchesView, NewsView, SortView };
})();
