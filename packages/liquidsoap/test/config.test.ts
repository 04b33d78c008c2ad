import { readConfig } from '../src/config.js';

const env = {
  CATALOG_URL: 'https://catalog.example.com',
  CATALOG_API_KEY: 'sk_test',
  CATALOG_INTEGRATION_ID: '11111111-1111-4111-8111-111111111111',
  LIQUIDSOAP_MEDIA_DIR: '/srv/liquidsoap/media',
};

test('defaults: the playlist and the cursor beside the media, −14 LUFS', () => {
  expect(readConfig(env)).toEqual({
    catalogUrl: 'https://catalog.example.com',
    apiKey: 'sk_test',
    integrationId: '11111111-1111-4111-8111-111111111111',
    mediaDir: '/srv/liquidsoap/media',
    playlist: '/srv/liquidsoap/media/catalog.m3u',
    stateDir: '/srv/liquidsoap/media/.catalog-state',
    targetLufs: -14,
    defaultHeartbeatSeconds: 60,
  });
});

test('every problem named at once, never the key', () => {
  const error = (() => {
    try {
      readConfig({ CATALOG_URL: 'catalog', CATALOG_API_KEY: 'sk_secret', CATALOG_INTEGRATION_ID: 'x', LIQUIDSOAP_TARGET_LUFS: '3' });
    } catch (caught) {
      return caught as Error;
    }
    throw new Error('accepted');
  })();
  expect(error.message).toBe(
    'configuration: CATALOG_URL must be an http(s) address; CATALOG_INTEGRATION_ID must be the integration id (a UUID); ' +
      'LIQUIDSOAP_MEDIA_DIR is required; LIQUIDSOAP_TARGET_LUFS must be a number from -70 to 0',
  );
  expect(error.message).not.toContain('sk_secret');
});
