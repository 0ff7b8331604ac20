// Herald's JavaScript client (docs/clients.md): one ES module with no dependencies, served by every Herald
// server at /client.js. It speaks the WebSocket protocol of docs/protocol.md: the snapshot and the sequenced
// events (each delivered once and in order: a gap asks for a resume, a repeat is dropped), resume by epoch
// and seq after a drop, reconnect with capped exponential backoff and jitter, a heartbeat, and commands
// whose replies come back by request id (resent on a new connection: `start` is idempotent per id).
// The dashboard uses it; nothing else in Public/ speaks the protocol.

/** @typedef {import('./types.js').Job} Job */
/** @typedef {import('./types.js').Reply} Reply */
/** @typedef {import('./types.js').Status} Status */

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
const PING_AFTER_IDLE_MS = 15000; // the server pings after 10 s idle; this covers proxies that do not
const PING_TIMEOUT_MS = 30000; // our ping unanswered this long: the socket is dead, start over
const REPLY_TIMEOUT_MS = 20000; // a reply that never comes while connected settles as 'timeout'
const MAX_JOBS_KEPT = 500;
const FINAL_STATES = new Set(['succeeded', 'failed', 'cancelled', 'interrupted']);
const REPLY_TYPES = new Set(['accepted', 'error', 'page', 'schedules', 'schedule']);

/**
 * @typedef {object} HeraldClientOptions
 * @property {string | null} [token] sent with `auth` first on every connection (needed to start and cancel on a
 *   server with a token; watching never needs it)
 * @property {AbortSignal} [signal] aborting it closes the client for good
 * @property {number} [firstDelayMs] the first reconnect delay (default 500 ms); each failure doubles it
 * @property {number} [maxDelayMs] the cap (default 15 s); the delay is drawn from [cap/2, cap)
 * @property {number} [replyTimeoutMs] a command unanswered this long on a live connection fails with 'timeout'
 *
 * @typedef {object} Pending a command waiting for its reply
 * @property {Record<string, any>} message
 * @property {(reply: Reply) => void} onReply
 * @property {number} sentAt
 * @property {number} sentOn the connection it was last sent on (0: not yet)
 *
 * @typedef {{ epoch: string, since: number }} ResumePoint
 */

/** A command the server refused (its `error` reply), the connection closed, a timeout or an abort. */
export class HeraldError extends Error {
  /** @param {string} code @param {string} message @param {Reply | null} [reply] */
  constructor(code, message, reply) {
    super(message || code);
    this.name = 'HeraldError';
    /** @type {string} the protocol's error code, or 'timeout', 'closed', 'aborted' */
    this.code = code;
    this.reply = reply || null;
  }
}

/** @param {any} value @returns {boolean} */
function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** @param {any} value @returns {value is Job} */
function isJob(value) {
  return isObject(value) && typeof value.id === 'string' && typeof value.kind === 'string' && typeof value.state === 'string';
}

/**
 * The WebSocket URL for `url`: ws:/wss: as given, http:/https: turned into ws:/wss:, a server root gets /ws.
 * Relative URLs are resolved against the page.
 * @param {string} url @returns {URL}
 */
export function socketURL(url) {
  const base = typeof location !== 'undefined' ? location.href : undefined;
  const parsed = new URL(url, base);
  if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
  else if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
  if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = '/ws';
  return parsed;
}

/**
 * A connection to one Herald server that stays up. Events (each a CustomEvent, its `detail` as said):
 * - `snapshot`: the server's whole state (a snapshot message); replaces what came before
 * - `event`: one sequenced event (`job`, `progress`, `results`, `news`, `log`, `workers`, or a type this client
 *   does not know), exactly once each, in `seq` order
 * - `status`: `{ state, retryAt, attempt }`, state 'connecting', 'live', 'reconnecting', 'offline' or 'closed'
 * - `open`: a connection is live; `close`: it ended (`{ code, reason }`), a reconnect follows unless closed
 * - `auth`: the answer to an `auth` (`{ token, reply }`)
 * - `health`: this server's own state (`{ status: 'ok' | 'degraded', reason }`), when it changes
 */
