// Herald dashboard — the Schedules panel (docs/schedules.md): each schedule of the server's jobs file with
// its rule, next run (local time, and how far away), last outcome, pause state and counts, and Pause/Resume
// and Run now. Hidden while the server has none.
//
// The list comes from `GET /api/schedules` (api.js): at each snapshot, soon after a job of a schedule changes
// state (a burst of events is one request), every REFRESH_MS while the tab is visible, and when it becomes
// visible again. One request at a time; a change meanwhile asks for one more afterwards.
import * as fmt from '../format.js';
import { $, clone, part, setText, show } from '../dom.js';
import { ListPoller } from '../poller.js';
import { kindName, stateClass } from '../words.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Schedule} Schedule */
/** @typedef {'pause' | 'resume' | 'run'} Action */

const REFRESH_MS = 5000;
const AFTER_JOB_EVENT_MS = 300;

/** The rule in words: "30 2 * * * (Europe/Berlin)" or "every 10m". @param {Schedule} schedule */
export function ruleText(schedule) {
  if (typeof schedule.cron === 'string') return schedule.cron + ' (' + (schedule.timezone || 'UTC') + ')';
  if (typeof schedule.every === 'string') return 'every ' + schedule.every;
  return '';
}

// The end of a sentence that starts "Could not …: ", from an api.js HttpError.
/** @param {any} error */
function errorWords(error) {
  const code = error && typeof error.code === 'string' ? error.code : '';
  const said = error && typeof error.message === 'string' ? error.message : '';
  const status = error && typeof error.status === 'number' && error.status >= 400 ? ' (HTTP ' + error.status + ')' : '';
  if (code === 'unauthorized' || code === 'rate_limited' || code === 'shutting_down') return fmt.errorText(code, said);
  if (said) return said.replace(/\.?$/, '.') + status;
  return 'the server refused it.' + status;
}

class SchedulesView {
  /** @param {Context} context */
  constructor({ store, api }) {
    this.store = store;
    this.api = api;
    this.section = $('schedules-section');
    this.list = $('schedules-list');
    this.error = $('schedules-error');
    /** @type {Map<string, HTMLElement>} schedule name → row */
    this.rows = new Map();
    /** @type {Map<string, Schedule>} the last answer, by name */
    this.schedules = new Map();
    /** @type {Set<string>} schedules with an action on its way (their buttons stay disabled) */
    this.busy = new Set();
    this.poller = new ListPoller(() => this.load(), AFTER_JOB_EVENT_MS);
    this.list.addEventListener('click', (event) => {
      const target = /** @type {Element} */ (event.target);
      const clicked = /** @type {HTMLButtonElement | null} */ (target.closest('button'));
      const row = /** @type {HTMLElement | null} */ (target.closest('.schedule-row'));
      if (!clicked || !row || clicked.disabled) return;
      /** @type {Action} */
      const action = clicked.classList.contains('schedule-pause') ? 'pause' : clicked.classList.contains('schedule-resume') ? 'resume' : 'run';
      this.act(row.dataset.name || '', action);
    });
  }

  refresh() {
    this.poller.refresh();
  }

  // One request for the list, drawn; a failure is said in the panel.
  async load() {
    try {
      const schedules = await this.api.schedules();
      setText(this.error, '');
      this.draw(schedules);
    } catch (error) {
      // A server without schedules (an older Herald: 404) has no panel; anything else is said in the panel.
      if (error && error.status === 404) this.draw([]);
      else this.fail(error);
    }
  }

  /** @param {any} error */
  fail(error) {
    setText(this.error, 'Could not load the schedules: ' + errorWords(error));
    // A server that could not be reached says so in the header; a panel never shown stays hidden then.
    if (this.schedules.size > 0 || !(error && error.code === 'unreachable')) show(this.section, true);
  }

  /** @param {Schedule[]} schedules */
  draw(schedules) {
    this.schedules = new Map(schedules.map((schedule) => [schedule.name, schedule]));
    show(this.section, schedules.length > 0);
    for (const [name, row] of this.rows) {
      if (this.schedules.has(name)) continue;
      row.remove();
      this.rows.delete(name);
    }
    /** @type {HTMLElement | null} */
    let previous = null;
    for (const schedule of schedules) {
      let row = this.rows.get(schedule.name);
      if (!row) {
        row = clone('schedule-row-template');
        row.dataset.name = schedule.name;
        this.rows.set(schedule.name, row);
      }
      // In the server's order: each row right after the one before it (moves only what moved, keeping focus).
      const expected = previous ? previous.nextElementSibling : this.list.firstElementChild;
      if (expected !== row) {
        if (previous) previous.after(row);
        else this.list.prepend(row);
      }
      this.fill(row, schedule);
      previous = row;
    }
  }

