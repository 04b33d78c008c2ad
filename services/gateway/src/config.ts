import { readCommonConfig, type CommonConfig, type EnvReader } from '@catalog/platform';
import type { IpRateLimitSettings } from './http/ip-rate-limit.js';

export interface GatewayConfig extends CommonConfig {
  adminToken: string;
  bodyLimitBytes: number;
  rpcTimeoutMs: number;
  trustProxy: boolean;
  ipRateLimit: IpRateLimitSettings;
  /** Fixed base URL of the asset service's HTTP listener; unset: found over NATS. */
  assetHttpUrl: string | undefined;
}

export function readGatewayConfig(env: EnvReader): GatewayConfig {
  const common = readCommonConfig(env, 'gateway', 8080);
  return {
    ...common,
    httpPort: env.int('PORT', 8080, { min: 0, max: 65535 }),
    adminToken: env.secret('ADMIN_TOKEN', undefined, 16),
    bodyLimitBytes: env.int('BODY_LIMIT_BYTES', 1024 * 1024, { min: 1024 }),
    rpcTimeoutMs: env.int('RPC_TIMEOUT_MS', 10_000, { min: 100 }),
    trustProxy: env.bool('TRUST_PROXY', false),
    ipRateLimit: {
      perMinute: env.int('IP_RATE_LIMIT_PER_MINUTE', 6000, { min: 0 }),
      burst: env.int('IP_RATE_LIMIT_BURST', 600, { min: 1 }),
    },
    assetHttpUrl: env.optionalString('ASSET_HTTP_URL') === undefined ? undefined : env.url('ASSET_HTTP_URL', undefined, ['http', 'https']),
  };
}