export class HeraldClient extends EventTarget {
  /** @param {string} url `ws://host:port/ws`, or the server's `http://host:port/` @param {HeraldClientOptions} [options] */
  constructor(url, options = {}) {
    super();
    this.url = socketURL(url);
    /** @type {string | null} */
    this.token = options.token || null;
    this.firstDelayMs = options.firstDelayMs || FIRST_DELAY_MS;
    this.maxDelayMs = options.maxDelayMs || MAX_DELAY_MS;
    this.replyTimeoutMs = options.replyTimeoutMs || REPLY_TIMEOUT_MS;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.connections = 0; // numbers each socket, so a command knows whether it went out on this one
    this.attempt = 0; // failed attempts since the last time we were live
    this.everLive = false;
    this.closed = false;
    this.started = false;
    /** @type {any} */
    this.retryTimer = null;
    /** @type {any} */
    this.heartbeatTimer = null;
    this.lastHeard = 0;
    this.pingSentAt = 0;
    /** @type {Status} */
    this.status = { state: 'connecting', retryAt: null, attempt: 0 };
    /** @type {string | null} the server's epoch, from the last snapshot */
    this.epoch = null;
    /** @type {number | null} the seq of the last event delivered */
    this.seq = null;
    this.resumeAsked = false;
    /** Whether the last snapshot said this stream is scoped (its `seq` has holes by design). */
    this.scoped = false;
    /** @type {Map<string, Job>} every job the server has told of (oldest first; the oldest finished ones are dropped past 500) */
    this.jobs = new Map();
    /** @type {Record<string, any>} the last snapshot's `limits` */
    this.limits = {};
    /** @type {Map<string, Pending>} request id → a command not answered yet */
    this.pending = new Map();
    this.clientTag = Math.random().toString(36).slice(2, 8);
    this.counter = 0;
    this.onOnline = () => {
      if (!this.isOpen()) this.retryNow();
    };
    // The browser says the network is gone: say so at once rather than after a ping timeout, and wait for
    // 'online' to resume (a socket to this very machine might have lived on; it costs one resume).
    this.onOffline = () => {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
      if (this.ws !== null) this.drop(1006, 'offline');
      else this.setStatus('offline', null);
    };
    if (options.signal) {
      if (options.signal.aborted) this.closed = true;
      else options.signal.addEventListener('abort', () => this.close(), { once: true });
    }
  }

  // ---- the connection ------------------------------------------------------------------------------

  /** Connects (and keeps reconnecting until close()). Calling it again does nothing. @returns {this} */
  connect() {
    if (this.started || this.closed) return this;
    this.started = true;
    if (typeof window !== 'undefined') {
      window.addEventListener('online', this.onOnline);
      window.addEventListener('offline', this.onOffline);
    }
    this.open();
    return this;
  }

