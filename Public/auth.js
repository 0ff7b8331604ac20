// Herald dashboard — the sign-in token: kept in this tab's sessionStorage only (never localStorage, never
// in a URL, which would end up in logs), and the inline form that asks for it when the server answers
// `unauthorized` to a start or cancel. The controller (app.js) sends it and retries the refused commands.
(function () {
  'use strict';
  const Herald = (window.Herald = window.Herald || {});
  const KEY = 'herald.token';

  // sessionStorage may be unavailable (privacy modes throw on access): then the token lives in memory.
  let memory = null;

  function load() {
    try {
      const value = window.sessionStorage.getItem(KEY);
      return typeof value === 'string' && value.length > 0 ? value : null;
    } catch (error) {
      return memory;
    }
  }

  function save(token) {
    memory = token;
    try {
      window.sessionStorage.setItem(KEY, token);
    } catch (error) {
      // memory only
    }
  }

  function forget() {
    memory = null;
    try {
      window.sessionStorage.removeItem(KEY);
    } catch (error) {
      // nothing stored
    }
  }

  // The form: shown with the reason, the field focused; one submit at a time.
  class AuthView {
    // handlers: onSubmit(token), onDismiss()
    constructor(handlers) {
      this.section = document.getElementById('auth-section');
      this.form = document.getElementById('auth-form');
      this.input = document.getElementById('auth-token');
      this.submit = document.getElementById('auth-submit');
      this.dismiss = document.getElementById('auth-dismiss');
      this.error = document.getElementById('auth-error');
      this.busy = false;
      this.form.addEventListener('submit', (event) => {
        event.preventDefault();
        if (this.busy) return;
        const token = this.input.value.trim();
        if (token === '') {
          this.showError('Enter the access token.');
          return;
        }
        handlers.onSubmit(token);
      });
      this.dismiss.addEventListener('click', () => handlers.onDismiss());
      this.input.addEventListener('input', () => this.input.removeAttribute('aria-invalid'));
    }

    isShown() {
      return !this.section.hidden;
    }

    show() {
      const wasHidden = this.section.hidden;
      this.section.hidden = false;
      if (wasHidden) {
        this.input.value = '';
        this.setBusy(false);
        this.input.focus();
      }
    }

    hide() {
      this.section.hidden = true;
      this.input.value = '';
      this.error.textContent = '';
      this.input.removeAttribute('aria-invalid');
      this.setBusy(false);
    }

    setBusy(busy) {
      this.busy = busy;
      this.submit.disabled = busy;
      this.submit.textContent = busy ? 'Signing in…' : 'Sign in';
    }

    showError(text) {
      this.setBusy(false);
      this.error.textContent = text;
      this.input.setAttribute('aria-invalid', 'true');
      this.input.focus();
      this.input.select();
    }
  }

  Herald.auth = Object.freeze({ load, save, forget, AuthView });
})();
