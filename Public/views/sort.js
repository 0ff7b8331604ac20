// Herald dashboard — Sort: the form that starts a sort, the summary of the sort shown (the one this tab
// started, once it succeeded; otherwise the newest that succeeded) and its numbers a page at a time.
import * as fmt from '../format.js';
import { $, button, clone, input, setText, show } from '../dom.js';
import { isActiveState, isFinalState } from '../store.js';
import { StartFlow } from '../start.js';
import { paramsSummary } from '../words.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Job} Job */

const SORT_PAGE = 100;
const DEFAULT_MAX_SORT = 50000000;
const FIELD_WORDS = { count: 'The count', job: 'The job' };

class SortTable {
  constructor() {
    this.summary = $('sort-summary');
    this.pager = $('sort-pager');
    this.rows = $('sort-rows');
    this.info = $('sort-page-info');
    this.table = $('sort-table');
  }

  /** @param {Job | null} job */
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
  /** @param {number} offset @param {any[]} values @param {number} total */
  drawPage(offset, values, total) {
    const have = this.rows.children.length;
    for (let i = have; i < values.length; i += 1) this.rows.append(clone('sort-row-template'));
    while (this.rows.children.length > values.length) this.rows.lastElementChild.remove();
    values.forEach((value, i) => {
      const tr = /** @type {HTMLElement} */ (this.rows.children[i]);
      tr.dataset.row = String(offset + i);
      setText(tr.children[0], fmt.count(offset + i + 1));
      setText(tr.children[1], typeof value === 'number' ? fmt.count(value) : String(value));
      /** @type {HTMLElement} */ (tr.children[1]).dataset.value = String(value);
    });
    this.table.dataset.offset = String(offset);
    this.table.removeAttribute('aria-busy');
    this.drawPosition(offset, values.length, total);
  }

  /** @param {number} offset @param {number} length @param {number} total */
  drawPosition(offset, length, total) {
    if (length > 0) {
      setText(this.info, 'Rows ' + fmt.count(offset + 1) + '–' + fmt.count(offset + length) + ' of ' + fmt.count(total));
    } else {
      setText(this.info, total > 0 ? 'No rows there.' : 'No rows.');
    }
  }

  /** @param {boolean} flag */
  busy(flag) {
    if (flag) this.table.setAttribute('aria-busy', 'true');
    else this.table.removeAttribute('aria-busy');
  }

  clear() {
    this.rows.replaceChildren();
    setText(this.info, '');
  }
}

