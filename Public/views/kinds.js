// Herald dashboard — start forms for the kinds a jobs file declares (docs/jobs.md), built from the snapshot's
// `limits.kinds`: a text, number, checkbox or select per param, defaults filled in, a param's refusal shown
// next to its field. Each form starts its kind through the one start flow (start.js). Built-in kinds keep
// their own controls in index.html.
import * as fmt from '../format.js';
import { $, setText, show } from '../dom.js';
import { StartFlow } from '../start.js';
import { isObject } from '../store.js';

/** @typedef {import('../types.js').Context} Context */
/** @typedef {import('../types.js').Reply} Reply */
/** @typedef {import('../types.js').KindInfo} KindInfo */
/** @typedef {import('../types.js').Limits} Limits */
/** @typedef {import('../types.js').ParamSpec} ParamSpec */
/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../api.js').Api} Api */

const BUILT_IN = new Set(['search', 'sort', 'fetch', 'ticker']);

/** @param {string} tag @param {string | null} [className] @param {string} [text] @returns {any} the element */
function make(tag, className, text) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

// The kinds that get a generic form: every startable kind that is not built in.
/** @param {Limits} limits */
function formKinds(limits) {
  const kinds = limits && isObject(limits.kinds) ? limits.kinds : {};
  return Object.keys(kinds).filter((kind) => !BUILT_IN.has(kind) && isObject(kinds[kind]));
}

/** @param {any} value */
function valueText(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

class KindForm {
  /** @param {Store} store @param {Api} api @param {string} kind @param {KindInfo} info @param {number} index */
  constructor(store, api, kind, info, index) {
    this.store = store;
    this.kind = kind;
    this.info = info;
    this.title = typeof info.title === 'string' && info.title ? info.title : kind;
    /** @type {Record<string, ParamSpec>} */
    this.params = isObject(info.params) ? info.params : {};
    /** @type {Map<string, { spec: ParamSpec, input: any, error: HTMLElement }>} param name → its field */
    this.fields = new Map();
    this.element = this.build(index);
    this.flow = new StartFlow(store, api, {
      kind,
      button: this.start,
      error: this.error,
      waitForJob: true,
      params: () => this.collect(),
      refused: (reply) => this.refused(reply),
      update: () => this.update(),
    });
  }

  /** @param {number} index */
  build(index) {
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
    const start = make('button', 'primary kind-start needs-operator', 'Start');
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
      this.flow.submit();
    });
    return form;
  }

  /** @param {string} name @param {ParamSpec} spec @param {string} id */
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

  /** @param {string} name @param {string} text */
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

  // A refusal of this form's start: a bad param next to its field, anything else under the form.
  /** @param {Reply} reply */
  refused(reply) {
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
  update() {
    const busy = this.store.isBusy(this.kind);
    this.start.disabled = !this.store.isLive() || busy || !this.flow.idle();
    this.start.dataset.busy = String(busy);
    if (busy) setText(this.note, '“' + this.title + '” is running; Start is available again when it ends.');
    else setText(this.note, '');
  }
}

class KindForms {
  /** @param {Store} store @param {Api} api */
  constructor(store, api) {
    this.store = store;
    this.api = api;
    this.section = $('kinds-section');
    this.container = $('kind-forms');
    /** @type {Map<string, KindForm>} */
    this.forms = new Map();
    this.signature = '';
  }

  // From every snapshot: rebuilds the forms only when the declarations changed, so typed values survive
  // a reconnect.
  /** @param {Limits} limits */
  setKinds(limits) {
    const kinds = formKinds(limits);
    const signature = JSON.stringify(kinds.map((kind) => [kind, limits.kinds[kind]]));
    if (signature === this.signature) return;
    this.signature = signature;
    for (const form of this.forms.values()) form.flow.dispose();
    this.forms.clear();
    const fragment = document.createDocumentFragment();
    kinds.forEach((kind, index) => {
      const form = new KindForm(this.store, this.api, kind, limits.kinds[kind], index + 1);
      this.forms.set(kind, form);
      form.update();
      fragment.append(form.element);
    });
    this.container.replaceChildren(fragment);
    show(this.section, kinds.length > 0);
  }
}

/** @param {Context} context */
export function mount({ store, api }) {
  const forms = new KindForms(store, api);
  store.onChange((what) => {
    if (what === 'reset') forms.setKinds(store.limits);
  });
}
