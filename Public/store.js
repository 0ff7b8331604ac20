// Herald dashboard — the client's copy of the server state (docs/protocol.md).
// A snapshot replaces it wholesale; numbered events are applied in order, once each. No DOM here: the
// store tells its subscribers what changed ('reset', 'job', 'progress', 'results', 'news', 'workers', 'log',
// 'status') and each view decides what to redraw, so a new view subscribes itself and app.js wires nothing.

// The server's shapes live in types.js.
/** @typedef {import('./types.js').Job} Job */
/** @typedef {import('./types.js').Limits} Limits */
/** @typedef {import('./types.js').KindInfo} KindInfo */
/** @typedef {import('./types.js').Worker} Worker */
/** @typedef {import('./types.js').NewsFeed} NewsFeed */
/** @typedef {import('./types.js').Results} Results */
/** @typedef {import('./types.js').Match} Match */
/** @typedef {import('./types.js').Status} Status */
/** @typedef {import('./types.js').Principal} Principal */
/** @typedef {(what: string, detail: any) => void} Listener */

const ACTIVE_STATES = new Set(['queued', 'waiting', 'running']);
const FINAL_STATES = new Set(['succeeded', 'failed', 'cancelled', 'interrupted']);
const MAX_JOBS_KEPT = 500;
const DEFAULT_MAX_RESULTS = 1000;

/** @param {string} state */
export const isActiveState = (state) => ACTIVE_STATES.has(state);
/** @param {string} state */
export const isFinalState = (state) => FINAL_STATES.has(state);

// The shape checks every message goes through before it is used; api.js checks HTTP replies with them too.
/** @param {any} value @returns {boolean} */
export function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** @param {any} value @returns {value is Job} */
export function isJob(value) {
  return isObject(value) && typeof value.id === 'string' && typeof value.kind === 'string' && typeof value.state === 'string';
}

/** @param {any} value @returns {value is Match} */
function isMatch(value) {
  return isObject(value) && typeof value.file === 'string';
}

/** @param {any} value @returns {value is Worker} */
function isWorker(value) {
  return isObject(value) && typeof value.name === 'string' && Array.isArray(value.kinds);
}

/** @param {any} value @returns {value is import('./types.js').NewsItem} */
function isNewsItem(value) {
  return isObject(value) && typeof value.id === 'string';
}

/** @param {Job} job */
function normalizeJob(job) {
  if (!isObject(job.params)) job.params = {};
  if (!isObject(job.progress)) job.progress = { completed: 0, total: 0, fraction: 0, message: null };
  return job;
}

export class Store {
  constructor() {
    /** @type {Listener[]} */
    this.listeners = [];
    /** @type {Status} the connection, as the header shows it */
    this.status = { state: 'connecting', retryAt: null };
    this.epoch = null;
    this.seq = null;
    /** @type {Map<string, Job>} id → JOB, in creation order (oldest first) */
    this.jobs = new Map();
    /** @type {NewsFeed} */
    this.news = { revision: 0, items: [] };
    /** @type {Limits} */
    this.limits = {};
    /** @type {Worker[]} connected remote workers (docs/workers.md) */
    this.workers = [];
    /** @type {Results | null} the matches of the newest search job */
    this.results = null;
    this.clockOffsetMs = 0; // server clock minus ours, from event timestamps
    this.bestClockSample = -Infinity;
    this.snapshots = { count: 0, lastReason: null }; // for the curious (and the tests)
    /** @type {Principal | null} who this page is signed in as (`GET /api/session`); null until known */
    this.principal = null;
  }

  /** @param {Principal} principal */
  setPrincipal(principal) {
    this.principal = principal;
    this.emit('principal', { principal });
  }

  // Whether this page's identity may cancel the job (the server decides; this keeps the button away
  // where it would only be refused): admins any job, operators their own and schedules' and nobody's.
  /** @param {Job} job */
  mayCancel(job) {
    const principal = this.principal;
    // Anonymous: the server may want a token (its refusal opens the sign-in prompt), so keep the control.
    if (principal === null || principal.via === 'anonymous' || principal.role === 'admin') return true;
    if (principal.role !== 'operator') return false;
    const by = job.startedBy;
    return !by || by === principal.name || by === 'anonymous' || by.startsWith('schedule:');
  }

