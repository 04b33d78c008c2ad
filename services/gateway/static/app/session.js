// @ts-check
/* The page's session (decision 0153): the key is sent once, to open it; from then on the browser
   holds only an HttpOnly cookie no script of the page can read, and the page keeps nothing. */
import { request } from './api.js';

/**
 * Exchanges the key for a session (the cookie); the key is not kept anywhere.
 * @param {string} key
 */
export async function signIn(key) {
  await (await request('POST', '/app/session', { headers: { authorization: `Bearer ${key}` } })).json();
}

/** Whether the browser holds an open session (it cannot tell from the cookie, which it cannot read). */
export async function signedIn() {
  const response = await fetch('/app/session', { headers: { 'x-catalog-app': '1' } });
  // Read to the end: an answer left unread holds its request open.
  await response.arrayBuffer();
  return response.ok;
}

/** Ends the session; the page is signed out whatever the gateway answers. */
export async function signOut() {
  await request('DELETE', '/app/session').catch(() => undefined);
}
