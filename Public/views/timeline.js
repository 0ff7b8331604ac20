// Herald dashboard — the timeline: the last hour (or the last ten minutes, or minute) with one row per job,
// newest on top, a bar from the job's start to its end (on to now while it runs or waits), coloured by state.
// Plain SVG built with createElementNS; text from the server goes in through textContent. No network here:
// history.js hands it the jobs.
import * as fmt from '../format.js';

/** @typedef {import('../types.js').Job} Job */
/** @typedef {{ job: Job, start: number, end: number, open: boolean }} Bar */

const SVG = 'http://www.w3.org/2000/svg';
export const HOUR_MS = 60 * 60 * 1000;
const MAX_ROWS = 60; // more would make the picture taller than a screen; the list below has every job
const ROW = 16;
const BAR = 10;
const AXIS = 26;
const MIN_BAR = 4; // a job of a few milliseconds still shows
const MIN_LABEL_GAP = 80; // pixels between two tick labels, at least
const TICK_STEPS_S = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600];
const FINAL = new Set(['succeeded', 'failed', 'cancelled', 'interrupted']);

/** @param {unknown} value @returns {value is number} */
function isNumber(value) {
  return typeof value === 'number' && Number.isFinite(value);
}

// The colour class of a state: queued and waiting share one ("waiting"), an unknown state gets its own.
/** @param {string} state */
export function stateClass(state) {
  if (state === 'queued' || state === 'waiting') return 'waiting';
  if (state === 'running' || FINAL.has(state)) return state;
  return 'other';
}

// The bars to draw at `now` (ms, server clock): jobs whose time overlaps [now - windowMs, now], newest start
// first. A final job runs from startedAt (createdAt if it never started) to finishedAt; a queued or waiting
// one from createdAt to now; a running one from startedAt to now. Returns { bars: [{ job, start, end, open }],
// total } with at most maxRows bars.
/** @param {Job[]} jobs @param {number} now @param {number} windowMs @param {number} maxRows */
export function layout(jobs, now, windowMs, maxRows) {
  const from = now - windowMs;
  /** @type {Bar[]} */
  const bars = [];
  for (const job of jobs) {
    const waiting = job.state === 'queued' || job.state === 'waiting';
    const start = !waiting && isNumber(job.startedAt) ? job.startedAt : job.createdAt;
    if (!isNumber(start)) continue;
    const open = !FINAL.has(job.state);
    const end = Math.max(start, open ? now : isNumber(job.finishedAt) ? job.finishedAt : start);
    if (end < from || start > now) continue;
    bars.push({ job, start, end, open });
  }
  bars.sort((a, b) => b.start - a.start || (a.job.id < b.job.id ? 1 : a.job.id > b.job.id ? -1 : 0));
  return { bars: bars.slice(0, maxRows), total: bars.length };
}

// Tick times every `stepMs` on round local times (a time zone's offset is whole minutes) from `from` to `to`.
/** @param {number} from @param {number} to @param {number} stepMs */
function ticks(from, to, stepMs) {
  const offset = -new Date(from).getTimezoneOffset() * 60000;
  const out = [];
  for (let t = Math.ceil((from + offset) / stepMs) * stepMs - offset; t <= to; t += stepMs) out.push(t);
  return out;
}

/** @param {number} ms @param {number} stepMs */
function tickLabel(ms, stepMs) {
  /** @type {Intl.DateTimeFormatOptions} */
  const options = { hour: '2-digit', minute: '2-digit' };
  if (stepMs < 60000) options.second = '2-digit';
  return new Date(ms).toLocaleTimeString(undefined, options);
}

/** @param {string} tag @param {Record<string, string | number>} [attributes] @param {string} [text] @returns {SVGElement} */
function el(tag, attributes, text) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// What hovering a bar shows: id, kind, state, how long, when it started (local time).
/** @param {Bar} bar @param {(kind: string) => string} kindName */
function barTitle(bar, kindName) {
  const job = bar.job;
  const span = fmt.durationMs(bar.end - bar.start);
  let took = span;
  if (job.state === 'queued' || job.state === 'waiting') took = 'waiting for ' + span;
  else if (bar.open) took = span + ' so far';
  const started = (isNumber(job.startedAt) && bar.start === job.startedAt ? 'started ' : 'created ') + fmt.clock(bar.start);
  return job.id + ' · ' + kindName(job.kind) + ' · ' + job.state + ' · ' + took + ' · ' + started;
}

