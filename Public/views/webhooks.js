// Herald dashboard — the Webhooks panel (docs/webhooks.md): each webhook of the server's jobs file with its
// counts since the start and its latest deliveries (job, event, status, attempts made out of the documented
// number, when the next attempt is due, how the last one ended); a delivery whose attempts ran out says
// "given up after N attempts". Hidden while the server has no webhooks.
//
// The list comes from `GET /api/webhooks` (api.js), which has no push: at each snapshot, soon after a job
// ends (its delivery is made then), every REFRESH_MS while the tab is visible, and when it becomes visible
// again. One request at a time; a change meanwhile asks for one more afterwards.
import * as fmt from '../format.js';
import { $, clone, part, setText, show } from '../dom.js';
import { ListPoller } from '../poller.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Webhook} Webhook */
/** @typedef {import('../types.js').WebhookDelivery} WebhookDelivery */

const REFRESH_MS = 5000;
const AFTER_JOB_END_MS = 300;
const ENDED = new Set(['succeeded', 'failed', 'cancelled']);

/** @type {Record<string, string>} */
const EVENT_WORDS = { succeeded: 'succeeded', failed: 'failed', cancelled: 'cancelled', timedOut: 'timed out' };

/** "given up after 10 attempts", "delivered", "pending". @param {WebhookDelivery} delivery */
export function statusText(delivery) {
  if (delivery.status === 'givenUp') return 'given up after ' + attemptsText(delivery.attempts);
  if (delivery.status === 'delivered') return 'delivered';
  return 'pending';
}

/** @param {number} attempts */
function attemptsText(attempts) {
  return attempts === 1 ? '1 attempt' : fmt.count(attempts) + ' attempts';
}

/** "3 of 10": attempts made out of the most a delivery gets. @param {WebhookDelivery} delivery @param {number} most */
export function attemptText(delivery, most) {
  return fmt.count(delivery.attempts) + (most > 0 ? ' of ' + fmt.count(most) : '');
}

/** When the next attempt is due, in words; '—' once delivered or given up.
 * @param {WebhookDelivery} delivery @param {number} now */
export function nextText(delivery, now) {
  if (delivery.status !== 'pending') return '—';
  if (!fmt.isNumber(delivery.nextAttemptAt)) return 'under way';
  return fmt.localWhen(delivery.nextAttemptAt, now) + ' (' + fmt.relative(delivery.nextAttemptAt, now) + ')';
}

