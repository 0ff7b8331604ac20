// Herald dashboard — the sign-in token: kept in this tab's sessionStorage only (never localStorage, never
// in a URL, which would end up in logs). api.js sends it; views/signin.js asks for it.
const KEY = 'herald.token';

// sessionStorage may be unavailable (privacy modes throw on access): then the token lives in memory.
/** @type {string | null} */
let memory = null;

/** @returns {string | null} */
export function load() {
  try {
    const value = window.sessionStorage.getItem(KEY);
    return typeof value === 'string' && value.length > 0 ? value : null;
  } catch (error) {
    return memory;
  }
}

/** @param {string} token */
export function save(token) {
  memory = token;
  try {
    window.sessionStorage.setItem(KEY, token);
  } catch (error) {
    // memory only
  }
}

export function forget() {
  memory = null;
  try {
    window.sessionStorage.removeItem(KEY);
  } catch (error) {
    // nothing stored
  }
}
