// Herald dashboard — the sign-in control in the header. When the server says start and cancel need a token
// (the snapshot's `limits.authRequired`) and this tab holds none, it offers to sign in before anything is
// refused; watching needs no token, so nothing else waits for it. It sends nothing itself: the controller
// (app.js) sends `auth` (and keeps the token, auth.js) and passes every `auth` answer to answered().
(function () {
  'use strict';
  const Herald = (window.Herald = window.Herald || {});

  class SignInControl {
    // handlers: onSubmit(token): send it; answered() follows, whatever the outcome.
    constructor(handlers) {
      this.box = document.getElementById('signin');
      this.open = document.getElementById('signin-open');
      this.form = document.getElementById('signin-form');
      this.input = document.getElementById('signin-token');
      this.submit = document.getElementById('signin-submit');
      this.cancel = document.getElementById('signin-cancel');
      this.error = document.getElementById('signin-error');
      this.done = document.getElementById('signin-done');
      this.required = false;
      this.formOpen = false;
      this.busy = false;
      this.open.addEventListener('click', () => this.showForm());
      this.cancel.addEventListener('click', () => this.closeForm());
      this.form.addEventListener('keydown', (event) => {
        if (event.key === 'Escape') this.closeForm();
      });
      this.form.addEventListener('submit', (event) => {
        event.preventDefault();
        if (this.busy) return;
        const token = this.input.value.trim();
        if (token === '') {
          this.showError('Enter the access token.');
          return;
        }
        this.setError('');
        this.setBusy(true);
        handlers.onSubmit(token);
      });
      this.input.addEventListener('input', () => this.input.removeAttribute('aria-invalid'));
      this.draw();
    }

    // From every snapshot: whether this server asks for a token at all.
    setRequired(required) {
      this.required = required === true;
      this.draw();
    }

    // The answer to an `auth`, from this control or the inline form (the token is already kept or
    // forgotten by then). A refusal is shown here only when this control sent the token.
    answered(reply) {
      const mine = this.busy;
      this.setBusy(false);
      if (reply.type === 'accepted') {
        this.closeForm();
        return;
      }
      if (mine && this.formOpen) {
        this.showError(
          reply.code === 'unauthorized'
            ? 'That token was not accepted. Check it and try again.'
            : Herald.format.errorText(reply.code, reply.message),
        );
      }
      this.draw();
    }

    showForm() {
      this.formOpen = true;
      this.input.value = '';
      this.setError('');
      this.draw();
      this.input.focus();
    }

    closeForm() {
      const hadFocus = this.form.contains(document.activeElement);
      this.formOpen = false;
      this.input.value = '';
      this.setError('');
      this.setBusy(false);
      this.draw();
      if (hadFocus && !this.open.hidden) this.open.focus();
    }

    setBusy(busy) {
      this.busy = busy;
      this.submit.disabled = busy;
      this.submit.textContent = busy ? 'Signing in…' : 'Sign in';
    }

    setError(text) {
      this.error.textContent = text;
      if (text === '') this.input.removeAttribute('aria-invalid');
    }

    showError(text) {
      this.setError(text);
      this.input.setAttribute('aria-invalid', 'true');
      this.input.focus();
      this.input.select();
    }

    // Hidden unless the server asks for a token; then "Signed in" while this tab holds one, else the
    // button, or the field once the button was pressed.
    draw() {
      const signedIn = Herald.auth.load() !== null;
      const state = !this.required ? 'off' : signedIn ? 'signed-in' : this.formOpen ? 'form' : 'offer';
      this.box.dataset.state = state;
      this.box.hidden = state === 'off';
      this.open.hidden = state !== 'offer';
      this.open.setAttribute('aria-expanded', String(state === 'form'));
      this.form.hidden = state !== 'form';
      this.done.hidden = state !== 'signed-in';
    }
  }

  Herald.SignInControl = SignInControl;
})();