/** "2 delivered · 3 retried · 1 given up · 1 pending". @param {Webhook} webhook */
function countsText(webhook) {
  return (
    fmt.count(webhook.delivered) + ' delivered · ' + fmt.count(webhook.retried) + ' retried · ' +
    fmt.count(webhook.givenUp) + ' given up · ' + fmt.count(webhook.pending) + ' pending'
  );
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

class WebhooksView {
  /** @param {Context} context */
  constructor({ store, api }) {
    this.store = store;
    this.api = api;
    this.section = $('webhooks-section');
    this.list = $('webhooks-list');
    this.error = $('webhooks-error');
    /** @type {Map<string, HTMLElement>} webhook URL → its card */
    this.cards = new Map();
    /** @type {Webhook[]} the last answer */
    this.webhooks = [];
    this.poller = new ListPoller(() => this.load(), AFTER_JOB_END_MS);
  }

  // One request for the list, drawn; a failure is said in the panel.
  async load() {
    try {
      const webhooks = await this.api.webhooks();
      setText(this.error, '');
      this.draw(webhooks);
    } catch (error) {
      // A server without the endpoint (an older Herald: 404) has no panel; anything else is said in the panel.
      if (error && error.status === 404) this.draw([]);
      else this.fail(error);
    }
  }

  /** @param {any} error */
  fail(error) {
    setText(this.error, 'Could not load the webhooks: ' + errorWords(error));
    if (this.webhooks.length > 0 || !(error && error.code === 'unreachable')) show(this.section, true);
  }

  /** @param {Webhook[]} webhooks */
  draw(webhooks) {
    this.webhooks = webhooks;
    show(this.section, webhooks.length > 0);
    const urls = new Set(webhooks.map((webhook) => webhook.webhook));
    for (const [url, card] of this.cards) {
      if (urls.has(url)) continue;
      card.remove();
      this.cards.delete(url);
    }
    const now = this.store.serverNow();
    const cards = webhooks.map((webhook) => {
      let card = this.cards.get(webhook.webhook);
      if (!card) {
        card = clone('webhook-row-template');
        card.dataset.webhook = webhook.webhook;
        this.cards.set(webhook.webhook, card);
      }
      this.fill(card, webhook, now);
      return card;
    });
    // In the server's order (the jobs file's); the cards hold no controls, so moving them loses no focus.
    const inOrder = cards.every((card, index) => this.list.children[index] === card);
    if (!inOrder || this.list.children.length !== cards.length) this.list.replaceChildren(...cards);
  }

  /** @param {HTMLElement} card @param {Webhook} webhook @param {number} now */
  fill(card, webhook, now) {
    setText(part(card, '.webhook-url'), webhook.webhook);
    setText(part(card, '.webhook-counts'), countsText(webhook));
    const warning = part(card, '.webhook-given-up');
    const givenUp = webhook.givenUp > 0;
    show(warning, givenUp);
    setText(
      warning,
      givenUp
        ? (webhook.givenUp === 1 ? '1 delivery was' : fmt.count(webhook.givenUp) + ' deliveries were') +
            ' given up since the server started: every one of its ' + fmt.count(webhook.maxAttempts) + ' attempts failed.'
        : '',
    );
    const body = part(card, '.webhook-deliveries');
    show(part(card, '.webhook-table'), webhook.deliveries.length > 0);
    show(part(card, '.webhook-none'), webhook.deliveries.length === 0);
    body.replaceChildren(...webhook.deliveries.map((delivery) => this.row(delivery, webhook.maxAttempts, now)));
  }

  /** @param {WebhookDelivery} delivery @param {number} most @param {number} now */
  row(delivery, most, now) {
    const row = clone('webhook-delivery-template');
    row.dataset.id = delivery.id;
    row.dataset.status = delivery.status;
    const job = part(row, '.delivery-job');
    setText(job, delivery.job);
    job.title = 'webhook-id ' + delivery.id;
    setText(part(row, '.delivery-event'), EVENT_WORDS[delivery.event] || delivery.event);
    const status = part(row, '.delivery-status');
    setText(status, statusText(delivery));
    status.className = 'delivery-status delivery-' + delivery.status.replace(/[^A-Za-z]/g, '');
    setText(part(row, '.delivery-attempts'), attemptText(delivery, most));
    const next = part(row, '.delivery-next');
    setText(next, nextText(delivery, now));
    if (fmt.isNumber(delivery.nextAttemptAt)) next.title = fmt.dateTime(delivery.nextAttemptAt);
    setText(part(row, '.delivery-outcome'), delivery.lastOutcome || '—');
    return row;
  }

  // "in 12 s" moves on between requests.
  tick() {
    const now = this.store.serverNow();
    for (const webhook of this.webhooks) {
      const card = this.cards.get(webhook.webhook);
      if (!card) continue;
      for (const delivery of webhook.deliveries) {
        if (delivery.status !== 'pending' || !fmt.isNumber(delivery.nextAttemptAt)) continue;
        const row = card.querySelector('.webhook-delivery[data-id="' + CSS.escape(delivery.id) + '"]');
        if (row) setText(part(row, '.delivery-next'), nextText(delivery, now));
      }
    }
  }
}

/** @param {Context} context */
export function mount(context) {
  const view = new WebhooksView(context);
  view.poller.follow(context.store, (job) => ENDED.has(job.state), REFRESH_MS);
  setInterval(() => view.tick(), 1000);
}
