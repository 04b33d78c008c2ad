/** Most levels of arrays and objects a JSON request body may nest (decision 0116). */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether the JSON text `bytes` nests arrays and objects more than `maxDepth` levels deep: one
 * pass over the raw bytes counting brackets outside strings, stopped at the first bracket too
 * deep, so nothing deeper is ever parsed (a parse, or a later `JSON.stringify`, of 100,000 levels
 * can exhaust the stack or hold the event loop). Bytes of multi-byte UTF-8 characters are never
 * ASCII, so the scan needs no decoding. It does not check the JSON otherwise: malformed text is
 * left to `JSON.parse`, which stops at its first error.
 */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth++;
      if (depth > maxDepth) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}
