// Herald dashboard — every request the dashboard makes goes through here: commands over the WebSocket go to
// the protocol's one implementation, client.js (HeraldClient: request ids, replies, resending on reconnect),
// and this adds what belongs to the page: the token kept in this tab and the sign-in prompt; and the HTTP
// calls (docs/rest.md: the job history, the news, the schedules, the webhooks). No DOM here.
//
// A start or cancel refused for want of a token waits (its button stays busy) until a token is accepted,
// then goes again; or it is answered with the refusal if the user declines to sign in. A schedule action
// over HTTP refused with 401 waits for the same prompt the same way.
import * as token from './token.js';
import { isJob, isObject } from './store.js';

/** @typedef {import('./types.js').Reply} Reply */
/** @typedef {import('./types.js').Job} Job */
/** @typedef {import('./types.js').Schedule} Schedule */
/** @typedef {import('./types.js').Webhook} Webhook */
/** @typedef {import('./client.js').HeraldClient} HeraldClient */
/** @typedef {{ message: Record<string, any>, onReply: (reply: Reply) => void }} Waiting */

const NEEDS_TOKEN = new Set(['start', 'cancel']);

export class Api {
  /** @param {HeraldClient} client */
  constructor(client) {
    this.client = client;
    /** @type {Map<string, Waiting>} request id → a start or cancel the server refused as unauthorized */
    this.awaitingAuth = new Map();
    /** @type {Array<() => void>} */
    this.tokenWanted = [];
    /** @type {Array<(reply: Reply) => void>} */
    this.authAnswered = [];
    /** @type {Array<{ resolve: () => void, reject: (error: Error) => void }>} HTTP calls refused with 401, waiting for a token */
    this.httpAwaitingAuth = [];
    /** @type {Set<string>} the jobs this tab started (the server accepted its start), for notifications */
    this.startedHere = new Set();
    client.token = token.load();
    // Every answer to an `auth`, ours or the one the client sends on each new connection.
    client.addEventListener('auth', (event) => {
      const { token: value, reply } = /** @type {CustomEvent} */ (event).detail;
      if (reply.type === 'accepted') {
        token.save(value);
        this.retryAwaitingAuth();
      } else if (reply.code === 'unauthorized') {
        token.forget();
      }
      for (const listener of this.authAnswered) listener(reply);
    });
  }

  isOpen() {
    return this.client.isOpen();
  }

  // ---- commands ------------------------------------------------------------------------------------

  /** Sends `message` with a fresh request id; its reply (accepted, error or page) goes to onReply.
   * @param {Record<string, any>} message @param {(reply: Reply) => void} onReply @returns {string} the request id */
  request(message, onReply) {
    return this.client.request(message, (reply) => this.handleReply(message, reply, onReply));
  }

  /** @param {Record<string, any>} message @param {Reply} reply @param {(reply: Reply) => void} onReply */
  handleReply(message, reply, onReply) {
    if (reply.type === 'accepted' && message.type === 'start' && typeof reply.job === 'string') this.startedHere.add(reply.job);
    if (reply.type === 'error' && reply.code === 'unauthorized' && NEEDS_TOKEN.has(message.type)) {
      this.awaitingAuth.set(message.requestId, { message, onReply });
      for (const listener of this.tokenWanted) listener();
      return;
    }
    onReply(reply);
  }

  // ---- the access token ----------------------------------------------------------------------------

  /** Called when a start or cancel waits for a token. @param {() => void} listener */
  onTokenWanted(listener) {
    this.tokenWanted.push(listener);
  }

  /** Hears the answer to every `auth` (after the token is kept or forgotten). @param {(reply: Reply) => void} listener */
  onAuthAnswered(listener) {
    this.authAnswered.push(listener);
  }

  /** Sends the token with `auth`. Accepted: it is kept (this tab only) and the refused commands go again.
   * Refused: it is forgotten. @param {string} value */
  authenticate(value) {
    this.client.authenticate(value).catch(() => {}); // the client's 'auth' event handles both answers
  }

  hasWaitingForToken() {
    return this.awaitingAuth.size > 0 || this.httpAwaitingAuth.length > 0;
  }

  // The same request id again: a start the server did run after all is not run twice.
  retryAwaitingAuth() {
    for (const [id, entry] of this.awaitingAuth) {
      this.awaitingAuth.delete(id);
      this.request(entry.message, entry.onReply);
    }
    for (const waiter of this.httpAwaitingAuth.splice(0)) waiter.resolve();
  }

  // "Not now": the waiting commands get their refusal after all, shown next to their controls.
  declineToken() {
    for (const [id, entry] of this.awaitingAuth) {
      this.awaitingAuth.delete(id);
      entry.onReply({ type: 'error', requestId: id, code: 'unauthorized', message: '' });
    }
    for (const waiter of this.httpAwaitingAuth.splice(0)) waiter.reject(new HttpError('unauthorized', '', 401));
  }

  // An HTTP call the server refused with 401: the prompt is shown, and this settles when a token is accepted
  // (resolves: call again) or the user says "Not now" (rejects).
  /** @returns {Promise<void>} */
  waitForToken() {
    return new Promise((resolve, reject) => {
      this.httpAwaitingAuth.push({ resolve, reject });
      for (const listener of this.tokenWanted) listener();
    });
  }

