// @ts-check
/* DOM building without markup strings: the page's policy allows none (Trusted Types, decision 0139). */

/**
 * @typedef {string | number | boolean | null | undefined | ((event: Event) => void)} AttributeValue
 * @typedef {Node | string | null | undefined | false} Child
 */

/**
 * An element with attributes (`on…` are listeners, `class` the class name, `false`/`null` left
 * out) and children (strings become text).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, AttributeValue>} [attributes]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {Element} parent
 * @param {(Child | Child[])[]} children
 */
function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/**
 * A labelled form field: `<label for>` and its input, in a wrapper.
 * @param {string} label
 * @param {HTMLInputElement | HTMLSelectElement} input
 * @param {string} [hint] shown under the field and tied to it by aria-describedby
 */
export function field(label, input, hint) {
  const hintId = hint ? `${input.id}-hint` : null;
  if (hintId) input.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input, hint ? h('small', { id: hintId }, hint) : null);
}

/** m:ss.t of milliseconds. @param {number | null | undefined} ms */
export function time(ms) {
  if (ms === null || ms === undefined) return '–';
  const tenths = Math.floor(ms / 100);
  const minutes = Math.floor(tenths / 600);
  const seconds = ((tenths % 600) / 10).toFixed(1).padStart(4, '0');
  return `${minutes}:${seconds}`;
}

/** Says `text` to screen readers (the polite live region) and shows it. @param {string} text */
export function announce(text) {
  const region = document.getElementById('status');
  if (region) region.textContent = text;
}
