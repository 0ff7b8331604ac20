// Herald dashboard — the WebSocket connection: URL from `location`, status, capped exponential
// reconnect with jitter (reset once live), resume from the last epoch and seq, a light heartbeat.

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
const PING_AFTER_IDLE_MS = 15000; // the server pings after 10 s idle; this covers proxies that do not
const PING_TIMEOUT_MS = 30000; // our ping unanswered this long: the socket is dead, start over

// The endpoint for this page: wss: under https, same host and port, path /ws, plus the resume point.
/** @param {{ epoch: string, since: number } | null} resume */
export function socketURL(resume) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let url = scheme + '//' + location.host + '/ws';
  if (resume) {
    url += '?epoch=' + encodeURIComponent(resume.epoch) + '&since=' + encodeURIComponent(String(resume.since));
  }
  return url;
}

/**
 * @typedef {object} ConnectionOptions
 * @property {() => ({ epoch: string, since: number } | null)} resumePoint
 * @property {() => void} onOpen
 * @property {(message: Record<string, any>) => void} onMessage every message that is a JSON object with a `type`
 * @property {() => void} onClose
 * @property {(status: import('./types.js').Status) => void} onStatus
 */

export class Connection {
  /** @param {ConnectionOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.attempt = 0; // failed attempts since the last time we were live
    this.everLive = false;
    this.retryTimer = null;
    this.heartbeatTimer = null;
    this.lastHeard = 0;
    this.status = { state: 'connecting', retryAt: null, attempt: 0 };
    window.addEventListener('online', () => {
      if (!this.isOpen()) this.retryNow();
    });
    // The browser says the network is gone: say so at once, rather than after a ping timeout, and wait
    // for 'online' to resume (a socket to this very machine might have lived on; it costs one resume).
    window.addEventListener('offline', () => {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
      if (this.ws !== null) {
        this.drop();
      } else {
        this.setStatus('offline', null);
      }
    });
  }

  isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN && this.status.state === 'live';
  }

  start() {
    this.connect();
  }

  setStatus(state, retryAt) {
    this.status = { state, retryAt, attempt: this.attempt };
    this.options.onStatus(this.status);
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (navigator.onLine === false) {
      this.setStatus('offline', null);
      return;
    }
    let ws;
    try {
      ws = new WebSocket(socketURL(this.options.resumePoint()));
    } catch (error) {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    this.setStatus(this.everLive || this.attempt > 0 ? 'reconnecting' : 'connecting', null);
    ws.addEventListener('open', () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.everLive = true;
      this.lastHeard = Date.now();
      this.startHeartbeat();
      this.setStatus('live', null);
      this.options.onOpen();
    });
    ws.addEventListener('message', (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      if (typeof event.data !== 'string') return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return; // not JSON: nothing this dashboard can use
      }
      if (message !== null && typeof message === 'object' && !Array.isArray(message) && typeof message.type === 'string') {
        this.options.onMessage(message);
      }
    });
    ws.addEventListener('close', () => {
      if (ws !== this.ws) return;
      this.drop();
    });
    // 'error' is always followed by 'close'; nothing to do here.
  }

  // Forgets the current socket and schedules the next attempt.
  drop() {
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
    this.options.onClose();
    this.scheduleRetry();
  }

  scheduleRetry() {
    clearTimeout(this.retryTimer);
    if (navigator.onLine === false) {
      this.setStatus('offline', null);
      return;
    }
    // Capped exponential backoff with jitter: the delay is drawn from [base/2, base).
    const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * Math.pow(2, this.attempt));
    const delay = base / 2 + Math.random() * (base / 2);
    this.attempt += 1;
    const retryAt = Date.now() + delay;
    this.retryTimer = setTimeout(() => this.connect(), delay);
    this.setStatus('reconnecting', retryAt);
  }

  retryNow() {
    if (this.ws !== null) return;
    this.connect();
  }

  send(message) {
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
  // tab's timers are throttled to once a minute.
  startHeartbeat() {
    this.stopHeartbeat();
    this.pingSentAt = 0;
    this.heartbeatTimer = setInterval(() => {
      const now = Date.now();
      if (this.pingSentAt > this.lastHeard && now - this.pingSentAt >= PING_TIMEOUT_MS) {
        this.drop();
      } else if (now - this.lastHeard >= PING_AFTER_IDLE_MS && this.pingSentAt <= this.lastHeard) {
        if (this.send({ type: 'ping' })) this.pingSentAt = now;
      }
    }, 5000);
  }

  stopHeartbeat() {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }
}