  // Subscribers hear every change, in the order they subscribed (app.js mounts the views in page order).
  /** @param {Listener} listener @returns {() => void} unsubscribes */
  onChange(listener) {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((other) => other !== listener);
    };
  }

  /** @param {string} what @param {object} [detail] */
  emit(what, detail) {
    // A copy: a listener may subscribe or unsubscribe others (a snapshot rebuilds the kinds' forms).
    for (const listener of this.listeners.slice()) listener(what, detail || {});
  }

  // The connection's state lives here too, so a control that depends on it and on the jobs hears both.
  /** @param {Status} status */
  setStatus(status) {
    this.status = status;
    this.emit('status', { status });
  }

  isLive() {
    return this.status.state === 'live';
  }

  // The position to resume from, or null before the first snapshot.
  resumePoint() {
    return this.epoch !== null && this.seq !== null ? { epoch: this.epoch, since: this.seq } : null;
  }

  maxSearchResults() {
    const max = this.limits && this.limits.maxSearchResults;
    return typeof max === 'number' && max > 0 ? max : DEFAULT_MAX_RESULTS;
  }

  serverNow() {
    return Date.now() + this.clockOffsetMs;
  }

  newConnection() {
    this.bestClockSample = -Infinity;
  }

  // Events replayed from the server's log carry old timestamps, so the largest sample on a connection is the
  // freshest estimate of the server's clock.
  sampleClock(tsMicros) {
    if (typeof tsMicros !== 'number' || !Number.isFinite(tsMicros)) return;
    const sample = tsMicros / 1000 - Date.now();
    if (sample > this.bestClockSample) {
      this.bestClockSample = sample;
      this.clockOffsetMs = Math.abs(sample) < 250 ? 0 : sample;
    }
  }

  // ---- snapshot ----------------------------------------------------------------------------------

  applySnapshot(message) {
    this.snapshots.count += 1;
    this.snapshots.lastReason = typeof message.reason === 'string' ? message.reason : null;
    this.epoch = typeof message.epoch === 'string' ? message.epoch : null;
    this.seq = typeof message.seq === 'number' ? message.seq : null;
    this.limits = isObject(message.limits) ? message.limits : {};
    this.workers = Array.isArray(message.workers) ? message.workers.filter(isWorker) : [];
    this.jobs = new Map();
    const jobs = Array.isArray(message.jobs) ? message.jobs.filter(isJob) : [];
    for (const job of jobs) this.jobs.set(job.id, normalizeJob(job));
    const news = isObject(message.news) ? message.news : {};
    this.news = {
      revision: typeof news.revision === 'number' ? news.revision : 0,
      items: Array.isArray(news.items) ? news.items.filter(isNewsItem) : [],
    };
    // Matches are not part of a snapshot: keep ours only when we saw that search from its start to its end;
    // otherwise start over and let the app load them with `page` once the search has ended.
    const latest = this.latestSearch();
    const kept = this.results;
    if (!latest) {
      this.results = null;
    } else if (!(kept && kept.job === latest.id && kept.complete && kept.sawEnd)) {
      this.results = { job: latest.id, items: [], received: 0, complete: false, sawEnd: false };
    }
    this.emit('reset', { reason: message.reason });
  }

  // ---- events ------------------------------------------------------------------------------------

  // Returns 'applied', 'duplicate' (already seen), 'gap' (a missing event: resume needed) or 'ignored'.
  applyEvent(message) {
    const seq = message.seq;
    if (typeof seq !== 'number' || this.seq === null) return 'ignored';
    if (seq <= this.seq) return 'duplicate';
    if (seq > this.seq + 1) return 'gap';
    this.seq = seq;
    this.sampleClock(message.ts);
    switch (message.type) {
      case 'job':
        this.applyJob(message.job);
        break;
      case 'progress':
        this.applyProgress(message);
        break;
      case 'results':
        this.applyResults(message);
        break;
      case 'news':
        this.applyNews(message);
        break;
      case 'workers':
        this.workers = Array.isArray(message.workers) ? message.workers.filter(isWorker) : [];
        this.emit('workers');
        break;
      case 'log':
        this.emit('log', { message }); // the lines are the log book's to keep (logs.js), not the store's
        break;
      default:
        break; // an event this dashboard does not know: counted, otherwise ignored
    }
    return 'applied';
  }

  applyJob(job) {
    if (!isJob(job)) return;
    const known = this.jobs.get(job.id);
    normalizeJob(job);
    this.jobs.set(job.id, job);
    if (!known) this.trimJobs();
    if (job.kind === 'search') {
      const latest = this.latestSearch();
      if (latest && latest.id === job.id && (!this.results || this.results.job !== job.id)) {
        // A search we see from its first event has all its matches still ahead of it.
        this.results = { job: job.id, items: [], received: 0, complete: !known, sawEnd: false };
      }
      if (this.results && this.results.job === job.id && FINAL_STATES.has(job.state)) this.results.sawEnd = true;
    }
    this.emit('job', { job, created: !known, previous: known || null });
  }

  applyProgress(message) {
    const job = this.jobs.get(message.job);
    if (!job) return;
    const progress = job.progress;
    for (const key of ['completed', 'total', 'fraction', 'message', 'rate', 'eta']) {
      if (key in message) progress[key] = message[key];
    }
    this.emit('progress', { job });
  }

  applyResults(message) {
    const items = Array.isArray(message.items) ? message.items.filter(isMatch) : [];
    const latest = this.latestSearch();
    if (!latest || latest.id !== message.job) return;
    if (!this.results || this.results.job !== message.job) {
      this.results = { job: message.job, items: [], received: 0, complete: false, sawEnd: false };
    }
    const room = Math.max(0, this.maxSearchResults() - this.results.items.length);
    const added = items.slice(0, room);
    for (const item of added) this.results.items.push(item);
    this.results.received += items.length;
    this.emit('results', { job: message.job, added, reset: false });
  }

  applyNews(message) {
    const items = Array.isArray(message.items) ? message.items.filter(isNewsItem) : [];
    if (typeof message.revision === 'number' && message.revision <= this.news.revision) return;
    this.news = this.mergeNews(message.revision, items);
    this.emit('news', { items, revision: this.news.revision });
  }

  // A feed with `items` (newest first) put in front of what we have, without duplicates.
  mergeNews(revision, items) {
    const seen = new Set(items.map((item) => item.id));
    const merged = items.concat(this.news.items.filter((item) => !seen.has(item.id)));
    return { revision: typeof revision === 'number' ? revision : this.news.revision, items: merged.slice(0, 500) };
  }

  // Replaces the feed with one loaded over HTTP (GET /api/news), unless the stream is already newer.
  replaceNews(feed) {
    if (!isObject(feed) || !Array.isArray(feed.items)) return false;
    const revision = typeof feed.revision === 'number' ? feed.revision : 0;
    if (revision < this.news.revision) return false;
    this.news = { revision, items: feed.items.filter(isNewsItem) };
    return true;
  }

  // A page of matches (from the `page` command) fills in the ones this client did not see stream by.
  applyResultsPage(jobId, offset, values, total) {
    if (!this.results || this.results.job !== jobId || !Array.isArray(values)) return;
    const items = values.filter(isMatch);
    if (offset === 0) {
      this.results.items = [];
      this.results.generation = (this.results.generation || 0) + 1; // the views redraw from scratch
    }
    if (offset !== this.results.items.length) return;
    const room = Math.max(0, this.maxSearchResults() - this.results.items.length);
    for (const item of items.slice(0, room)) this.results.items.push(item);
    this.results.received = Math.max(this.results.items.length, typeof total === 'number' ? total : 0);
    this.emit('results', { job: jobId, added: null, reset: true });
  }

  markResultsComplete(jobId) {
    if (this.results && this.results.job === jobId) this.results.complete = true;
  }

  // ---- queries -----------------------------------------------------------------------------------

  latestOfKind(kind, predicate) {
    let latest = null;
    for (const job of this.jobs.values()) {
      if (job.kind !== kind || (predicate && !predicate(job))) continue;
      if (!latest || (job.createdAt || 0) >= (latest.createdAt || 0)) latest = job;
    }
    return latest;
  }

  latestSearch() {
    return this.latestOfKind('search');
  }

  anyActive(kind) {
    return this.activeCount(kind) > 0;
  }

  activeCount(kind) {
    let count = 0;
    for (const job of this.jobs.values()) {
      if (job.kind === kind && ACTIVE_STATES.has(job.state)) count += 1;
    }
    return count;
  }

  // The snapshot's entry for a kind (`limits.kinds[kind]`), or null.
  // A queued job that nothing can run now: its kind has no command here and no connected worker runs it.
  waitsForWorker(job) {
    if (job.state !== 'queued') return false;
    const info = this.kindInfo(job.kind);
    if (!info || info.command !== false) return false;
    return !this.workers.some((worker) => worker.kinds.includes(job.kind));
  }

  kindInfo(kind) {
    const kinds = this.limits && isObject(this.limits.kinds) ? this.limits.kinds : null;
    return kinds && isObject(kinds[kind]) ? kinds[kind] : null;
  }

  // A start of `kind` would be refused as busy: the kind refuses when busy (search always has) and as
  // many of it as may run at once are queued or running. Every tab derives this from the same state.
  isBusy(kind) {
    const info = this.kindInfo(kind);
    const refuses = info ? info.refuseWhenBusy === true : kind === 'search';
    if (!refuses) return false;
    const max = info && typeof info.maxConcurrent === 'number' && info.maxConcurrent > 0 ? info.maxConcurrent : 1;
    return this.activeCount(kind) >= max;
  }

  // Keeps a long-lived tab bounded: the oldest finished jobs go first.
  trimJobs() {
    if (this.jobs.size <= MAX_JOBS_KEPT) return;
    for (const [id, job] of this.jobs) {
      if (this.jobs.size <= MAX_JOBS_KEPT) break;
      if (FINAL_STATES.has(job.state)) this.jobs.delete(id);
    }
  }
}
