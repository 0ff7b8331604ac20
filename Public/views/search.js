// Herald dashboard — Search: the form that starts a search, and the matches of the newest one, each
// occurrence of the query marked. Matches stream in with `results` events; a search this tab did not see
// from its start (opened late, reconnected) gets its matches with `page` once it has ended.
import * as fmt from '../format.js';
import { $, button, clone, input, part, setText, show, inNextFrame } from '../dom.js';
import { isActiveState, isFinalState } from '../store.js';
import { StartFlow } from '../start.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Job} Job */
/** @typedef {import('../types.js').Results} Results */
/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../api.js').Api} Api */

const RESULTS_PAGE = 500;
const FIELD_WORDS = { query: 'The text to find', caseSensitive: 'Case-sensitive' };

// Characters that are syntax in a `u`-flag regular expression.
/** @param {string} text */
function escapeRegExp(text) {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** Fills `container` with `text`, each occurrence of `query` wrapped in a <mark>; text nodes only.
 * @param {Element} container @param {string} text @param {string} query @param {boolean} caseSensitive */
export function highlight(container, text, query, caseSensitive) {
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
  /** @param {Store} store */
  constructor(store) {
    this.store = store;
    this.list = $('matches');
    this.count = $('match-count');
    this.capped = $('match-capped');
    this.shown = 0;
    /** @type {string | null} */
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
        setText(part(li, '.match-loc'), item.file + ':' + line);
        highlight(part(li, '.match-text'), typeof item.text === 'string' ? item.text : '', query, caseSensitive);
        fragment.append(li);
      }
      this.list.append(fragment);
      this.shown = results.items.length;
    }
    this.list.dataset.jobId = results.job;
    this.drawCount(job, results);
  }

  /** @param {Job} job @param {Results} results */
  drawCount(job, results) {
    const max = this.store.maxSearchResults();
    const summary = job.summary || {};
    const total = job.state === 'succeeded' && fmt.isNumber(summary.matches) ? summary.matches : Math.max(results.received, results.items.length);
    const noun = total === 1 ? ' match' : ' matches';
    const forQuery = ' for “' + String(job.params.query) + '”';
    let text;
    if (isActiveState(job.state)) {
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

// The matches of an ended search this tab did not see from its start, page by page with `page`.
class ResultsLoader {
  /** @param {Store} store @param {Api} api @param {MatchesView} view */
  constructor(store, api, view) {
    this.store = store;
    this.api = api;
    this.view = view;
    /** @type {string | null} */
    this.request = null;
  }

  loadMissing() {
    const results = this.store.results;
    if (!results || results.complete || this.request !== null) return;
    const job = this.store.jobs.get(results.job);
    if (!job || !isFinalState(job.state)) return;
    this.requestPage(job.id, 0);
  }

  /** @param {string} jobId @param {number} offset */
  requestPage(jobId, offset) {
    const store = this.store;
    const max = store.maxSearchResults();
    const limit = Math.max(1, Math.min(RESULTS_PAGE, max - offset));
    this.request = this.api.request({ type: 'page', job: jobId, offset, limit }, (reply) => {
      this.request = null;
      if (reply.type !== 'page') {
        store.markResultsComplete(jobId); // nothing more to get; show what we have
        this.view.update();
        return;
      }
      const values = Array.isArray(reply.values) ? reply.values : [];
      store.applyResultsPage(jobId, offset, values, reply.total);
      if (offset > 0 && store.results && store.results.job === jobId && store.results.items.length !== offset + values.length) {
        this.requestPage(jobId, 0); // a snapshot emptied the list while we paged: start over
        return;
      }
      const next = offset + values.length;
      const total = typeof reply.total === 'number' ? reply.total : next;
      if (values.length > 0 && next < Math.min(total, max) && store.results && store.results.job === jobId) {
        this.requestPage(jobId, next);
      } else {
        store.markResultsComplete(jobId);
        this.view.update();
      }
    });
  }
}

/** @param {Context} context */
export function mount({ store, api }) {
  const matches = new MatchesView(store);
  const loader = new ResultsLoader(store, api, matches);
  const start = button('search-start');
  const query = input('search-query');
  const note = $('search-note');
  const errorLine = $('search-error');

  const flow = new StartFlow(store, api, {
    kind: 'search',
    button: start,
    error: errorLine,
    waitForJob: true,
    params: () => ({ query: query.value, caseSensitive: input('search-case').checked }),
    refused(reply) {
      setText(errorLine, fmt.errorText(reply.code, reply.message, FIELD_WORDS));
      if (reply.code !== 'disconnected') query.setAttribute('aria-invalid', String(reply.code === 'bad_request'));
    },
    update() {
      const live = store.isLive();
      const busy = store.isBusy('search');
      start.disabled = !live || busy || !flow.idle();
      start.dataset.busy = String(busy);
      if (busy) setText(note, 'A search is running; Start is available again when it ends.');
      else if (!live) setText(note, 'Waiting for the connection to the server.');
      else setText(note, '');
    },
  });

  store.onChange((what, detail) => {
    if (what === 'reset') {
      matches.update();
      loader.loadMissing();
    } else if (what === 'job' && detail.job.kind === 'search') {
      matches.update();
      if (isFinalState(detail.job.state)) loader.loadMissing();
    } else if (what === 'results') {
      matches.update();
    }
  });
  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    flow.submit();
  });
  query.addEventListener('input', () => query.removeAttribute('aria-invalid'));
  flow.options.update();
}
