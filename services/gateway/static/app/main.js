// @ts-check
/* The library page (decision 0139): sign-in with an API key, exchanged for a session of the page
   (decision 0153), then the views by the URL's hash: #/ search, #/tracks/<entityId> a track,
   #/upload the upload. */
import { call, problem, whenUnauthorized } from './api.js';
import { announce, field, h } from './dom.js';
import { renderSearch } from './search.js';
import { signedIn, signIn, signOut } from './session.js';
import { renderTrack } from './track.js';
import { renderUpload } from './upload.js';

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
const signOutButton = /** @type {HTMLButtonElement} */ (document.getElementById('sign-out'));
/** Whether the page's session is open, as the gateway last said. */
let signed = false;

/** @param {string} [notice] */
function renderSignIn(notice) {
  const key = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const message = h('p', { id: 'sign-in-message', role: 'alert' }, notice ?? '');
  const form = h(
    'form',
    { 'aria-label': 'Sign in' },
    field('API key', key, 'A key of your organisation (sk_…) with the library permission; sent once to open a session, never kept.'),
    h('button', { type: 'submit' }, 'Sign in'),
    message,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const candidate = key.value.trim();
    if (!candidate) return key.focus();
    try {
      await signIn(candidate);
      key.value = '';
      // The key may open a session yet lack the library's permission: say so now, signed out.
      await call('GET', '/api/v1/library/tracks?limit=1').catch(async (error) => {
        await signOut();
        throw error;
      });
      signed = true;
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
  nav.hidden = !signed;
  signOutButton.hidden = !signed;
  if (!signed) return renderSignIn();
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

signOutButton.addEventListener('click', async () => {
  await signOut();
  signed = false;
  announce('Signed out.');
  route(true);
});
whenUnauthorized(() => {
  signed = false;
  nav.hidden = true;
  signOutButton.hidden = true;
  renderSignIn('The session has ended (idle too long, signed out, or the key was revoked or rotated): sign in again.');
});
window.addEventListener('hashchange', () => {
  if (location.hash.startsWith('#/') || location.hash === '') route(true);
});
signed = await signedIn().catch(() => false);
route();
