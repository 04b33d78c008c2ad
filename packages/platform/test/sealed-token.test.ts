import { sealedTokens } from '@catalog/platform';

const SECRET = 'a-secret-of-enough-length-0123456789';

describe('sealed tokens', () => {
  const tokens = sealedTokens({ version: 2, secret: SECRET, purpose: 'unit' });
  const plaintext = Buffer.from('position 0000000000000042', 'utf8');

  test('open what they sealed in the same context; the token carries nothing readable and is URL-safe', () => {
    const token = tokens.seal(plaintext, 'tenant-a');
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token, 'base64url').includes(Buffer.from('0000000000000042'))).toBe(false);
    expect(tokens.open(token, 'tenant-a')).toEqual(plaintext);
    expect(tokens.claims(token)).toBe(true);
    // Synthetic nonce: the same plaintext in the same context seals alike, in another one not.
    expect(tokens.seal(plaintext, 'tenant-a')).toBe(token);
    expect(tokens.seal(plaintext, 'tenant-b')).not.toBe(token);
    // 1 version byte, 12 of nonce, the plaintext's length, 16 of tag.
    expect(Buffer.from(token, 'base64url')).toHaveLength(1 + 12 + plaintext.length + 16);
  });

  test('another context, purpose, secret or version, an altered, cut or overlong token: nothing opens', () => {
    const token = tokens.seal(plaintext, 'tenant-a');
    const bytes = Buffer.from(token, 'base64url');
    const altered = Buffer.from(bytes);
    altered[20] = altered[20]! ^ 1;
    const others = [
      sealedTokens({ version: 2, secret: SECRET, purpose: 'other' }),
      sealedTokens({ version: 2, secret: `${SECRET}!`, purpose: 'unit' }),
      sealedTokens({ version: 3, secret: SECRET, purpose: 'unit' }),
    ];
    expect(tokens.open(token, 'tenant-b')).toBeNull();
    for (const other of others) expect(other.open(token, 'tenant-a')).toBeNull();
    expect(others[2]!.claims(token)).toBe(false);
    for (const bad of [
      altered.toString('base64url'),
      bytes.subarray(0, -1).toString('base64url'),
      `${token}AA`,
      'AAAA',
      '',
      'not a token',
    ]) {
      expect(tokens.open(bad, 'tenant-a')).toBeNull();
    }
    expect(tokens.open('A'.repeat(2000), 'tenant-a')).toBeNull();
    expect(() => sealedTokens({ version: 0, secret: SECRET, purpose: 'unit' })).toThrow();
  });
});
