// Herald dashboard — News: the headlines, newest first, and "Fetch now". While the tab is visible a `news`
// event shows at once, its items marked new; while hidden the list is only marked stale, and coming back
// reloads the feed over HTTP and says how many items are new.
import * as fmt from '../format.js';
import { $, button, clone, part, setText, show, isHidden } from '../dom.js';
import { StartFlow } from '../start.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').NewsFeed} NewsFeed */

class NewsList {
  constructor() {
    this.list = $('news-list');
    this.empty = $('news-empty');
    this.stale = $('news-stale');
    this.newCount = $('news-new-count');
    /** @type {Set<string>} */
    this.shownIds = new Set();
    /** @type {number | null} */
    this.revision = null;
  }

  /** Draws the feed; the items in `fresh` (ids) are marked new. @param {NewsFeed} feed @param {Set<string> | null} fresh */
  draw(feed, fresh) {
    const fragment = document.createDocumentFragment();
    for (const item of feed.items) {
      const li = clone('news-template');
      li.dataset.newsId = item.id;
      if (fresh && fresh.has(item.id)) li.classList.add('is-new');
      const time = /** @type {HTMLTimeElement} */ (part(li, '.news-time'));
      if (fmt.isNumber(item.time)) {
        time.dateTime = new Date(item.time).toISOString();
        setText(time, fmt.clock(item.time));
        time.title = fmt.dateTime(item.time);
      }
      setText(part(li, '.news-headline'), typeof item.headline === 'string' ? item.headline : '');
      fragment.append(li);
    }
    this.list.replaceChildren(fragment);
    this.shownIds = new Set(feed.items.map((item) => item.id));
    this.revision = feed.revision;
    this.list.dataset.revision = String(feed.revision);
    show(this.empty, feed.items.length === 0);
  }

  /** @param {NewsFeed} feed */
  unseen(feed) {
    return feed.items.filter((item) => !this.shownIds.has(item.id));
  }

  /** @param {boolean} stale */
  setStale(stale) {
    show(this.stale, stale);
    this.list.classList.toggle('stale', stale);
    this.list.dataset.stale = String(stale);
  }

  /** @param {number | null} count */
  setNewCount(count) {
    show(this.newCount, count !== null);
    setText(this.newCount, count === null ? '' : fmt.count(count) + ' new');
    this.newCount.dataset.count = count === null ? '' : String(count);
  }
}

/** @param {Context} context */
export function mount({ store, api }) {
  const news = new NewsList();
  const fetchButton = button('news-fetch');
  let stale = false;
  let reloading = false;

  const flow = new StartFlow(store, api, {
    kind: 'fetch',
    button: fetchButton,
    error: $('news-error'),
    params: () => ({}),
    update() {
      const active = store.anyActive('fetch');
      fetchButton.disabled = !store.isLive() || flow.request !== null || active;
      setText(fetchButton, active ? 'Fetching…' : 'Fetch now');
    },
  });

  /** @param {boolean} value */
  function setStale(value) {
    stale = value;
    news.setStale(value);
  }

  function onReset() {
    if (isHidden() && news.revision !== null && news.revision !== store.news.revision) {
      setStale(true);
      return;
    }
    if (!stale) news.draw(store.news, null);
  }

  function onEvent() {
    if (isHidden() || reloading) {
      if (isHidden()) setStale(true);
      return;
    }
    news.draw(store.news, new Set(news.unseen(store.news).map((item) => item.id)));
  }

  // Back in view after news arrived: reload the feed over HTTP and say how many items are new.
  async function reload() {
    if (reloading) return;
    reloading = true;
    try {
      store.replaceNews(await api.news());
    } catch (error) {
      // The event stream kept the feed current; use that.
    } finally {
      reloading = false;
    }
    if (isHidden()) return; // hidden again while loading: wait for the next return
    const unseen = news.unseen(store.news);
    news.draw(store.news, new Set(unseen.map((item) => item.id)));
    news.setNewCount(unseen.length);
    setStale(false);
  }

  store.onChange((what) => {
    if (what === 'reset') onReset();
    else if (what === 'news') onEvent();
  });
  fetchButton.addEventListener('click', () => flow.submit());
  document.addEventListener('visibilitychange', () => {
    if (!isHidden() && stale) reload();
  });
  flow.options.update();
}