  /** Closes for good: no reconnect; commands still waiting fail with 'closed'. */
  close() {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (typeof window !== 'undefined') {
      window.removeEventListener('online', this.onOnline);
      window.removeEventListener('offline', this.onOffline);
    }
    const ws = this.ws;
    this.ws = null;
    this.stopHeartbeat();
    if (ws) {
      try {
        ws.close(1000);
      } catch (error) {
        // already closing
      }
    }
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      entry.onReply({ type: 'error', requestId: id, code: 'closed', message: 'the client was closed' });
    }
    this.setStatus('closed', null);
    this.emit('close', { code: 1000, reason: 'closed' });
  }

  /** A live connection: commands go out now (otherwise they wait for one). */
  isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN && this.status.state === 'live';
  }

  /** Tries again now instead of waiting for the backoff. */
  retryNow() {
    if (this.ws !== null || this.closed || !this.started) return;
    this.open();
  }

  /** @returns {ResumePoint | null} where a new connection resumes from (null before the first snapshot) */
  resumePoint() {
    return this.epoch !== null && this.seq !== null ? { epoch: this.epoch, since: this.seq } : null;
  }

  /** @param {string} type @param {any} detail */
  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /** @param {string} state @param {number | null} retryAt */
  setStatus(state, retryAt) {
    this.status = { state, retryAt, attempt: this.attempt };
    this.emit('status', this.status);
  }

  open() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (typeof navigator !== 'undefined' && navigator.onLine === false) {
      this.setStatus('offline', null);
      return;
    }
    const url = new URL(this.url.href);
    const point = this.resumePoint();
    if (point) {
      url.searchParams.set('epoch', point.epoch);
      url.searchParams.set('since', String(point.since));
    }
    let ws;
    try {
      ws = new WebSocket(url.href);
    } catch (error) {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    this.setStatus(this.everLive || this.attempt > 0 ? 'reconnecting' : 'connecting', null);
    ws.addEventListener('open', () => {
      if (ws !== this.ws) return;
      this.connections += 1;
      this.attempt = 0;
      this.everLive = true;
      this.resumeAsked = false;
      this.lastHeard = Date.now();
      this.startHeartbeat();
      this.setStatus('live', null);
      this.emit('open', {});
      this.sendUnanswered();
    });
    ws.addEventListener('message', (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      if (typeof event.data !== 'string') return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return; // not JSON: nothing a client can use
      }
      if (isObject(message) && typeof message.type === 'string') this.receive(message);
    });
    ws.addEventListener('close', (event) => {
      if (ws !== this.ws) return;
      this.drop(event.code, event.reason);
    });
    // 'error' is always followed by 'close'; nothing to do here.
  }

  // A new connection: the token first (a connection starts unauthorized; the server handles messages in
  // order), then what went unanswered. An `auth` left from the old connection goes first instead of ours.
  sendUnanswered() {
    const unanswered = Array.from(this.pending.values()).filter((entry) => entry.sentOn !== this.connections);
    const auths = unanswered.filter((entry) => entry.message.type === 'auth');
    if (auths.length > 0) {
      for (const entry of auths) this.transmit(entry);
    } else if (this.token) {
      this.authenticate(this.token).catch(() => {}); // the 'auth' event tells whoever cares
    }
    for (const entry of unanswered) {
      if (entry.message.type !== 'auth') this.transmit(entry);
    }
  }

  /** @param {number} code @param {string} reason */
  drop(code, reason) {
    const ws = this.ws;
    this.ws = null;
    this.stopHeartbeat();
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      try {
        ws.close();
      } catch (error) {
        // already closing
      }
    }
    this.emit('close', { code, reason });
    this.scheduleRetry();
  }

  scheduleRetry() {
    clearTimeout(this.retryTimer);
    if (this.closed) return;
    if (typeof navigator !== 'undefined' && navigator.onLine === false) {
      this.setStatus('offline', null);
      return;
    }
    // Capped exponential backoff with jitter: the delay is drawn from [base/2, base).
    const base = Math.min(this.maxDelayMs, this.firstDelayMs * Math.pow(2, this.attempt));
    const delay = base / 2 + Math.random() * (base / 2);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.open(), delay);
    this.setStatus('reconnecting', Date.now() + delay);
  }

  /** @param {Record<string, any>} message @returns {boolean} sent */
  sendNow(message) {
    if (!this.isOpen()) return false;
    try {
      this.ws.send(JSON.stringify(message));
      return true;
    } catch (error) {
      return false;
    }
  }

  // Quiet connections are normal (the server's own pings are answered by the browser, unseen here), so a
  // socket is declared dead only when our ping got no answer at all; this stays right when a background
  // tab's timers are throttled to once a minute. The same tick expires replies that never came.
  startHeartbeat() {
    this.stopHeartbeat();
    this.pingSentAt = 0;
    this.heartbeatTimer = setInterval(() => {
      const now = Date.now();
      if (this.pingSentAt > this.lastHeard && now - this.pingSentAt >= PING_TIMEOUT_MS) {
        this.drop(4000, 'no answer to ping');
        return;
      } else if (now - this.lastHeard >= PING_AFTER_IDLE_MS && this.pingSentAt <= this.lastHeard) {
        if (this.sendNow({ type: 'ping' })) this.pingSentAt = now;
      }
      this.expire(now);
    }, 1000);
  }

  stopHeartbeat() {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  /** @param {number} now */
  expire(now) {
    if (!this.isOpen()) return;
    for (const [id, entry] of this.pending) {
      if (entry.sentOn === 0 || now - entry.sentAt < this.replyTimeoutMs) continue;
      this.pending.delete(id);
      entry.onReply({ type: 'error', requestId: id, code: 'timeout', message: 'no reply from the server' });
    }
  }

  // ---- what the server sends ---------------------------------------------------------------------

  /** @param {Record<string, any>} message */
  receive(message) {
    if (message.type === 'snapshot') {
      this.epoch = typeof message.epoch === 'string' ? message.epoch : null;
      this.seq = typeof message.seq === 'number' ? message.seq : null;
      this.resumeAsked = false;
      this.limits = isObject(message.limits) ? message.limits : {};
      // A scoped stream (a share link, a key or token naming jobs or kinds) has holes in `seq` by design.
      this.scoped = isObject(message.scope);
      this.jobs = new Map();
      for (const job of Array.isArray(message.jobs) ? message.jobs : []) {
        if (isJob(job)) this.jobs.set(job.id, job);
      }
      this.emit('snapshot', message);
      return;
    }
    if (message.type === 'health') {
      this.emit('health', message); // this node's own state, outside the stream: no seq
      return;
    }
    if (REPLY_TYPES.has(message.type) && typeof message.requestId === 'string') {
      const entry = this.pending.get(message.requestId);
      if (!entry) return;
      this.pending.delete(message.requestId);
      entry.onReply(/** @type {Reply} */ (message));
      return;
    }
    if (typeof message.seq !== 'number' || this.seq === null) return; // pong, or a message of no use here
    if (message.seq <= this.seq) return; // delivered already
    if (message.seq > this.seq + 1 && !this.scoped) {
      // Cannot happen on one connection, per the protocol; if it does, ask for what is missing (once).
      if (!this.resumeAsked && this.epoch !== null) {
        this.resumeAsked = true;
        this.sendNow({ type: 'resume', epoch: this.epoch, since: this.seq });
      }
      return;
    }
    this.seq = message.seq;
    this.resumeAsked = false;
    this.track(message);
    this.emit('event', message);
  }

  // Keeps `jobs` current, for watchJob() and for anyone who reads it.
  /** @param {Record<string, any>} event */
  track(event) {
    if (event.type === 'job' && isJob(event.job)) {
      const known = this.jobs.has(event.job.id);
      this.jobs.set(event.job.id, event.job);
      if (!known && this.jobs.size > MAX_JOBS_KEPT) {
        for (const [id, job] of this.jobs) {
          if (this.jobs.size <= MAX_JOBS_KEPT) break;
          if (FINAL_STATES.has(job.state)) this.jobs.delete(id);
        }
      }
    } else if (event.type === 'progress' && typeof event.job === 'string') {
      const job = this.jobs.get(event.job);
      if (!job) return;
      // A copy, so a watcher that kept the last job it was given can compare it with this one.
      const progress = Object.assign({}, job.progress);
      for (const key of ['completed', 'total', 'fraction', 'message', 'rate', 'eta']) {
        if (key in event) progress[key] = event[key];
      }
      this.jobs.set(job.id, Object.assign({}, job, { progress }));
    }
  }

  // ---- commands ------------------------------------------------------------------------------------

  /**
   * Sends a command with a request id (a fresh one unless it has one); `onReply` hears its reply once. A command
   * made while disconnected waits for the connection; one unanswered when the connection drops is sent again
   * on the next. The lowest level: start(), cancel(), page() and authenticate() are built on it.
   * @param {Record<string, any>} message @param {(reply: Reply) => void} onReply @returns {string} the request id
   */
  request(message, onReply) {
    if (typeof message.requestId !== 'string') {
      this.counter += 1;
      message.requestId = 'r-' + this.clientTag + '-' + this.counter;
    }
    const entry = { message, onReply, sentAt: Date.now(), sentOn: 0 };
    this.pending.set(message.requestId, entry);
    if (this.closed) {
      this.pending.delete(message.requestId);
      onReply({ type: 'error', requestId: message.requestId, code: 'closed', message: 'the client was closed' });
    } else {
      this.transmit(entry);
    }
    return message.requestId;
  }

  /** Forgets a command: its reply, if one comes, is dropped. @param {string} requestId */
  forget(requestId) {
    this.pending.delete(requestId);
  }

  /** @param {Pending} entry */
  transmit(entry) {
    entry.sentAt = Date.now();
    if (this.sendNow(entry.message)) entry.sentOn = this.connections;
  }

  /**
   * request() as a Promise: the reply, or a HeraldError for an `error` reply, a timeout, close() or the signal.
   * @param {Record<string, any>} message @param {AbortSignal} [signal] @returns {Promise<Reply>}
   */
  call(message, signal) {
    return new Promise((resolve, reject) => {
      if (signal && signal.aborted) {
        reject(new HeraldError('aborted', 'aborted'));
        return;
      }
      const onAbort = () => {
        this.forget(id);
        reject(new HeraldError('aborted', 'aborted'));
      };
      const id = this.request(message, (reply) => {
        if (signal) signal.removeEventListener('abort', onAbort);
        if (reply.type === 'error') reject(new HeraldError(reply.code || 'error', reply.message || '', reply));
        else resolve(reply);
      });
      if (signal && this.pending.has(id)) signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Starts a job. Resolves with the `accepted` reply (`job`: its id, `state`); the job's events follow.
   * Aborting the signal stops waiting for the reply (the server may have started the job all the same).
   * @param {string} kind @param {Record<string, any>} [params]
   * @param {{ after?: string[], requestId?: string, signal?: AbortSignal }} [options]
   * @returns {Promise<Reply>}
   */
  start(kind, params = {}, options = {}) {
    /** @type {Record<string, any>} */
    const message = { type: 'start', kind, params };
    if (options.after) message.after = options.after;
    if (options.requestId) message.requestId = options.requestId;
    return this.call(message, options.signal);
  }

  /** Cancels a job; resolves with the `accepted` reply. @param {string} id @param {{ signal?: AbortSignal }} [options] */
  cancel(id, options = {}) {
    return this.call({ type: 'cancel', job: id }, options.signal);
  }

  /**
   * A page of a job's results (a sort's numbers, a search's matches: `values`) or log (a command job: `lines`,
   * `first`); `total` says how many there are.
   * @param {string} job @param {{ offset?: number, limit?: number, signal?: AbortSignal }} [options] @returns {Promise<Reply>}
   */
  page(job, options = {}) {
    return this.call({ type: 'page', job, offset: options.offset || 0, limit: options.limit || 100 }, options.signal);
  }

  /**
   * Signs this connection in (and every later one: the token is kept once accepted, forgotten when refused).
   * @param {string} token @returns {Promise<Reply>}
   */
  authenticate(token) {
    return new Promise((resolve, reject) => {
      this.request({ type: 'auth', token }, (reply) => {
        if (reply.type === 'accepted') this.token = token;
        else if (reply.code === 'unauthorized') this.token = null;
        this.emit('auth', { token, reply });
        if (reply.type === 'error') reject(new HeraldError(reply.code || 'error', reply.message || '', reply));
        else resolve(reply);
      });
    });
  }

  /**
   * Calls `onUpdate(job)` with the job as it is now (when known) and whenever it changes: its state, its
   * progress, and after a reconnect or a snapshot. Returns the function that stops it; an aborted
   * `signal` stops it too.
   * @param {string} id @param {(job: Job) => void} onUpdate @param {{ signal?: AbortSignal }} [options]
   * @returns {() => void}
   */
  watchJob(id, onUpdate, options = {}) {
    let last = this.jobs.get(id) || null;
    const tell = () => {
      const job = this.jobs.get(id);
      if (job && job !== last) {
        last = job;
        onUpdate(job);
      }
    };
    /** @param {Event} event */
    const onEvent = (event) => {
      const detail = /** @type {CustomEvent} */ (event).detail;
      if ((detail.type === 'job' && detail.job && detail.job.id === id) || (detail.type === 'progress' && detail.job === id)) tell();
    };
    this.addEventListener('event', onEvent);
    this.addEventListener('snapshot', tell);
    const stop = () => {
      this.removeEventListener('event', onEvent);
      this.removeEventListener('snapshot', tell);
    };
    if (options.signal) {
      if (options.signal.aborted) stop();
      else options.signal.addEventListener('abort', stop, { once: true });
    }
    if (last && !(options.signal && options.signal.aborted)) onUpdate(last);
    return stop;
  }
}
