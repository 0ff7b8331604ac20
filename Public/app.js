// Herald dashboard — the controller: wires the connection, the store and the views; sends commands with
// request ids and routes each reply to the control that caused it. Loaded last.
(function () {
  'use strict';
  const Herald = window.Herald;
  const fmt = Herald.format;
  const { $, setText, show } = Herald.render;

  const SORT_PAGE = 100;
  const RESULTS_PAGE = 500;
  const DEFAULT_MAX_SORT = 50000000;
  const REPLY_TIMEOUT_MS = 20000;

  const store = new Herald.Store();
  const workersView = new Herald.workers.WorkersView(store);
  const jobsView = new Herald.render.JobsView(store, cancelJob, (row, job) => logView.decorateRow(row, job));
  const matchesView = new Herald.render.MatchesView(store);
  const newsView = new Herald.render.NewsView();
  const sortView = new Herald.render.SortView();
  const historyView = new Herald.HistoryView(store);
  const kindForms = new Herald.KindForms(startKind);
  const logBook = new Herald.LogBook();
  const logView = new Herald.LogView(store, logBook, {
    requestPage: (job, offset, limit, onReply) => request({ type: 'page', job, offset, limit }, onReply),
    isCommandKind: (kind) => (store.kindInfo(kind) || {}).command === true,
    kindTitle: (kind) => {
      const info = store.kindInfo(kind);
      return info && typeof info.title === 'string' && info.title ? info.title : null;
    },
  });
  logBook.onChange((job) => logView.linesArrived(job));

  const ui = {
    status: { state: 'connecting', retryAt: null },
    searchRequest: null, // request id of a search start not yet answered
    searchAwaitJob: null, // a search the server accepted whose first event has not arrived yet
    sortRequest: null,
    sortMine: null, // the sort job this tab started last
    fetchRequest: null,
    resumeAsked: false,
    newsStale: false,
    newsReloading: false,
    sort: { job: null, offset: 0, total: 0, request: null, values: [] },
    resultsRequest: null,
  };

  // ---- requests and replies ------------------------------------------------------------------------

  const pending = new Map(); // request id → { message, onReply(reply) }
  const awaitingAuth = new Map(); // request id → a start or cancel the server refused as unauthorized
  const clientTag = Math.random().toString(36).slice(2, 8);
  let requestCounter = 0;

  // Sends a command with a fresh request id; the reply (accepted, error or page) goes to onReply. A command
  // unanswered when the connection drops is sent again on reconnect: `start` is idempotent per request id.
  function request(message, onReply) {
    requestCounter += 1;
    const id = 'r-' + clientTag + '-' + requestCounter;
    message.requestId = id;
    pending.set(id, { message, onReply, sentAt: Date.now() });
    connection.send(message);
    return id;
  }

  function handleReply(reply) {
    if (typeof reply.requestId !== 'string') return;
    const entry = pending.get(reply.requestId);
    if (!entry) return;
    pending.delete(reply.requestId);
    // A start or cancel refused for want of a token waits (its button stays busy) while the form asks
    // for the token; it is sent again once the server accepts one, or answered if the user declines.
    if (reply.type === 'error' && reply.code === 'unauthorized' && NEEDS_TOKEN.has(entry.message.type)) {
      awaitingAuth.set(reply.requestId, entry);
      authView.show();
      return;
    }
    entry.onReply(reply);
  }

  // A reply that never comes (while connected) must not leave a button disabled for good.
  function expireRequests() {
    if (ui.status.state !== 'live') return;
    const now = Date.now();
    for (const [id, entry] of pending) {
      if (now - entry.sentAt < REPLY_TIMEOUT_MS) continue;
      pending.delete(id);
      entry.onReply({ type: 'error', requestId: id, code: 'timeout', message: '' });
    }
  }

  const FIELD_WORDS = { query: 'The text to find', caseSensitive: 'Case-sensitive', count: 'The count', job: 'The job' };

  function errorText(reply) {
    return fmt.errorText(reply.code, reply.message, FIELD_WORDS);
  }

  // ---- the access token ----------------------------------------------------------------------------

  const NEEDS_TOKEN = new Set(['start', 'cancel']);
  const authView = new Herald.auth.AuthView({ onSubmit: submitToken, onDismiss: declineToken });
  const signIn = new Herald.SignInControl({
    onSubmit: (token) => (connection.isOpen() ? sendAuth(token) : signIn.answered({ type: 'error', code: 'disconnected' })),
  });

  // Sends the token with `auth`. Accepted: it is kept (this tab only) and the refused commands go again.
  // Refused: it is forgotten, and the form says so if it is waiting for one. The header's control hears both.
  function sendAuth(token) {
    request({ type: 'auth', token }, (reply) => {
      if (reply.type === 'accepted') {
        Herald.auth.save(token);
        authView.hide();
        retryAwaitingAuth();
      } else if (reply.code === 'unauthorized') {
        Herald.auth.forget();
        if (authView.isShown()) authView.showError('That token was not accepted. Check it and try again.');
      } else if (authView.isShown()) {
        authView.showError(errorText(reply));
      }
      signIn.answered(reply);
    });
  }

  function submitToken(token) {
    if (!connection.isOpen()) {
      authView.showError(fmt.errorText('disconnected'));
      return;
    }
    authView.setBusy(true);
    sendAuth(token);
  }

  function retryAwaitingAuth() {
    for (const [id, entry] of awaitingAuth) {
      awaitingAuth.delete(id);
      entry.sentAt = Date.now();
      pending.set(id, entry);
      connection.send(entry.message);
    }
  }

  // "Not now": the waiting commands get their refusal after all, shown next to their controls.
  function declineToken() {
    authView.hide();
    for (const [id, entry] of awaitingAuth) {
      awaitingAuth.delete(id);
      entry.onReply({ type: 'error', requestId: id, code: 'unauthorized', message: '' });
    }
  }

  // ---- connection ----------------------------------------------------------------------------------

  const connection = new Herald.Connection({
    resumePoint: () => store.resumePoint(),
    onOpen() {
      store.newConnection();
      ui.resumeAsked = false;
      // The token first (a connection starts unauthorized; the server handles messages in order), then
      // what went unanswered. An `auth` left from the old connection is replaced by this one.
      const unanswered = Array.from(pending.entries());
      let token = Herald.auth.load();
      for (const [id, entry] of unanswered) {
        if (entry.message.type !== 'auth') continue;
        pending.delete(id);
        token = entry.message.token; // one typed in the form, unanswered when the connection dropped
      }
      if (token) sendAuth(token);
      for (const [, entry] of unanswered) {
        if (entry.message.type === 'auth') continue;
        entry.sentAt = Date.now();
        connection.send(entry.message);
      }
      updateControls();
    },
    onClose() {
      updateControls();
    },
    onStatus(status) {
      ui.status = status;
      Herald.render.drawStatus(status);
      updateControls();
    },
    onMessage(message) {
      switch (message.type) {
        case 'snapshot':
          store.applySnapshot(message);
          ui.resumeAsked = false;
          break;
        case 'accepted':
        case 'error':
        case 'page':
          handleReply(message);
          break;
        case 'pong':
          break;
        default:
          if (typeof message.seq === 'number') applyEvent(message);
          break; // anything else: a message this dashboard does not know; ignored
      }
    },
  });

  function applyEvent(message) {
    const outcome = store.applyEvent(message);
    if (outcome === 'applied') {
      ui.resumeAsked = false;
      if (message.type === 'log') logBook.applyEvent(message);
    } else if (outcome === 'gap' && !ui.resumeAsked) {
      // Cannot happen on one connection, per the protocol; if it does, ask for what is missing.
      const point = store.resumePoint();
      if (point) {
        ui.resumeAsked = true;
        connection.send({ type: 'resume', epoch: point.epoch, since: point.since });
      }
    }
  }

  // ---- store changes → views -----------------------------------------------------------------------

  store.onChange((what, detail) => {
    switch (what) {
      case 'reset':
        ui.searchAwaitJob = null;
        if (fmt.isNumber(store.limits.maxSortCount)) $('sort-count').max = String(store.limits.maxSortCount);
        signIn.setRequired(store.limits.authRequired === true);
        kindForms.setKinds(store.limits);
        kindForms.reset();
        logBook.clear();
        workersView.update();
        jobsView.rebuild();
        logView.reset();
        matchesView.update();
        onNewsReset();
        loadMissingResults();
        historyView.reset();
        break;
      case 'job':
        if (detail.created && (store.kindInfo(detail.job.kind) || {}).command === true) logBook.sawCreated(detail.job.id);
        jobsView.upsert(detail.job);
        kindForms.sawJob(detail.job);
        logView.jobChanged(detail.job);
        historyView.jobChanged(detail.job, detail.created, detail.previous);
        if (detail.job.kind === 'search') {
          if (ui.searchAwaitJob === detail.job.id) ui.searchAwaitJob = null;
          matchesView.update();
          if (Herald.isFinalState(detail.job.state)) loadMissingResults();
        }
        break;
      case 'progress':
        jobsView.progress(detail.job);
        return; // progress does not change which controls are enabled
      case 'results':
        matchesView.update();
        return;
      case 'news':
        onNewsEvent();
        return;
      case 'workers':
        workersView.update();
        jobsView.refreshQueued();
        return;
      default:
        return;
    }
    updateSortView();
    updateControls();
  });

  // Derived from the server's state, so every open tab agrees on what can be started.
  function updateControls() {
    const live = ui.status.state === 'live';
    const searchBusy = store.isBusy('search');
    const searchStart = $('search-start');
    searchStart.disabled = !live || searchBusy || ui.searchRequest !== null || ui.searchAwaitJob !== null;
    searchStart.dataset.busy = String(searchBusy);
    const note = $('search-note');
    if (searchBusy) setText(note, 'A search is running; Start is available again when it ends.');
    else if (!live) setText(note, 'Waiting for the connection to the server.');
    else setText(note, '');

    $('sort-start').disabled = !live || ui.sortRequest !== null || store.isBusy('sort');
    const fetchActive = store.anyActive('fetch');
    const fetchButton = $('news-fetch');
    fetchButton.disabled = !live || ui.fetchRequest !== null || fetchActive;
    setText(fetchButton, fetchActive ? 'Fetching…' : 'Fetch now');
    kindForms.update(live, (kind) => store.isBusy(kind));
  }

  // ---- kinds from a jobs file (forms.js builds their forms) ----------------------------------------

  function startKind(form, params) {
    if (!connection.isOpen()) {
      form.answered({ type: 'error', code: 'disconnected', message: '' }, () => true);
      return;
    }
    form.start.disabled = true; // at once, before any reply
    form.request = request({ type: 'start', kind: form.kind, params }, (reply) => {
      form.answered(reply, (job) => store.jobs.has(job));
      updateControls();
    });
    updateControls();
  }

  // ---- search --------------------------------------------------------------------------------------

  function startSearch(event) {
    event.preventDefault();
    const button = $('search-start');
    if (button.disabled || ui.searchRequest !== null) return; // Enter, double clicks, impatient users
    const errorLine = $('search-error');
    setText(errorLine, '');
    if (!connection.isOpen()) {
      setText(errorLine, fmt.errorText('disconnected'));
      return;
    }
    const params = { query: $('search-query').value, caseSensitive: $('search-case').checked };
    button.disabled = true; // at once, before any reply
    ui.searchRequest = request({ type: 'start', kind: 'search', params }, (reply) => {
      ui.searchRequest = null;
      if (reply.type === 'accepted') {
        if (typeof reply.job === 'string' && !store.jobs.has(reply.job)) ui.searchAwaitJob = reply.job;
      } else if (reply.type === 'error') {
        setText(errorLine, errorText(reply));
        $('search-query').setAttribute('aria-invalid', String(reply.code === 'bad_request'));
      }
      updateControls();
    });
    updateControls();
  }

  // A search this tab did not see from its start (opened late, reconnected) gets its matches by `page`.
  function loadMissingResults() {
    const results = store.results;
    if (!results || results.complete || ui.resultsRequest !== null) return;
    const job = store.jobs.get(results.job);
    if (!job || !Herald.isFinalState(job.state)) return;
    requestResultsPage(job.id, 0);
  }

  function requestResultsPage(jobId, offset) {
    const max = store.maxSearchResults();
    const limit = Math.max(1, Math.min(RESULTS_PAGE, max - offset));
    ui.resultsRequest = request({ type: 'page', job: jobId, offset, limit }, (reply) => {
      ui.resultsRequest = null;
      if (reply.type !== 'page') {
        store.markResultsComplete(jobId); // nothing more to get; show what we have
        matchesView.update();
        return;
      }
      const values = Array.isArray(reply.values) ? reply.values : [];
      store.applyResultsPage(jobId, offset, values, reply.total);
      if (offset > 0 && store.results && store.results.job === jobId && store.results.items.length !== offset + values.length) {
        requestResultsPage(jobId, 0); // a snapshot emptied the list while we paged: start over
        return;
      }
      const next = offset + values.length;
      const total = typeof reply.total === 'number' ? reply.total : next;
      if (values.length > 0 && next < Math.min(total, max) && store.results && store.results.job === jobId) {
        requestResultsPage(jobId, next);
      } else {
        store.markResultsComplete(jobId);
        matchesView.update();
      }
    });
  }

  // ---- jobs ----------------------------------------------------------------------------------------

  function cancelJob(jobId, row) {
    const errorSpan = row.querySelector('.job-error');
    setText(errorSpan, '');
    if (!connection.isOpen()) {
      setText(errorSpan, fmt.errorText('disconnected'));
      return;
    }
    row.dataset.cancelling = 'true';
    row.querySelector('.job-cancel').disabled = true;
    request({ type: 'cancel', job: jobId }, (reply) => {
      const current = jobsView.rows.get(jobId) || row;
      delete current.dataset.cancelling;
      const job = store.jobs.get(jobId);
      current.querySelector('.job-cancel').disabled = false;
      if (reply.type === 'error') setText(current.querySelector('.job-error'), errorText(reply));
      if (job) jobsView.upsert(job);
    });
  }

  // ---- sort ----------------------------------------------------------------------------------------

  function startSort(event) {
    event.preventDefault();
    const button = $('sort-start');
    if (button.disabled || ui.sortRequest !== null) return;
    const errorLine = $('sort-error');
    setText(errorLine, '');
    const input = $('sort-count');
    const max = fmt.isNumber(store.limits.maxSortCount) ? store.limits.maxSortCount : DEFAULT_MAX_SORT;
    const count = Number(input.value);
    if (input.value.trim() === '' || !Number.isInteger(count)) {
      setText(errorLine, 'Enter a whole number from 1 to ' + fmt.count(max) + '.');
      input.setAttribute('aria-invalid', 'true');
      return;
    }
    input.removeAttribute('aria-invalid');
    if (!connection.isOpen()) {
      setText(errorLine, fmt.errorText('disconnected'));
      return;
    }
    button.disabled = true;
    ui.sortRequest = request({ type: 'start', kind: 'sort', params: { count } }, (reply) => {
      ui.sortRequest = null;
      if (reply.type === 'accepted' && typeof reply.job === 'string') {
        ui.sortMine = reply.job;
      } else if (reply.type === 'error') {
        setText(errorLine, errorText(reply));
        input.setAttribute('aria-invalid', String(reply.code === 'bad_request'));
      }
      updateSortView();
      updateControls();
    });
    updateControls();
  }

  // The sort shown: the one this tab started, once it succeeded; otherwise the newest that succeeded.
  function pickSortJob() {
    const mine = ui.sortMine ? store.jobs.get(ui.sortMine) : null;
    if (mine && mine.state === 'succeeded') return mine;
    return store.latestOfKind('sort', (job) => job.state === 'succeeded');
  }

  function updateSortView() {
    const note = $('sort-note');
    const mine = ui.sortMine ? store.jobs.get(ui.sortMine) : null;
    if (mine && Herald.isActiveState(mine.state)) {
      setText(note, 'Sorting ' + Herald.render.paramsSummary(mine) + '… (progress under Jobs)');
    } else if (mine && Herald.isFinalState(mine.state) && mine.state !== 'succeeded') {
      setText(note, 'The last sort ' + mine.state + (mine.error ? ': ' + mine.error : '.'));
    } else {
      setText(note, '');
    }
    const job = pickSortJob();
    if (!job) {
      if (ui.sort.job !== null) {
        ui.sort = { job: null, offset: 0, total: 0, request: null, values: [] };
        sortView.clear();
      }
      sortView.drawSummary(null);
      return;
    }
    sortView.drawSummary(job);
    if (ui.sort.job !== job.id) {
      const total = job.summary && fmt.isNumber(job.summary.count) ? job.summary.count : 0;
      ui.sort = { job: job.id, offset: 0, total, request: null, values: [] };
      sortView.clear();
      loadSortPage(0);
    }
  }

  function loadSortPage(offset) {
    const view = ui.sort;
    if (!view.job) return;
    const lastStart = Math.max(0, view.total - 1);
    view.offset = Math.max(0, Math.min(offset, lastStart));
    drawPagerButtons();
    const errorLine = $('sort-error');
    sortView.busy(true);
    const jobId = view.job;
    const wanted = view.offset;
    view.request = request({ type: 'page', job: jobId, offset: wanted, limit: SORT_PAGE }, (reply) => {
      if (ui.sort.request !== reply.requestId) return; // an older page, overtaken by a newer click
      ui.sort.request = null;
      sortView.busy(false);
      if (reply.type === 'page') {
        setText(errorLine, '');
        const values = Array.isArray(reply.values) ? reply.values : [];
        if (fmt.isNumber(reply.total)) ui.sort.total = reply.total;
        const offsetShown = fmt.isNumber(reply.offset) ? reply.offset : wanted;
        ui.sort.values = values;
        sortView.drawPage(offsetShown, values, ui.sort.total);
      } else if (reply.type === 'error') {
        setText(errorLine, reply.code === 'not_found' || reply.code === 'gone' ? 'The sorted numbers of that job are no longer available.' : errorText(reply));
      }
      drawPagerButtons();
    });
  }

  function drawPagerButtons() {
    const view = ui.sort;
    $('sort-prev').disabled = !view.job || view.offset <= 0;
    $('sort-next').disabled = !view.job || view.offset + SORT_PAGE >= view.total;
    const go = $('sort-goto');
    go.max = String(Math.max(1, view.total));
  }

  function gotoRow(event) {
    event.preventDefault();
    const input = $('sort-goto');
    const row = Number(input.value);
    const errorLine = $('sort-error');
    if (!Number.isInteger(row) || row < 1 || row > ui.sort.total) {
      setText(errorLine, 'Enter a row from 1 to ' + fmt.count(ui.sort.total) + '.');
      input.setAttribute('aria-invalid', 'true');
      return;
    }
    input.removeAttribute('aria-invalid');
    setText(errorLine, '');
    loadSortPage(row - 1);
  }

  // ---- news ----------------------------------------------------------------------------------------

  function isHidden() {
    return document.visibilityState === 'hidden';
  }

  function onNewsReset() {
    if (isHidden() && newsView.revision !== null && newsView.revision !== store.news.revision) {
      setNewsStale(true);
      return;
    }
    if (!ui.newsStale) newsView.draw(store.news, null);
  }

  // While visible, a news event shows at once; while hidden, the list is only marked stale.
  function onNewsEvent() {
    if (isHidden() || ui.newsReloading) {
      if (isHidden()) setNewsStale(true);
      return;
    }
    const fresh = new Set(store.news.items.filter((item) => !newsView.shownIds.has(item.id)).map((item) => item.id));
    newsView.draw(store.news, fresh);
  }

  function setNewsStale(stale) {
    ui.newsStale = stale;
    newsView.setStale(stale);
  }

  // Back in view after news arrived: reload the feed over HTTP and say how many items are new.
  async function reloadNews() {
    if (ui.newsReloading) return;
    ui.newsReloading = true;
    try {
      const response = await fetch('/api/news', { cache: 'no-store', headers: { Accept: 'application/json' } });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      store.replaceNews(await response.json());
    } catch (error) {
      // The event stream kept the feed current; use that.
    } finally {
      ui.newsReloading = false;
    }
    if (isHidden()) return; // hidden again while loading: wait for the next return
    const unseen = store.news.items.filter((item) => !newsView.shownIds.has(item.id));
    newsView.draw(store.news, new Set(unseen.map((item) => item.id)));
    newsView.setNewCount(unseen.length);
    setNewsStale(false);
  }

  function startFetch() {
    const button = $('news-fetch');
    if (button.disabled || ui.fetchRequest !== null) return;
    const errorLine = $('news-error');
    setText(errorLine, '');
    if (!connection.isOpen()) {
      setText(errorLine, fmt.errorText('disconnected'));
      return;
    }
    button.disabled = true;
    ui.fetchRequest = request({ type: 'start', kind: 'fetch', params: {} }, (reply) => {
      ui.fetchRequest = null;
      if (reply.type === 'error') setText(errorLine, errorText(reply));
      updateControls();
    });
    updateControls();
  }

  // ---- wiring --------------------------------------------------------------------------------------

  $('search-form').addEventListener('submit', startSearch);
  $('search-query').addEventListener('input', () => {
    $('search-query').removeAttribute('aria-invalid');
  });
  $('sort-form').addEventListener('submit', startSort);
  $('sort-prev').addEventListener('click', () => loadSortPage(ui.sort.offset - SORT_PAGE));
  $('sort-next').addEventListener('click', () => loadSortPage(ui.sort.offset + SORT_PAGE));
  $('sort-goto-form').addEventListener('submit', gotoRow);
  $('news-fetch').addEventListener('click', startFetch);
  $('reconnect-now').addEventListener('click', () => connection.retryNow());
  document.addEventListener('visibilitychange', () => {
    if (!isHidden() && ui.newsStale) reloadNews();
  });

  // The countdown while reconnecting, and elapsed times of running jobs.
  setInterval(() => {
    if (ui.status.state === 'reconnecting' && ui.status.retryAt) Herald.render.drawStatus(ui.status);
  }, 250);
  setInterval(() => {
    jobsView.tick();
    expireRequests();
  }, 1000);

  show($('sort-summary'), false);
  drawPagerButtons();
  updateControls();
  connection.start();

  // For tests and the curious: read-only views of the state.
  Herald.debug = Object.freeze({ store, pending, awaitingAuth, ui, logBook, history: historyView });
})();
