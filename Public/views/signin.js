// Herald dashboard — signing in, in one flow with two places to type the token. The header's control offers
// it before anything is refused, when the server says start and cancel need a token (the snapshot's
// `limits.authRequired`) and this tab holds none; the prompt above the forms asks for it when the server
// refused a start or cancel as `unauthorized` (those wait, their buttons busy, until a token is accepted or the
// user says "Not now"). Either sends the token with api.authenticate(); api.js keeps it and retries what waits,
// and every answer reaches both. Watching needs no token, so nothing else waits for it.
import * as fmt from '../format.js';
import { $, button, input } from '../dom.js';
import * as token from '../token.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Reply} Reply */

const NOT_ACCEPTED = 'That token was not accepted. Check it and try again.';

// What both places share: a form with one token field and a submit button; an empty token is refused
// here, and one submit at a time.
class TokenForm {
  /** @param {string} prefix the ids' prefix in index.html ('signin' or 'auth') @param {(token: string) => void} onToken */
  constructor(prefix, onToken) {
    this.form = $(prefix + '-form');
    this.input = input(prefix + '-token');
    this.submit = button(prefix + '-submit');
    this.error = $(prefix + '-error');
    this.busy = false;
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (this.busy) return;
      const value = this.input.value.trim();
      if (value === '') {
        this.showError('Enter the access token.');
        return;
      }
      onToken(value);
    });
    this.input.addEventListener('input', () => this.input.removeAttribute('aria-invalid'));
  }

  /** @param {boolean} busy */
  setBusy(busy) {
    this.busy = busy;
    this.submit.disabled = busy;
    this.submit.textContent = busy ? 'Signing in…' : 'Sign in';
  }

  clearError() {
    this.error.textContent = '';
    this.input.removeAttribute('aria-invalid');
  }

  /** Clears the field and its error. */
  clear() {
    this.input.value = '';
    this.clearError();
  }

  /** @param {string} text */
  showError(text) {
    this.setBusy(false);
    this.error.textContent = text;
    this.input.setAttribute('aria-invalid', 'true');
    this.input.focus();
    this.input.select();
  }
}

// The header's control: hidden unless the server asks for a token; then "Signed in" while this tab holds
// one, else the button, or the field once the button was pressed.
class HeaderSignIn {
  /** @param {(token: string) => void} onToken */
  constructor(onToken) {
    this.box = $('signin');
    this.open = button('signin-open');
    this.done = $('signin-done');
    this.tokenForm = new TokenForm('signin', (value) => {
      this.tokenForm.clearError();
      this.tokenForm.setBusy(true);
      onToken(value);
    });
    this.required = false;
    this.formOpen = false;
    this.open.addEventListener('click', () => this.showForm());
    $('signin-cancel').addEventListener('click', () => this.closeForm());
    this.tokenForm.form.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.closeForm();
    });
    this.draw();
  }

  /** @param {boolean} required */
  setRequired(required) {
    this.required = required === true;
    this.draw();
  }

  // The answer to an `auth` from either place; a refusal is shown here only when this control sent it.
  /** @param {Reply} reply */
  answered(reply) {
    const mine = this.tokenForm.busy;
    this.tokenForm.setBusy(false);
    if (reply.type === 'accepted') {
      this.closeForm();
      return;
    }
    if (mine && this.formOpen) {
      this.tokenForm.showError(reply.code === 'unauthorized' ? NOT_ACCEPTED : fmt.errorText(reply.code, reply.message));
    }
    this.draw();
  }

  showForm() {
    this.formOpen = true;
    this.tokenForm.clear();
    this.draw();
    this.tokenForm.input.focus();
  }

  closeForm() {
    const hadFocus = this.tokenForm.form.contains(document.activeElement);
    this.formOpen = false;
    this.tokenForm.clear();
    this.tokenForm.setBusy(false);
    this.draw();
    if (hadFocus && !this.open.hidden) this.open.focus();
  }

  draw() {
    const signedIn = token.load() !== null;
    const state = !this.required ? 'off' : signedIn ? 'signed-in' : this.formOpen ? 'form' : 'offer';
    this.box.dataset.state = state;
    this.box.hidden = state === 'off';
    this.open.hidden = state !== 'offer';
    this.open.setAttribute('aria-expanded', String(state === 'form'));
    this.tokenForm.form.hidden = state !== 'form';
    this.done.hidden = state !== 'signed-in';
  }
}

// The prompt above the forms: shown with the reason, the field focused, when a command waits for a token.
class Prompt {
  /** @param {(token: string) => void} onToken @param {() => void} onDismiss */
  constructor(onToken, onDismiss) {
    this.section = $('auth-section');
    this.tokenForm = new TokenForm('auth', onToken);
    $('auth-dismiss').addEventListener('click', () => onDismiss());
  }

  isShown() {
    return !this.section.hidden;
  }

  show() {
    const wasHidden = this.section.hidden;
    this.section.hidden = false;
    if (wasHidden) {
      this.tokenForm.input.value = '';
      this.tokenForm.setBusy(false);
      this.tokenForm.input.focus();
    }
  }

  hide() {
    this.section.hidden = true;
    this.tokenForm.clear();
    this.tokenForm.setBusy(false);
  }
}

/** @param {Context} context */
export function mount({ store, api }) {
  const header = new HeaderSignIn((value) => {
    if (api.isOpen()) api.authenticate(value);
    else header.answered({ type: 'error', code: 'disconnected' });
  });
  const prompt = new Prompt(
    (value) => {
      if (!api.isOpen()) {
        prompt.tokenForm.showError(fmt.errorText('disconnected'));
        return;
      }
      prompt.tokenForm.setBusy(true);
      api.authenticate(value);
    },
    () => {
      prompt.hide();
      api.declineToken();
    },
  );
  api.onTokenWanted(() => prompt.show());
  api.onAuthAnswered((reply) => {
    if (reply.type === 'accepted') prompt.hide();
    else if (prompt.isShown()) prompt.tokenForm.showError(reply.code === 'unauthorized' ? NOT_ACCEPTED : fmt.errorText(reply.code, reply.message));
    header.answered(reply);
  });
  store.onChange((what) => {
    if (what === 'reset') header.setRequired(store.limits.authRequired === true);
  });
}
