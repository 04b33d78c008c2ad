import { readCommonConfig, type CommonConfig, type EnvReader } from '@catalog/platform';
import type { IpRateLimitSettings } from './http/ip-rate-limit.js';
import type { UpstreamTimeouts } from './http/upstream.js';

export interface GatewayConfig extends CommonConfig {
  adminToken: string;
  bodyLimitBytes: number;
  rpcTimeoutMs: number;
  /**
   * Proxies in front of the gateway that append to X-Forwarded-For (an ingress controller: 1); the
   * client is the address the outermost of them saw. 0: the socket address (decision 0008).
   */
  trustProxyHops: number;
  ipRateLimit: IpRateLimitSettings;
  /** Fixed base URL of the asset service's HTTP listener; unset: found over NATS. */
  assetHttpUrl: string | undefined;
  /** Longest wait for an asset listener's address over NATS. */
  assetDiscoveryTimeoutMs: number;
  /** Connect and idle limits of the proxied uploads and downloads (decision 0050). */
  upstream: UpstreamTimeouts;
}

export function readGatewayConfig(env: EnvReader): GatewayConfig {
  const common = readCommonConfig(env, 'gateway', 8080);
  // TRUST_PROXY=true (before TRUST_PROXY_HOPS) meant one proxy in front.
  const legacyTrustProxy = env.optionalString('TRUST_PROXY') === undefined ? false : env.bool('TRUST_PROXY', false);
  return {
    ...common,
    httpPort: env.int('PORT', 8080, { min: 0, max: 65535 }),
    adminToken: env.secret('ADMIN_TOKEN', undefined, 16),
    bodyLimitBytes: env.int('BODY_LIMIT_BYTES', 1024 * 1024, { min: 1024 }),
    rpcTimeoutMs: env.int('RPC_TIMEOUT_MS', 10_000, { min: 100 }),
    trustProxyHops: env.int('TRUST_PROXY_HOPS', legacyTrustProxy ? 1 : 0, { min: 0, max: 10 }),
    ipRateLimit: {
      perMinute: env.int('IP_RATE_LIMIT_PER_MINUTE', 6000, { min: 0 }),
      burst: env.int('IP_RATE_LIMIT_BURST', 600, { min: 1 }),
      maxAddresses: env.int('IP_RATE_LIMIT_MAX_ADDRESSES', 100_000, { min: 1 }),
    },
    assetHttpUrl: env.optionalString('ASSET_HTTP_URL') === undefined ? undefined : env.url('ASSET_HTTP_URL', undefined, ['http', 'https']),
    assetDiscoveryTimeoutMs: env.int('ASSET_DISCOVERY_TIMEOUT_MS', 2_000, { min: 50 }),
    upstream: {
      connectMs: env.int('UPSTREAM_CONNECT_TIMEOUT_MS', 5_000, { min: 50 }),
      idleMs: env.int('UPSTREAM_IDLE_TIMEOUT_MS', 60_000, { min: 50 }),
    },
  };
}
