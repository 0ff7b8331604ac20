// Herald dashboard — the connected workers in the header (docs/workers.md): one chip each, with the
// kinds it runs and its busy slots, redrawn from the store's list on every `workers` event.
(function () {
  'use strict';
  const Herald = (window.Herald = window.Herald || {});

  class WorkersView {
    constructor(store) {
      this.store = store;
      this.box = document.getElementById('workers');
      this.list = document.getElementById('workers-list');
    }

    update() {
      const workers = this.store.workers;
      this.box.hidden = workers.length === 0;
      const items = workers.map((worker) => {
        const item = document.createElement('li');
        item.className = 'worker-chip';
        item.dataset.name = worker.name;
        item.dataset.draining = String(worker.draining === true);
        const busy = typeof worker.busy === 'number' ? worker.busy : 0;
        const slots = typeof worker.slots === 'number' ? worker.slots : 1;
        const state = worker.draining === true ? ', stopping' : '';
        item.textContent = worker.name + ' · ' + busy + '/' + slots + ' busy' + state;
        item.title = worker.name + ' runs ' + worker.kinds.join(', ');
        return item;
      });
      this.list.replaceChildren(...items);
    }
  }

  Herald.workers = { WorkersView };
})();
