import { readConfig } from '@catalog/platform';
import { gatewayConfig } from '../src/config.js';

const BASE = {
  DATABASE_URL: 'postgres://gateway_app@db/catalog',
  CALL_CONTEXT_SECRET: 'gateway-config-test-call-context-secret',
  ADMIN_TOKEN: 'gateway-config-test-admin-token',
};

test('the gateway listens on PORT (8080); <SERVICE>_HTTP_PORT is not its variable', () => {
  expect(readConfig(gatewayConfig, BASE).httpPort).toBe(8080);
  expect(readConfig(gatewayConfig, { ...BASE, PORT: '9090', GATEWAY_HTTP_PORT: '1' }).httpPort).toBe(9090);
  expect(() => readConfig(gatewayConfig, { ...BASE, PORT: '70000' })).toThrow(/PORT must be between 0 and 65535, got 70000/);
});

test('TRUST_PROXY_HOPS defaults to 0, or 1 with the older TRUST_PROXY=true; the admin token is required', () => {
  expect(readConfig(gatewayConfig, BASE).trustProxyHops).toBe(0);
  expect(readConfig(gatewayConfig, { ...BASE, TRUST_PROXY: 'true' }).trustProxyHops).toBe(1);
  expect(readConfig(gatewayConfig, { ...BASE, TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '2' }).trustProxyHops).toBe(2);
  expect(() => readConfig(gatewayConfig, { ...BASE, ADMIN_TOKEN: '' })).toThrow(/ADMIN_TOKEN is required but not set/);
});

test('RPC_TIMEOUT_MS must be below HTTP_IDLE_TIMEOUT_MS: a longer wait would reach the client as a dropped connection', () => {
  expect(readConfig(gatewayConfig, { ...BASE, RPC_TIMEOUT_MS: '59999' }).rpcTimeoutMs).toBe(59_999);
  expect(() => readConfig(gatewayConfig, { ...BASE, RPC_TIMEOUT_MS: '60000' })).toThrow(
    /RPC_TIMEOUT_MS \(60000\) must be below HTTP_IDLE_TIMEOUT_MS \(60000\)/,
  );
  expect(readConfig(gatewayConfig, { ...BASE, RPC_TIMEOUT_MS: '60000', HTTP_IDLE_TIMEOUT_MS: '90000' }).rpcTimeoutMs).toBe(60_000);
});

test('APP_UPLOAD_ORIGINS: origins /app may upload to, space-separated; anything but an http(s) origin is refused', () => {
  expect(readConfig(gatewayConfig, BASE).appUploadOrigins).toEqual([]);
  const origins = readConfig(gatewayConfig, { ...BASE, APP_UPLOAD_ORIGINS: ' https://s3.example.net  http://minio.local:9000 ' });
  expect(origins.appUploadOrigins).toEqual(['https://s3.example.net', 'http://minio.local:9000']);
  for (const bad of ['https://s3.example.net/', 'https://s3.example.net/bucket', 'ftp://s3.example.net', 's3.example.net', "'self'"])
    expect(() => readConfig(gatewayConfig, { ...BASE, APP_UPLOAD_ORIGINS: bad })).toThrow(/APP_UPLOAD_ORIGINS: .* is not an origin/);
});
