// Herald dashboard — the few DOM helpers every view uses. Server data reaches the page only through
// textContent, text nodes and attributes set from JS; rows are cloned from <template>s in index.html.

/** @param {string} id @returns {HTMLElement} */
export function $(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error('index.html has no #' + id); // a renamed id fails loudly, at load
  return element;
}

// Typed look-ups, so the type check knows a button has `disabled` and an input a `value`.
/** @param {string} id */
export const button = (id) => /** @type {HTMLButtonElement} */ ($(id));
/** @param {string} id */
export const input = (id) => /** @type {HTMLInputElement} */ ($(id));
/** @param {string} id */
export const select = (id) => /** @type {HTMLSelectElement} */ ($(id));

/** @param {string} templateId @returns {HTMLElement} */
export function clone(templateId) {
  const template = /** @type {HTMLTemplateElement} */ ($(templateId));
  return /** @type {HTMLElement} */ (template.content.firstElementChild.cloneNode(true));
}

/** The element under `root` matching `selector`, typed as an HTMLElement (it always is, in this page).
 * @param {ParentNode} root @param {string} selector @returns {HTMLElement} */
export function part(root, selector) {
  return /** @type {HTMLElement} */ (root.querySelector(selector));
}

/** @param {Element} element @param {unknown} text */
export function setText(element, text) {
  const value = text === null || text === undefined ? '' : String(text);
  if (element.textContent !== value) element.textContent = value;
}

/** @param {HTMLElement} element @param {boolean} visible */
export function show(element, visible) {
  if (element.hidden === visible) element.hidden = !visible;
}

// ---- frame batching: many events, one DOM update per frame (and still some when the tab is hidden) ----

/** @type {Map<string, () => void>} */
const pendingWork = new Map();
let frameScheduled = false;

function runFrame() {
  if (!frameScheduled) return;
  frameScheduled = false;
  const work = Array.from(pendingWork.values());
  pendingWork.clear();
  for (const task of work) task();
}

/** Runs `task` once in the next frame; a later task with the same key replaces it.
 * @param {string} key @param {() => void} task */
export function inNextFrame(key, task) {
  pendingWork.set(key, task);
  if (frameScheduled) return;
  frameScheduled = true;
  requestAnimationFrame(runFrame);
  setTimeout(runFrame, 250); // rAF does not run in background tabs
}

export function isHidden() {
  return document.visibilityState === 'hidden';
}