export class Timeline {
  // container: the element the <svg> goes in; note: a <p> for "N more not drawn"; kindName(kind) → words.
  /** @param {HTMLElement} container @param {HTMLElement} note @param {(kind: string) => string} kindName */
  constructor(container, note, kindName) {
    this.container = container;
    this.note = note;
    this.kindName = kindName;
    this.windowMs = HOUR_MS;
    this.width = 0;
    /** @type {{ jobs: Job[], now: number } | null} the arguments of the last draw, to redraw on resize */
    this.last = null;
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(() => {
        if (this.last && this.container.clientWidth !== this.width) this.draw(this.last.jobs, this.last.now);
      }).observe(container);
    }
  }

  // How often a redraw moves the picture by about a pixel or more: often for a minute, rarely for an hour.
  redrawEveryMs() {
    return Math.min(5000, Math.max(500, this.windowMs / 720));
  }

  // The time shown, in ms up to now; the next draw uses it.
  /** @param {number} windowMs */
  setWindow(windowMs) {
    if (Number.isFinite(windowMs) && windowMs > 0) this.windowMs = windowMs;
  }

  // Draws `jobs` (an array of JOB objects) as they were at `now` (ms since the epoch, the server's clock).
  /** @param {Job[]} jobs @param {number} now */
  draw(jobs, now) {
    this.last = { jobs, now };
    const span = this.windowMs;
    const { bars, total } = layout(jobs, now, span, MAX_ROWS);
    this.width = this.container.clientWidth;
    const width = Math.max(300, this.width || 0);
    const gutter = width < 560 ? 72 : 120;
    const plot = width - gutter - 34;
    const height = AXIS + Math.max(bars.length, 2) * ROW + 6;
    const from = now - span;
    const x = (/** @type {number} */ t) => gutter + ((Math.min(now, Math.max(from, t)) - from) / span) * plot;
    const nowX = x(now);

    const svg = el('svg', { width, height, viewBox: '0 0 ' + width + ' ' + height, class: 'timeline-svg', role: 'img' });
    const running = bars.filter((bar) => bar.job.state === 'running').length;
    svg.setAttribute('aria-label', 'Timeline: ' + total + (total === 1 ? ' job' : ' jobs') +
      (running > 0 ? ', ' + running + ' running' : '') + '. The list below has each one.');

    // The axis: grid lines with local times on round minutes (or seconds), and "now" at the right edge.
    const stepS = TICK_STEPS_S.find((s) => (plot * s * 1000) / span >= MIN_LABEL_GAP) || 3600;
    const axis = el('g', { class: 'tl-axis' });
    for (const t of ticks(from, now, stepS * 1000)) {
      const tx = x(t);
      axis.append(el('line', { class: 'tl-grid', x1: tx, x2: tx, y1: AXIS - 6, y2: height }));
      if (tx - gutter > 40 && nowX - tx > 40) {
        const label = el('text', { class: 'tl-tick', x: tx, y: AXIS - 10, 'text-anchor': 'middle' }, tickLabel(t, stepS * 1000));
        label.dataset.time = String(t);
        axis.append(label);
      }
    }
    axis.append(el('line', { class: 'tl-base', x1: gutter, x2: nowX, y1: AXIS - 6, y2: AXIS - 6 }));
    axis.append(el('line', { class: 'tl-now', x1: nowX, x2: nowX, y1: AXIS - 12, y2: height }));
    axis.append(el('text', { class: 'tl-tick tl-now-label', x: nowX, y: AXIS - 14, 'text-anchor': 'middle' }, 'now'));
    svg.append(axis);

    const rows = el('g', { class: 'tl-rows' });
    bars.forEach((bar, i) => {
      const y = AXIS + i * ROW;
      const kind = this.kindName(bar.job.kind);
      rows.append(el('text', { class: 'tl-label', x: gutter - 8, y: y + BAR, 'text-anchor': 'end' },
        kind.length > 16 ? kind.slice(0, 15) + '…' : kind));
      const x2 = x(bar.end);
      const x1 = Math.min(x(bar.start), x2 - MIN_BAR); // a short bar grows to the left: its end stays true
      const rect = el('rect', {
        class: 'tl-bar tl-' + stateClass(bar.job.state) + (bar.open ? ' tl-open' : ''),
        x: x1.toFixed(1), y: y + 2, width: (x2 - x1).toFixed(1), height: BAR, rx: 2,
      });
      rect.dataset.jobId = bar.job.id;
      rect.dataset.state = bar.job.state;
      rect.append(el('title', {}, barTitle(bar, this.kindName)));
      rows.append(rect);
    });
    if (bars.length === 0) {
      rows.append(el('text', { class: 'tl-empty', x: gutter + plot / 2, y: AXIS + ROW + 4, 'text-anchor': 'middle' },
        'No jobs in this time.'));
    }
    svg.append(rows);
    this.container.replaceChildren(svg);
    this.container.dataset.count = String(total);
    this.container.dataset.now = String(now);
    this.container.dataset.nowX = nowX.toFixed(1);
    const hidden = total - bars.length;
    this.note.textContent = hidden > 0 ? 'The ' + bars.length + ' newest of ' + total + ' jobs are drawn; the list below has them all.' : '';
  }
}
