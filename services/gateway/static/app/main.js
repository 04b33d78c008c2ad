// @ts-check
/* The library page (decision 0139): sign-in with an API key, then the views by the URL's hash:
   #/ search, #/tracks/<entityId> a track, #/upload the upload. */
import { call, problem, whenUnauthorized } from './api.js';
import { announce, field, h } from './dom.js';
import { renderSearch } from './search.js';
import { apiKey, signIn, signOut } from './session.js';
import { renderTrack } from './track.js';
import { renderUpload } from './upload.js';

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
const signOutButton = /** @type {HTMLButtonElement} */ (document.getElementById('sign-out'));

/** @param {string} [notice] */
function renderSignIn(notice) {
  const key = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const message = h('p', { id: 'sign-in-message', role: 'alert' }, notice ?? '');
  const form = h(
    'form',
    { 'aria-label': 'Sign in' },
    field('API key', key, 'A key of your organisation (sk_…) with the library permission; kept in this tab only.'),
    h('button', { type: 'submit' }, 'Sign in'),
    message,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const candidate = key.value.trim();
    if (!candidate) return key.focus();
    try {
      await call('GET', '/api/v1/library/tracks?limit=1', { key: candidate });
      signIn(candidate);
      key.value = '';
      announce('Signed in.');
      route(true);
    } catch (error) {
      message.textContent = `Sign-in failed: ${problem(error)}`;
      key.select();
    }
  });
  main.replaceChildren(h('h2', { tabindex: '-1' }, 'Sign in'), form);
  key.focus();
}

/**
 * Shows the view the hash names (the sign-in while there is no key); after a navigation within the
 * page, focus moves to the view's heading (a fresh load starts at the top, as any page).
 * @param {boolean} [focus]
 */
function route(focus = false) {
  const signedIn = apiKey() !== null;
  nav.hidden = !signedIn;
  signOutButton.hidden = !signedIn;
  if (!signedIn) return renderSignIn();
  const hash = location.hash;
  const track = /^#\/tracks\/([0-9a-fA-F-]{36})$/.exec(hash);
  for (const link of nav.querySelectorAll('a')) {
    if (link.getAttribute('href') === (hash.startsWith('#/upload') ? '#/upload' : '#/')) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (track) return void renderTrack(main, /** @type {string} */ (track[1]), focus);
  document.title = hash === '#/upload' ? 'Upload – Catalog library' : 'Catalog library';
  if (hash === '#/upload') renderUpload(main);
  else renderSearch(main);
  if (focus) main.querySelector('h2')?.focus();
}

signOutButton.addEventListener('click', () => {
  signOut();
  announce('Signed out.');
  route(true);
});
whenUnauthorized(() => {
  signOut();
  renderSignIn('The key was refused (revoked or expired): sign in again.');
});
window.addEventListener('hashchange', () => {
  if (location.hash.startsWith('#/') || location.hash === '') route(true);
});
route();
