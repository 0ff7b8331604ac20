// Herald dashboard — the entry module (index.html's one <script type="module">): makes the store, the
// connection and the API, mounts the views, and routes what the server sends: a snapshot or an event to the
// store (whose subscribers, the views, redraw themselves), a reply to the API (which hands it to the control
// that asked). A new view is one file under views/ exporting mount(context), and one line in VIEWS below.
import { Store } from './store.js';
import { Connection } from './connection.js';
import { Api } from './api.js';
import { LogBook } from './logs.js';

/** @typedef {import('./types.js').Context} Context */

// In page order: a view hears each store change after the ones above it.
const VIEWS = [
  import('./views/status.js'),
  import('./views/signin.js'),
  import('./views/workers.js'),
  import('./views/notify.js'),
  import('./views/search.js'),
  import('./views/kinds.js'),
  import('./views/schedules.js'),
  import('./views/jobs.js'),
  import('./views/log.js'),
  import('./views/sort.js'),
  import('./views/news.js'),
  import('./views/history.js'),
];

const store = new Store();
const logBook = new LogBook();
let resumeAsked = false;

const connection = new Connection({
  resumePoint: () => store.resumePoint(),
  onOpen() {
    store.newConnection();
    resumeAsked = false;
    api.opened();
  },
  onClose() {
    // The status that follows ('reconnecting' or 'offline') tells the views.
  },
  onStatus(status) {
    store.setStatus(status);
  },
  onMessage(message) {
    switch (message.type) {
      case 'snapshot':
        store.applySnapshot(message);
        resumeAsked = false;
        break;
      case 'accepted':
      case 'error':
      case 'page':
        api.handleReply(message);
        break;
      case 'pong':
        break;
      default:
        if (typeof message.seq === 'number') applyEvent(message);
        break; // anything else: a message this dashboard does not know; ignored
    }
  },
});
const api = new Api(connection);

/** @param {Record<string, any>} message */
function applyEvent(message) {
  const outcome = store.applyEvent(message);
  if (outcome === 'applied') {
    resumeAsked = false;
  } else if (outcome === 'gap' && !resumeAsked) {
    // Cannot happen on one connection, per the protocol; if it does, ask for what is missing.
    const point = store.resumePoint();
    if (point) {
      resumeAsked = true;
      api.resume(point);
    }
  }
}

Promise.all(VIEWS).then((views) => {
  /** @type {Context} */
  const context = { store, api, logBook, rowDecorators: [] };
  for (const view of views) view.mount(context);
  setInterval(() => api.expire(), 1000);
  // For the browser tests and the curious: the classes they make in the page, and read-only views of the
  // state. Modules keep everything else off `window`.
  Object.defineProperty(window, 'Herald', {
    value: Object.freeze({ Store, LogBook, debug: Object.freeze({ store, api, logBook }) }),
  });
  connection.start();
});
