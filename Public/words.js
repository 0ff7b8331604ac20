// Herald dashboard — words for jobs, shared by the views that show them (Jobs, History, Sort, the timeline).
// Pure functions, no DOM.
import * as fmt from './format.js';

/** @typedef {import('./types.js').Job} Job */

/** @type {Record<string, string>} */
const kindNames = { search: 'Search', sort: 'Sort', fetch: 'News fetch', ticker: 'Ticker' };

/** @param {string} kind */
export function kindName(kind) {
  return kindNames[kind] || kind;
}

/** @param {Record<string, any> | undefined} object */
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
/** @param {Job} job */
export function placeText(job) {
  const worker = typeof job.worker === 'string' ? 'on ' + job.worker : '';
  const node = typeof job.node === 'string' ? 'node ' + job.node : '';
  if (worker && node) return worker + ' · ' + node;
  return worker || (node ? 'on ' + node : '');
}

/** @param {Job} job */
export function paramsSummary(job) {
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

/** @param {Job} job */
export function summaryText(job) {
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

/** @type {Record<string, string>} */
export const stateWords = {
  queued: 'queued',
  waiting: 'waiting',
  running: 'running',
  succeeded: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
};

/** The CSS class of a state's badge. @param {string} state */
export function stateClass(state) {
  return 'state-' + state.replace(/[^a-z]/g, '');
}

// Who started a job, when the server says: "by schedule nightly" for a schedule's job (docs/schedules.md).
/** @param {Job} job */
export function startedByText(job) {
  if (typeof job.schedule === 'string' && job.schedule) return 'by schedule ' + job.schedule;
  const cancelled = typeof job.cancelledBy === 'string' && job.cancelledBy ? ', cancelled by ' + job.cancelledBy : '';
  // On a server without identities everyone is `anonymous`: saying so on every row tells nothing.
  if (typeof job.startedBy !== 'string' || !job.startedBy || job.startedBy === 'anonymous') return cancelled.slice(2);
  const match = /^schedule:(.+)$/.exec(job.startedBy);
  return (match ? 'by schedule ' + match[1] : 'by ' + job.startedBy) + cancelled;
}
