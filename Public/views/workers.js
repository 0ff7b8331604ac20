// Herald dashboard — the connected workers in the header (docs/workers.md): one chip each, with the
// kinds it runs and its busy slots, redrawn from the store's list on every `workers` event.
import { $ } from '../dom.js';

/** @typedef {import('../types.js').Context} Context */

/** @param {Context} context */
export function mount({ store }) {
  const box = $('workers');
  const list = $('workers-list');
  store.onChange((what) => {
    if (what !== 'reset' && what !== 'workers') return;
    const workers = store.workers;
    box.hidden = workers.length === 0;
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
    list.replaceChildren(...items);
  });
}
