// Herald dashboard — browser notifications when a job ends while this tab is in the background. Off until
// the user picks "when a job I start here ends" or "when any job ends" in the header's control; only then is
// the browser asked for its permission (never on load: browsers and users dislike a prompt nobody asked
// for). The choice is kept in localStorage; a kept choice without the browser's permission counts as off.
// "A job I start here" is one whose start this tab sent and the server accepted (api.startedHere), any kind,
// including a schedule's Run now.
import * as fmt from '../format.js';
import { $, isHidden, select, setText } from '../dom.js';
import { isFinalState } from '../store.js';
import { kindName } from '../words.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Job} Job */
/** @typedef {'off' | 'mine' | 'all'} Choice */

const KEY = 'herald.notify';
const CHOICES = ['off', 'mine', 'all'];

/** @returns {Choice} */
function loadChoice() {
  try {
    const value = window.localStorage.getItem(KEY);
    return CHOICES.includes(value) ? /** @type {Choice} */ (value) : 'off';
  } catch (error) {
    return 'off'; // storage unavailable (privacy modes): nothing kept
  }
}

/** @param {Choice} choice */
function saveChoice(choice) {
  try {
    window.localStorage.setItem(KEY, choice);
  } catch (error) {
    // kept for this page only
  }
}

function permission() {
  return 'Notification' in window ? window.Notification.permission : 'denied';
}

/** The notification's words for a job that ended: its kind's title (a jobs file's) or name, and how it ended.
 * @param {Job} job @param {string} kindTitle @returns {{ title: string, body: string }} */
export function notificationText(job, kindTitle) {
  const title = kindTitle + ' ' + job.state;
  const start = fmt.isNumber(job.startedAt) ? job.startedAt : job.createdAt;
  const parts = [];
  if (fmt.isNumber(job.finishedAt) && fmt.isNumber(start)) parts.push('Took ' + fmt.durationMs(Math.max(0, job.finishedAt - start)) + '.');
  if (job.state !== 'succeeded' && typeof job.error === 'string' && job.error) parts.push(job.error);
  if (typeof job.schedule === 'string') parts.push('Started by schedule ' + job.schedule + '.');
  return { title, body: parts.join(' ') };
}

/** @param {Context} context */
export function mount({ store, api }) {
  const box = $('notify');
  const control = select('notify-choice');
  const note = $('notify-note');
  if (!('Notification' in window)) return; // the control stays hidden
  box.hidden = false;
  /** @type {Choice} */
  let choice = loadChoice();
  /** @type {Set<string>} jobs already told of (a job's final event can come again after a resume) */
  const told = new Set();

  const draw = () => {
    const effective = permission() === 'granted' ? choice : 'off';
    control.value = effective;
    box.dataset.choice = effective;
    if (permission() === 'denied' && choice !== 'off') setText(note, 'Notifications are blocked in this browser’s site settings.');
    else if (effective !== 'off') setText(note, 'while this tab is in the background');
    else setText(note, '');
  };

  control.addEventListener('change', async () => {
    const wanted = /** @type {Choice} */ (CHOICES.includes(control.value) ? control.value : 'off');
    choice = wanted;
    saveChoice(wanted);
    if (wanted !== 'off' && permission() === 'default') {
      try {
        await window.Notification.requestPermission();
      } catch (error) {
        // an old browser's callback form, or a refusal: the permission says which
      }
    }
    draw();
  });

  store.onChange((what, detail) => {
    if (what !== 'job') return;
    const job = /** @type {Job} */ (detail.job);
    const previous = detail.previous;
    if (!previous || isFinalState(previous.state) || !isFinalState(job.state)) return;
    if (!isHidden() || permission() !== 'granted' || choice === 'off' || told.has(job.id)) return;
    if (choice === 'mine' && !api.startedHere.has(job.id)) return;
    told.add(job.id);
    const info = store.kindInfo(job.kind);
    const { title, body } = notificationText(job, info && typeof info.title === 'string' && info.title ? info.title : kindName(job.kind));
    try {
      const shown = new window.Notification(title, { body, tag: 'herald-' + job.id });
      shown.onclick = () => {
        window.focus();
        shown.close();
      };
    } catch (error) {
      // Some browsers (Android Chrome) allow notifications only from a service worker; nothing to do here.
    }
  });

  draw();
}
