// Herald dashboard — the entry module (index.html's one <script type="module">): makes the store, the
// client (client.js, the protocol's one implementation) and the API, mounts the views, and routes what the
// server sends to the store: a snapshot or a sequenced event (whose subscribers, the views, redraw
// themselves); a reply goes by itself to the control that asked. A new view is one file under views/
// exporting mount(context), and one line in VIEWS below.
import { Store } from './store.js';
import { HeraldClient } from './client.js';
import { Api } from './api.js';
import { LogBook } from './logs.js';

/** @typedef {import('./types.js').Context} Context */

// In page order: a view hears each store change after the ones above it.
const VIEWS = [
  import('./views/status.js'),
  import('./views/identity.js'),
  import('./views/signin.js'),
  import('./views/workers.js'),
  import('./views/notify.js'),
  import('./views/search.js'),
  import('./views/kinds.js'),
  import('./views/schedules.js'),
  import('./views/webhooks.js'),
  import('./views/jobs.js'),
  import('./views/log.js'),
  import('./views/sort.js'),
  import('./views/news.js'),
  import('./views/history.js'),
];

const store = new Store();
const logBook = new LogBook();
// This page's server: the same host and port, wss: under https.
const client = new HeraldClient('/ws');
client.addEventListener('open', () => store.newConnection());
client.addEventListener('status', (event) => store.setStatus(/** @type {CustomEvent} */ (event).detail));
client.addEventListener('snapshot', (event) => store.applySnapshot(/** @type {CustomEvent} */ (event).detail));
// The client delivers each event once and in order, so the store applies every one.
client.addEventListener('event', (event) => store.applyEvent(/** @type {CustomEvent} */ (event).detail));
const api = new Api(client);

Promise.all(VIEWS).then((views) => {
  /** @type {Context} */
  const context = { store, api, logBook, rowDecorators: [] };
  for (const view of views) view.mount(context);
  // For the browser tests and the curious: the classes they make in the page, and read-only views of the
  // state. Modules keep everything else off `window`.
  Object.defineProperty(window, 'Herald', {
    value: Object.freeze({ Store, LogBook, HeraldClient, debug: Object.freeze({ store, api, client, logBook }) }),
  });
  client.connect();
});
