// Herald dashboard — formatting helpers: numbers, sizes, rates, durations, and error wording.
// Pure functions, no DOM. Everything here returns plain strings that are rendered with textContent.

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export function isNumber(value) {
  return typeof value === 'number' && Number.isFinite(value);
}

export function count(value) {
  return isNumber(value) ? integer.format(value) : '—';
}

// Divides by 1000 until the number is under 1000 or the units run out: 1536 → n 1.536, unit 1.
function scaled(value, units) {
  let n = Math.abs(value);
  let unit = 0;
  while (n >= 1000 && unit < units.length - 1) {
    n /= 1000;
    unit += 1;
  }
  return { sign: value < 0 ? '-' : '', n, unit };
}

// 1536 → "1.5 kB"; decimal units, as download dialogs show them.
export function bytes(value) {
  if (!isNumber(value)) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  const { sign, n, unit } = scaled(value, units);
  return sign + (unit === 0 ? integer.format(n) : oneDecimal.format(n)) + ' ' + units[unit];
}

// 12345.6 → "12.3k"; for counts per second.
export function compact(value) {
  if (!isNumber(value)) return '—';
  const units = ['', 'k', 'M', 'G', 'T'];
  const { sign, n, unit } = scaled(value, units);
  return sign + (unit === 0 && n >= 10 ? integer.format(n) : oneDecimal.format(n)) + units[unit];
}

// The unit of a job's progress, per kind: a search counts bytes, a sort numbers, a fetch items.
const rateUnits = { search: 'bytes', sort: 'numbers', fetch: 'items', ticker: 'events' };

export function rate(kind, perSecond) {
  if (!isNumber(perSecond) || perSecond < 0) return '—';
  const unit = rateUnits[kind];
  if (unit === 'bytes') return bytes(perSecond) + '/s';
  return compact(perSecond) + ' ' + (unit || 'units') + '/s';
}

// Seconds → "0.4 s", "12 s", "3 min 05 s", "2 h 03 min".
export function duration(seconds) {
  if (!isNumber(seconds) || seconds < 0) return '—';
  if (seconds < 10) return oneDecimal.format(seconds) + ' s';
  const whole = Math.round(seconds);
  if (whole < 60) return whole + ' s';
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  if (h > 0) return h + ' h ' + String(m).padStart(2, '0') + ' min';
  return m + ' min ' + String(s).padStart(2, '0') + ' s';
}

// Milliseconds → "12 ms" under a second, else as duration(): for jobs that may take no time at all.
export function durationMs(ms) {
  if (!isNumber(ms) || ms < 0) return '—';
  return ms < 999.5 ? Math.round(ms) + ' ms' : duration(ms / 1000);
}

export function percent(fraction) {
  if (!isNumber(fraction)) return '—';
  const clamped = Math.min(1, Math.max(0, fraction));
  return oneDecimal.format(clamped * 100) + ' %';
}

export function clock(ms) {
  if (!isNumber(ms)) return '';
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function dateTime(ms) {
  if (!isNumber(ms)) return '';
  return new Date(ms).toLocaleString();
}

// Server error replies in words a person understands. `message` is the server's own wording; a
// bad_request names the field first ("query: must be 1 to 1024 bytes of UTF-8"), and `labels` turns that
// field's name into the words the form uses ({ query: 'The text to find' }).
export function errorText(code, message, labels) {
  const serverSays = typeof message === 'string' && message.length > 0 ? message : '';
  switch (code) {
    case 'busy':
      return 'A search is already running. Wait for it to finish or cancel it, then try again.';
    case 'bad_request': {
      const named = /^([A-Za-z]+): (.+)$/.exec(serverSays);
      if (named && labels && Object.prototype.hasOwnProperty.call(labels, named[1])) {
        return labels[named[1]] + ' ' + named[2].replace(/\.?$/, '.');
      }
      return serverSays ? capitalize(serverSays) : 'The server did not accept that request.';
    }
    case 'bad_json':
      return 'The server could not read the request (a dashboard bug).';
    case 'unknown_type':
    case 'unknown_kind':
      return 'This server does not support that yet.';
    case 'not_found':
      return 'That job is no longer known to the server.';
    case 'gone':
      return 'The server no longer keeps that job’s results.';
    case 'not_cancellable':
      return 'That job has already finished.';
    case 'too_large':
      return 'That request is too large.';
    case 'rate_limited':
      return 'Too many requests at once. Slow down and try again in a moment.';
    case 'unauthorized':
      return 'The server needs a sign-in token for this.';
    case 'shutting_down':
      return 'The server is shutting down. Try again once it is back.';
    case 'timeout':
      return 'The server did not answer in time. Try again.';
    case 'disconnected':
      return 'Not connected to the server. Try again once the status says live.';
    default:
      return serverSays ? capitalize(serverSays) : 'Something went wrong' + (code ? ' (' + code + ')' : '') + '.';
  }
}

function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// A moment in the browser's local time: the time of day for today, with the date for other days.
/** @param {number} ms @param {number} now */
export function localWhen(ms, now) {
  if (!isNumber(ms)) return '—';
  const date = new Date(ms);
  if (date.toDateString() === new Date(now).toDateString()) return clock(ms);
  return date.toLocaleString(undefined, { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

// How far a moment is from now, in words: "in 12 s", "in 3 min", "in 2 h 05 min", "in 4 days", "5 min ago".
/** @param {number} ms @param {number} now */
export function relative(ms, now) {
  if (!isNumber(ms) || !isNumber(now)) return '';
  const seconds = Math.round((ms - now) / 1000);
  const span = Math.abs(seconds);
  let words;
  if (span < 1) return 'now';
  if (span < 60) words = span + ' s';
  else if (span < 3600) words = Math.floor(span / 60) + ' min';
  else if (span < 48 * 3600) words = Math.floor(span / 3600) + ' h ' + String(Math.floor((span % 3600) / 60)).padStart(2, '0') + ' min';
  else words = Math.floor(span / 86400) + ' days';
  return seconds > 0 ? 'in ' + words : words + ' ago';
}
