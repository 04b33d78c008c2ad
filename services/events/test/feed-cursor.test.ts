import { createHmac } from 'node:crypto';
import { AppError, cursorCodec, newId } from '@catalog/platform';
import { feedCursors } from '../src/domain/feed-cursor.js';

const SECRET = 'feed-cursor-unit-test-secret-0123456789';

/** v1 cursors as they were handed out: the catalog feed's signed with the secret, the library's with a key of its own. */
function v1Cursor(product: string, payload: Record<string, unknown>): string {
  const secret = product === 'catalog' ? SECRET : createHmac('sha256', SECRET).update(`feed-cursor:${product}`).digest('base64url');
  return cursorCodec({ version: 1, secret, check: (p): p is Record<string, unknown> => typeof p.t === 'string' }).encode(payload);
}

function refused(decode: () => unknown): boolean {
  try {
    decode();
    return false;
  } catch (error) {
    return error instanceof AppError && error.status === 400 && error.code === 'invalid_cursor';
  }
}

describe('feed cursors', () => {
  const tenant = newId();
  const position = { tx: '18446744073709551615', id: newId() };

  test('v2: a fixed length whatever the position, and it opens only in its own feed and tenant', () => {
    const catalog = feedCursors(SECRET);
    const library = feedCursors(SECRET, 'library');
    const small = catalog.encode(tenant, { tx: '3', id: position.id });
    const large = catalog.encode(tenant, position);
    expect(small).toHaveLength(large.length);
    expect(catalog.decode(tenant, large)).toEqual(position);
    expect(catalog.decode(tenant, small)).toEqual({ tx: '3', id: position.id });
    expect(refused(() => library.decode(tenant, large))).toBe(true);
    expect(refused(() => catalog.decode(newId(), large))).toBe(true);
    expect(library.decode(tenant, library.encode(tenant, position))).toEqual(position);
  });

  test('v1 cursors of either feed are still read, each in its own feed only', () => {
    const catalog = feedCursors(SECRET);
    const library = feedCursors(SECRET, 'library');
    const oldCatalog = v1Cursor('catalog', { t: tenant, x: '42', i: position.id });
    const oldLibrary = v1Cursor('library', { t: tenant, p: 'library', x: '43', i: position.id });
    expect(catalog.decode(tenant, oldCatalog)).toEqual({ tx: '42', id: position.id });
    expect(library.decode(tenant, oldLibrary)).toEqual({ tx: '43', id: position.id });
    expect(refused(() => library.decode(tenant, oldCatalog))).toBe(true);
    expect(refused(() => catalog.decode(tenant, oldLibrary))).toBe(true);
    expect(refused(() => catalog.decode(newId(), oldCatalog))).toBe(true);
  });
});
