import { readConfig, type ConfigError } from '@catalog/platform';
import { assetConfig } from '../src/config.js';

const BASE = { DATABASE_URL: 'postgres://asset_app@db/catalog', CALL_CONTEXT_SECRET: 'asset-config-test-call-context-secret' };

test('the fs backend is the default; the public base URL defaults to the local gateway, without a trailing slash', () => {
  expect(readConfig(assetConfig, BASE)).toMatchObject({
    blob: { backend: 'fs', dir: 'data/blobs' },
    publicBaseUrl: 'http://localhost:8080',
    internalUrl: undefined,
    signingSecret: undefined,
    versionEvents: { durable: 'asset-version-events', maxAttempts: 5 },
  });
  expect(readConfig(assetConfig, { ...BASE, PORT: '9000' }).publicBaseUrl).toBe('http://localhost:9000');
  expect(readConfig(assetConfig, { ...BASE, PUBLIC_BASE_URL: 'https://api.example.com//' }).publicBaseUrl).toBe('https://api.example.com');
});

test('the s3 backend needs its endpoint and keys; the public endpoint defaults to the endpoint', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      readConfig(assetConfig, env);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };
  expect(problems({ ...BASE, BLOB_BACKEND: 's3', S3_SECRET_KEY: 'short' })).toEqual([
    'S3_SECRET_KEY must be at least 8 characters',
    'S3_ENDPOINT is required but not set',
    'S3_ACCESS_KEY is required but not set',
  ]);
  // Unused with the fs backend, the S3 variables need not be set.
  expect(problems(BASE)).toEqual([]);
  const s3 = { BLOB_BACKEND: 's3', S3_ENDPOINT: 'http://minio:9000', S3_ACCESS_KEY: 'access', S3_SECRET_KEY: 'secret-key' };
  expect(readConfig(assetConfig, { ...BASE, ...s3 }).blob).toEqual({
    backend: 's3',
    endpoint: 'http://minio:9000',
    publicEndpoint: 'http://minio:9000',
    accessKey: 'access',
    secretKey: 'secret-key',
    bucket: 'catalog-assets',
    region: 'us-east-1',
  });
});
