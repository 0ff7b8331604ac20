// Herald dashboard — start forms for the kinds a jobs file declares (docs/jobs.md), built from the snapshot's
// `limits.kinds`: a text, number, checkbox or select per param, defaults filled in, a param's refusal shown
// next to its field. It sends nothing itself: the controller (app.js) sends the start and passes the reply
// to answered(). Built-in kinds keep their own controls in index.html.
(function () {
  'use strict';
  const Herald = (window.Herald = window.Herald || {});
  const fmt = Herald.format;
  const { $, setText, show } = Herald.render;

  const BUILT_IN = new Set(['search', 'sort', 'fetch', 'ticker']);

  function isObject(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  }

  function make(tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  }

  // The kinds that get a generic form: every startable kind that is not built in.
  function formKinds(limits) {
    const kinds = limits && isObject(limits.kinds) ? limits.kinds : {};
    return Object.keys(kinds).filter((kind) => !BUILT_IN.has(kind) && isObject(kinds[kind]));
  }

  function valueText(value) {
    return typeof value === 'string' ? value : JSON.stringify(value);
  }

  class KindForm {
    constructor(kind, info, index, onStart) {
      this.kind = kind;
      this.info = info;
      this.title = typeof info.title === 'string' && info.title ? info.title : kind;
      this.params = isObject(info.params) ? info.params : {};
      this.request = null; // a start not answered yet
      this.awaitJob = null; // a job the server accepted whose first event has not arrived yet
      this.fields = new Map(); // param name → { spec, input, error }
      this.element = this.build(index, onStart);
    }

    build(index, onStart) {
      const form = make('form', 'kind-form');
      form.noValidate = true;
      form.dataset.kind = this.kind;
      form.dataset.testid = 'kind-form-' + this.kind;
      const heading = make('h3', 'kind-title', this.title);
      heading.id = 'kf-' + index + '-title';
      form.setAttribute('aria-labelledby', heading.id);
      form.append(heading);
      const controls = make('div', 'controls kind-fields');
      let n = 0;
      for (const name of Object.keys(this.params)) {
        const spec = isObject(this.params[name]) ? this.params[name] : { type: 'string' };
        n += 1;
        controls.append(this.buildField(name, spec, 'kf-' + index + '-' + n));
      }
      const start = make('button', 'primary kind-start', 'Start');
      start.type = 'submit';
      start.dataset.testid = 'kind-start-' + this.kind;
      start.setAttribute('aria-label', 'Start ' + this.title);
      controls.append(start);
      form.append(controls);
      this.start = start;
      this.error = make('p', 'field-error kind-error');
      this.error.setAttribute('role', 'alert');
      this.error.dataset.testid = 'kind-error-' + this.kind;
      this.note = make('p', 'note kind-note');
      this.note.setAttribute('aria-live', 'polite');
      form.append(this.error, this.note);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        if (this.start.disabled || this.request !== null) return; // double clicks, Enter
        const params = this.collect();
        if (params) onStart(this, params);
      });
      return form;
    }

    buildField(name, spec, id) {
      const type = spec.type;
      const wrap = make('div', type === 'boolean' && !Array.isArray(spec.enum) ? 'field check' : 'field');
      wrap.dataset.param = name;
      const label = make('label', null, name + (spec.required === true ? ' (required)' : ''));
      label.htmlFor = id;
      const error = make('span', 'field-error param-error');
      error.id = id + '-error';
      error.dataset.errorFor = name;
      let input;
      if (Array.isArray(spec.enum)) {
        input = make('select');
        if (spec.required !== true && !('default' in spec)) input.append(make('option', null, '—'));
        spec.enum.forEach((value, i) => {
          const option = make('option', null, valueText(value));
          option.value = String(i);
          if ('default' in spec && JSON.stringify(spec.default) === JSON.stringify(value)) option.selected = true;
          input.append(option);
        });
      } else if (type === 'boolean') {
        input = make('input');
        input.type = 'checkbox';
        input.checked = spec.default === true;
      } else if (type === 'integer' || type === 'number') {
        input = make('input');
        input.type = 'number';
        input.inputMode = type === 'integer' ? 'numeric' : 'decimal';
        input.step = type === 'integer' ? '1' : 'any';
        if (fmt.isNumber(spec.minimum)) input.min = String(spec.minimum);
        if (fmt.isNumber(spec.maximum)) input.max = String(spec.maximum);
        if (fmt.isNumber(spec.default)) input.value = String(spec.default);
      } else {
        input = make('input');
        input.type = 'text';
        input.autocomplete = 'off';
        input.spellcheck = false;
        if (fmt.isNumber(spec.maxLength)) input.maxLength = spec.maxLength;
        if (typeof spec.default === 'string') input.value = spec.default;
        if (typeof spec.pattern === 'string') input.title = 'Must match ' + spec.pattern;
      }
      input.id = id;
      input.name = name;
      input.dataset.param = name;
      input.setAttribute('aria-describedby', error.id);
      input.addEventListener('input', () => this.setFieldError(name, ''));
      if (type === 'boolean' && !Array.isArray(spec.enum)) wrap.append(input, label, error);
      else wrap.append(label, input, error);
      this.fields.set(name, { spec, input, error });
      return wrap;
    }

    // The params to send, or null (with the errors shown) when a field cannot be read. Everything else
    // (required, ranges, patterns) is the server's to say: its refusal names the param.
    collect() {
      this.clearErrors();
      const params = {};
      let ok = true;
      for (const [name, field] of this.fields) {
        const { spec, input } = field;
        if (Array.isArray(spec.enum)) {
          const i = Number(input.value);
          if (input.value !== '' && Number.isInteger(i) && i >= 0 && i < spec.enum.length) params[name] = spec.enum[i];
        } else if (spec.type === 'boolean') {
          params[name] = input.checked;
        } else if (spec.type === 'integer' || spec.type === 'number') {
          if (input.validity && input.validity.badInput) {
            this.setFieldError(name, 'Enter a number.');
            ok = false;
          } else if (input.value.trim() !== '') {
            const number = Number(input.value);
            if (!Number.isFinite(number)) {
              this.setFieldError(name, 'Enter a number.');
              ok = false;
            } else {
              params[name] = number;
            }
          }
        } else if (input.value !== '') {
          params[name] = input.value;
        }
      }
      return ok ? params : null;
    }

    setFieldError(name, text) {
      const field = this.fields.get(name);
      if (!field) return;
      setText(field.error, text);
      if (text) field.input.setAttribute('aria-invalid', 'true');
      else field.input.removeAttribute('aria-invalid');
    }

    clearErrors() {
      for (const name of this.fields.keys()) this.setFieldError(name, '');
      setText(this.error, '');
    }

    // The reply to this form's start.
    answered(reply, knownJob) {
      this.request = null;
      if (reply.type === 'accepted') {
        if (typeof reply.job === 'string' && !knownJob(reply.job)) this.awaitJob = reply.job;
        return;
      }
      if (reply.type !== 'error') return;
      const message = typeof reply.message === 'string' ? reply.message : '';
      const colon = message.indexOf(': ');
      const name = colon > 0 ? message.slice(0, colon) : '';
      if (reply.code === 'bad_request' && this.fields.has(name)) {
        const problem = message.slice(colon + 2);
        this.setFieldError(name, problem.charAt(0).toUpperCase() + problem.slice(1).replace(/\.?$/, '.'));
        this.fields.get(name).input.focus();
      } else if (reply.code === 'busy') {
        setText(this.error, '“' + this.title + '” is already running. Wait for it to finish or cancel it, then try again.');
      } else {
        setText(this.error, fmt.errorText(reply.code, message));
      }
    }

    // Start is enabled only when a start could be accepted: live, nothing of ours pending, not busy.
    update(live, busy) {
      this.start.disabled = !live || busy || this.request !== null || this.awaitJob !== null;
      this.start.dataset.busy = String(busy);
      if (busy) setText(this.note, '“' + this.title + '” is running; Start is available again when it ends.');
      else setText(this.note, '');
    }
  }

  class KindForms {
    // onStart(form, params): send the start, then call form.answered(reply, knownJob).
    constructor(onStart) {
      this.onStart = onStart;
      this.section = $('kinds-section');
      this.container = $('kind-forms');
      this.forms = new Map(); // kind → KindForm
      this.signature = '';
    }

    // From every snapshot: rebuilds the forms only when the declarations changed, so typed values survive
    // a reconnect.
    setKinds(limits) {
      const kinds = formKinds(limits);
      const signature = JSON.stringify(kinds.map((kind) => [kind, limits.kinds[kind]]));
      if (signature === this.signature) return;
      this.signature = signature;
      this.forms.clear();
      const fragment = document.createDocumentFragment();
      kinds.forEach((kind, index) => {
        const form = new KindForm(kind, limits.kinds[kind], index + 1, this.onStart);
        this.forms.set(kind, form);
        fragment.append(form.element);
      });
      this.container.replaceChildren(fragment);
      show(this.section, kinds.length > 0);
    }

    // A job event arrived: a form waiting for its accepted job's first event stops waiting.
    sawJob(job) {
      const form = this.forms.get(job.kind);
      if (form && form.awaitJob === job.id) form.awaitJob = null;
    }

    update(live, isBusy) {
      for (const [kind, form] of this.forms) form.update(live, isBusy(kind));
    }

    reset() {
      for (const form of this.forms.values()) form.awaitJob = null;
    }
  }

  Herald.KindForms = KindForms;
})();