  // ---- HTTP ----------------------------------------------------------------------------------------

  // `window.fetch` is looked up on every call, not kept: the browser tests wrap it to watch the requests.

  /** `GET /api/jobs?<query>` → { jobs, next }. A failure throws an Error whose message finishes the sentence
   * "Could not load the job history: …"; an AbortError passes through.
   * @param {string} query @param {AbortSignal} [signal] @returns {Promise<{ jobs: Job[], next: string | null }>} */
  async jobs(query, signal) {
    let response;
    try {
      response = await window.fetch('/api/jobs?' + query, { cache: 'no-store', headers: { Accept: 'application/json' }, signal });
    } catch (error) {
      if (error && error.name === 'AbortError') throw error;
      throw new Error('the server could not be reached.');
    }
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      if (error && error.name === 'AbortError') throw error;
      body = null;
    }
    if (!response.ok) {
      const said = isObject(body) && typeof body.message === 'string' && body.message ? body.message.replace(/\.?$/, '.') : '';
      throw new Error((said || 'the server refused the request.') + ' (HTTP ' + response.status + ')');
    }
    if (!isObject(body) || !Array.isArray(body.jobs) || !('next' in body)) {
      throw new Error('this server does not page its job history (it needs a newer Herald).');
    }
    return { jobs: body.jobs.filter(isJob), next: typeof body.next === 'string' ? body.next : null };
  }

  /** `GET /api/schedules` → every schedule, in the jobs file's order. Throws an HttpError (its message finishes
   * "Could not load the schedules: …").
   * @returns {Promise<Schedule[]>} */
  async schedules() {
    const body = await httpCall('GET', '/api/schedules', null);
    if (!isObject(body) || !Array.isArray(body.schedules)) throw new HttpError('bad_reply', 'the server sent something else than a list of schedules.', 0);
    return body.schedules.filter(isSchedule);
  }

  /** `POST /api/schedules/NAME/ACTION` (pause, resume, run) with this tab's token; a 401 shows the sign-in
   * prompt and goes again once a token is accepted. Answers the schedule as it is now; throws an HttpError.
   * @param {string} name @param {'pause' | 'resume' | 'run'} action @returns {Promise<Schedule>} */
  async controlSchedule(name, action) {
    const path = '/api/schedules/' + encodeURIComponent(name) + '/' + action;
    for (;;) {
      let body;
      try {
        body = await httpCall('POST', path, token.load());
      } catch (error) {
        if (error instanceof HttpError && error.status === 401) {
          await this.waitForToken();
          continue;
        }
        throw error;
      }
      if (!isSchedule(body)) throw new HttpError('bad_reply', 'the server sent something else than the schedule.', 0);
      if (action === 'run' && isObject(body.last) && typeof body.last.job === 'string') this.startedHere.add(body.last.job);
      return body;
    }
  }

  /** `GET /api/webhooks` → every webhook with its latest deliveries, in the jobs file's order. Throws an
   * HttpError (its message finishes "Could not load the webhooks: …").
   * @returns {Promise<Webhook[]>} */
  async webhooks() {
    const body = await httpCall('GET', '/api/webhooks', null);
    if (!isObject(body) || !Array.isArray(body.webhooks)) throw new HttpError('bad_reply', 'the server sent something else than a list of webhooks.', 0);
    return body.webhooks.filter(isWebhook);
  }

  /** `GET /api/news`: the feed as the server has it now; throws when it cannot be had. @returns {Promise<any>} */
  async news() {
    const response = await window.fetch('/api/news', { cache: 'no-store', headers: { Accept: 'application/json' } });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    return response.json();
  }
}

/** A refused or failed HTTP call: the server's code (or 'unreachable', 'bad_reply') and words, and the status. */
export class HttpError extends Error {
  /** @param {string} code @param {string} message @param {number} status */
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** @param {any} value @returns {value is Webhook} */
function isWebhook(value) {
  return (
    isObject(value) && typeof value.webhook === 'string' && Array.isArray(value.deliveries) &&
    value.deliveries.every((delivery) => isObject(delivery) && typeof delivery.id === 'string' && typeof delivery.status === 'string')
  );
}

/** @param {any} value @returns {value is Schedule} */
function isSchedule(value) {
  return isObject(value) && typeof value.name === 'string' && typeof value.kind === 'string';
}

/** One JSON call; the answer's body, or an HttpError. `window.fetch` is looked up on every call (see above).
 * @param {string} method @param {string} path @param {string | null} bearer @returns {Promise<any>} */
async function httpCall(method, path, bearer) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (bearer) headers.Authorization = 'Bearer ' + bearer;
  let response;
  try {
    response = await window.fetch(path, { method, cache: 'no-store', headers });
  } catch (error) {
    throw new HttpError('unreachable', 'the server could not be reached.', 0);
  }
  let body = null;
  try {
    body = await response.json();
  } catch (error) {
    body = null;
  }
  if (!response.ok) {
    const code = isObject(body) && typeof body.code === 'string' ? body.code : 'http_' + response.status;
    const said = isObject(body) && typeof body.message === 'string' ? body.message : '';
    throw new HttpError(code, said, response.status);
  }
  return body;
}