/** @param {Context} context */
export function mount({ store, api }) {
  const table = new SortTable();
  const start = button('sort-start');
  const count = input('sort-count');
  const errorLine = $('sort-error');
  /** @type {string | null} the sort job this tab started last */
  let mine = null;
  /** @type {{ job: string | null, offset: number, total: number, request: string | null }} the sort shown */
  let shown = { job: null, offset: 0, total: 0, request: null };

  const flow = new StartFlow(store, api, {
    kind: 'sort',
    button: start,
    error: errorLine,
    params() {
      const max = fmt.isNumber(store.limits.maxSortCount) ? store.limits.maxSortCount : DEFAULT_MAX_SORT;
      const value = Number(count.value);
      if (count.value.trim() === '' || !Number.isInteger(value)) {
        setText(errorLine, 'Enter a whole number from 1 to ' + fmt.count(max) + '.');
        count.setAttribute('aria-invalid', 'true');
        return null;
      }
      count.removeAttribute('aria-invalid');
      return { count: value };
    },
    accepted(job) {
      mine = job;
    },
    refused(reply) {
      setText(errorLine, fmt.errorText(reply.code, reply.message, FIELD_WORDS));
      if (reply.code !== 'disconnected') count.setAttribute('aria-invalid', String(reply.code === 'bad_request'));
    },
    update() {
      start.disabled = !store.isLive() || flow.request !== null || store.isBusy('sort');
      drawSort();
    },
  });

  // The sort shown: the one this tab started, once it succeeded; otherwise the newest that succeeded.
  function pickSortJob() {
    const job = mine ? store.jobs.get(mine) : null;
    if (job && job.state === 'succeeded') return job;
    return store.latestOfKind('sort', (other) => other.state === 'succeeded');
  }

  function drawSort() {
    const note = $('sort-note');
    const started = mine ? store.jobs.get(mine) : null;
    if (started && isActiveState(started.state)) {
      setText(note, 'Sorting ' + paramsSummary(started) + '… (progress under Jobs)');
    } else if (started && isFinalState(started.state) && started.state !== 'succeeded') {
      setText(note, 'The last sort ' + started.state + (started.error ? ': ' + started.error : '.'));
    } else {
      setText(note, '');
    }
    const job = pickSortJob();
    if (!job) {
      if (shown.job !== null) {
        shown = { job: null, offset: 0, total: 0, request: null };
        table.clear();
      }
      table.drawSummary(null);
      return;
    }
    table.drawSummary(job);
    if (shown.job !== job.id) {
      const total = job.summary && fmt.isNumber(job.summary.count) ? job.summary.count : 0;
      shown = { job: job.id, offset: 0, total, request: null };
      table.clear();
      loadPage(0);
    }
  }

  /** @param {number} offset */
  function loadPage(offset) {
    const view = shown;
    if (!view.job) return;
    const lastStart = Math.max(0, view.total - 1);
    view.offset = Math.max(0, Math.min(offset, lastStart));
    drawPagerButtons();
    table.busy(true);
    const wanted = view.offset;
    view.request = api.request({ type: 'page', job: view.job, offset: wanted, limit: SORT_PAGE }, (reply) => {
      if (shown.request !== reply.requestId) return; // an older page, overtaken by a newer click
      shown.request = null;
      table.busy(false);
      if (reply.type === 'page') {
        setText(errorLine, '');
        const values = Array.isArray(reply.values) ? reply.values : [];
        if (fmt.isNumber(reply.total)) shown.total = reply.total;
        table.drawPage(fmt.isNumber(reply.offset) ? reply.offset : wanted, values, shown.total);
      } else if (reply.type === 'error') {
        setText(errorLine, reply.code === 'not_found' || reply.code === 'gone' ? 'The sorted numbers of that job are no longer available.'
          : fmt.errorText(reply.code, reply.message, FIELD_WORDS));
      }
      drawPagerButtons();
    });
  }

  function drawPagerButtons() {
    button('sort-prev').disabled = !shown.job || shown.offset <= 0;
    button('sort-next').disabled = !shown.job || shown.offset + SORT_PAGE >= shown.total;
    input('sort-goto').max = String(Math.max(1, shown.total));
  }

  /** @param {Event} event */
  function gotoRow(event) {
    event.preventDefault();
    const field = input('sort-goto');
    const row = Number(field.value);
    if (!Number.isInteger(row) || row < 1 || row > shown.total) {
      setText(errorLine, 'Enter a row from 1 to ' + fmt.count(shown.total) + '.');
      field.setAttribute('aria-invalid', 'true');
      return;
    }
    field.removeAttribute('aria-invalid');
    setText(errorLine, '');
    loadPage(row - 1);
  }

  store.onChange((what) => {
    if (what === 'reset' && fmt.isNumber(store.limits.maxSortCount)) count.max = String(store.limits.maxSortCount);
  });
  $('sort-form').addEventListener('submit', (event) => {
    event.preventDefault();
    flow.submit();
  });
  $('sort-prev').addEventListener('click', () => loadPage(shown.offset - SORT_PAGE));
  $('sort-next').addEventListener('click', () => loadPage(shown.offset + SORT_PAGE));
  $('sort-goto-form').addEventListener('submit', gotoRow);
  show($('sort-summary'), false);
  drawPagerButtons();
  flow.options.update();
}