  /** @param {HTMLElement} row @param {Schedule} schedule */
  fill(row, schedule) {
    const now = this.store.serverNow();
    row.dataset.paused = String(schedule.paused === true);
    setText(part(row, '.schedule-name'), schedule.name);
    const info = this.store.kindInfo(schedule.kind);
    setText(part(row, '.schedule-kind'), info && typeof info.title === 'string' && info.title ? info.title : kindName(schedule.kind));
    setText(part(row, '.schedule-rule'), ruleText(schedule));
    const badge = part(row, '.schedule-state');
    setText(badge, schedule.paused ? 'paused' : 'active');
    badge.className = 'schedule-state badge ' + (schedule.paused ? 'schedule-paused' : 'schedule-active');
    this.fillNext(row, schedule, now);
    const last = schedule.last;
    const lastCell = part(row, '.schedule-last');
    if (last && fmt.isNumber(last.at)) {
      const outcome = typeof last.outcome === 'string' ? last.outcome : '?';
      setText(lastCell, outcome + ' · ' + fmt.localWhen(last.at, now) + ' (' + fmt.relative(last.at, now) + ')');
      lastCell.className = 'schedule-last ' + stateClass(outcome.replace(/:.*$/, ''));
      lastCell.title = typeof last.job === 'string' ? 'Job ' + last.job : '';
    } else {
      setText(lastCell, 'not yet');
      lastCell.className = 'schedule-last';
      lastCell.title = '';
    }
    setText(part(row, '.schedule-fired'), fmt.count(schedule.fired));
    setText(part(row, '.schedule-skipped'), fmt.count(schedule.skipped));
    setText(part(row, '.schedule-missed'), fmt.count(schedule.missed));
    const busy = this.busy.has(schedule.name);
    const pause = /** @type {HTMLButtonElement} */ (part(row, '.schedule-pause'));
    const resume = /** @type {HTMLButtonElement} */ (part(row, '.schedule-resume'));
    const run = /** @type {HTMLButtonElement} */ (part(row, '.schedule-run'));
    show(pause, !schedule.paused);
    show(resume, schedule.paused === true);
    for (const control of [pause, resume, run]) {
      control.disabled = busy;
      control.setAttribute('aria-label', control.textContent + ' ' + schedule.name);
    }
  }

  /** @param {HTMLElement} row @param {Schedule} schedule @param {number} now */
  fillNext(row, schedule, now) {
    const time = part(row, '.schedule-next-time');
    const next = schedule.next;
    if (typeof next === 'number' && Number.isFinite(next)) {
      // `next` is an instant by the server's clock; shown in this browser's zone, and how far it is by the
      // server's clock (store.serverNow), so a browser whose clock is off still counts down right.
      setText(time, fmt.localWhen(next, now));
      time.setAttribute('datetime', new Date(next).toISOString());
      time.title = fmt.dateTime(next);
      setText(part(row, '.schedule-next-relative'), '(' + fmt.relative(next, now) + ')');
    } else {
      setText(time, schedule.paused ? 'paused' : 'never');
      time.removeAttribute('datetime');
      time.title = '';
      setText(part(row, '.schedule-next-relative'), '');
    }
  }

  // "in 12 s" moves on between requests.
  tick() {
    const now = this.store.serverNow();
    for (const [name, row] of this.rows) {
      const schedule = this.schedules.get(name);
      if (schedule) this.fillNext(row, schedule, now);
    }
  }

  /** @param {string} name @param {Action} action */
  async act(name, action) {
    const row = this.rows.get(name);
    if (!row || this.busy.has(name)) return;
    setText(part(row, '.schedule-error'), '');
    this.busy.add(name);
    this.redraw(name);
    try {
      const schedule = await this.api.controlSchedule(name, action);
      this.schedules.set(name, schedule);
    } catch (error) {
      const current = this.rows.get(name);
      if (current) setText(part(current, '.schedule-error'), 'Could not ' + action + ' it: ' + errorWords(error));
    } finally {
      this.busy.delete(name);
      this.redraw(name);
    }
    this.refresh();
  }

  /** @param {string} name */
  redraw(name) {
    const row = this.rows.get(name);
    const schedule = this.schedules.get(name);
    if (row && schedule) this.fill(row, schedule);
  }
}

/** @param {Context} context */
export function mount(context) {
  const view = new SchedulesView(context);
  view.poller.follow(context.store, (job) => typeof job.schedule === 'string', REFRESH_MS);
  setInterval(() => view.tick(), 1000);
}
