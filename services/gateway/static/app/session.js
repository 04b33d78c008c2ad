// @ts-check
/* The API key of the signed-in user: in session storage only (gone with the tab), never logged. */
const KEY = 'catalog.apiKey';

/** @returns {string | null} */
export function apiKey() {
  return sessionStorage.getItem(KEY);
}

/** @param {string} key */
export function signIn(key) {
  sessionStorage.setItem(KEY, key);
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}
