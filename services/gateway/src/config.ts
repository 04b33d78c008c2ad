import { commonConfig, defineConfig, Env, type ConfigOf } from '@catalog/platform';

const common = commonConfig('gateway', 8080, { portVariable: 'PORT' });

export const gatewayConfig = defineConfig(
  Env.group({
    common: common.schema,
    adminToken: Env.secret({ env: 'ADMIN_TOKEN', minLength: 16, description: 'Bearer token of the admin API.' }),
    bodyLimitBytes: Env.integer({
      env: 'BODY_LIMIT_BYTES',
      default: 1024 * 1024,
      minimum: 1024,
      description: 'Largest JSON request body.',
    }),
    rpcTimeoutMs: Env.integer({
      env: 'RPC_TIMEOUT_MS',
      default: 10_000,
      minimum: 100,
      description: 'Longest wait for a service to answer; below `HTTP_IDLE_TIMEOUT_MS`, or the gateway refuses to start.',
    }),
    trustProxyHops: Env.optional(
      Env.integer({
        env: 'TRUST_PROXY_HOPS',
        minimum: 0,
        maximum: 10,
        defaultText: '0 (1 with `TRUST_PROXY=true`)',
        description:
          'Proxies in front of the gateway that append to X-Forwarded-For (an ingress controller: 1); the client is the address ' +
          'the outermost of them saw; 0: the socket address (decision 0008).',
      }),
    ),
    legacyTrustProxy: Env.optional(
      Env.boolean({ env: 'TRUST_PROXY', description: 'Before `TRUST_PROXY_HOPS`: `true` meant one proxy in front.' }),
    ),
    ipRateLimit: Env.group({
      perMinute: Env.integer({
        env: 'IP_RATE_LIMIT_PER_MINUTE',
        default: 6000,
        minimum: 0,
        description: 'Requests per minute from one address.',
      }),
      burst: Env.integer({ env: 'IP_RATE_LIMIT_BURST', default: 600, minimum: 1, description: 'Requests one address may send at once.' }),
      maxAddresses: Env.integer({
        env: 'IP_RATE_LIMIT_MAX_ADDRESSES',
        default: 100_000,
        minimum: 1,
        description: 'Addresses the limiter remembers at most.',
      }),
    }),
    apiKeyMaxStalenessMs: Env.integer({
      env: 'API_KEY_MAX_STALENESS_MS',
      default: 1_000,
      minimum: 0,
      maximum: 60_000,
      description:
        "Longest a revocation, rotation or plan change may take to reach every gateway replica's keys in memory; " +
        'a replica that cannot prove it is that current reads keys from the database; 0: every request reads its key there (decision 0070).',
    }),
    apiKeyChangesRetentionMs: Env.integer({
      env: 'API_KEY_CHANGES_RETENTION_MS',
      default: 3_600_000,
      minimum: 60_000,
      description:
        'How long the API-key change log keeps a change; every gateway replica prunes older ones, and a replica cut off from the log ' +
        'for longer reloads every key (decision 0073).',
    }),
    idempotencyKeyRetentionMs: Env.integer({
      env: 'IDEMPOTENCY_KEY_RETENTION_MS',
      default: 86_400_000,
      minimum: 86_400_000,
      description:
        'How long an Idempotency-Key of a create route names its request and answer (at least 24 h); every gateway replica ' +
        'prunes older ones (decision 0119).',
    }),
    idempotencyKeyPruneIntervalMs: Env.integer({
      env: 'IDEMPOTENCY_KEY_PRUNE_INTERVAL_MS',
      default: 600_000,
      minimum: 100,
      description: 'How often a gateway replica deletes the Idempotency-Keys older than `IDEMPOTENCY_KEY_RETENTION_MS`.',
    }),
    assetHttpUrl: Env.optional(
      Env.url({
        env: 'ASSET_HTTP_URL',
        protocols: ['http', 'https'],
        defaultText: 'found over NATS',
        description: "Fixed base URL of the asset service's HTTP listener.",
      }),
    ),
    assetDiscoveryTimeoutMs: Env.integer({
      env: 'ASSET_DISCOVERY_TIMEOUT_MS',
      default: 2_000,
      minimum: 50,
      description: "Longest wait for an asset listener's address over NATS.",
    }),
    appUploadOrigins: Env.string({
      env: 'APP_UPLOAD_ORIGINS',
      default: '',
      description:
        "Origins besides the gateway's own that `/app` may upload to, space-separated: with the `s3` blob backend, the origin of " +
        '`S3_PUBLIC_ENDPOINT`, whose bucket must allow it by CORS (decision 0145).',
    }),
    /** The library page's sessions (decision 0153). */
    appSession: Env.group({
      idleTimeoutMs: Env.integer({
        env: 'APP_SESSION_IDLE_TIMEOUT_MS',
        default: 1_800_000,
        minimum: 1_000,
        description: 'A session of the library page `/app` unused for this long has ended (decision 0153).',
      }),
      maxAgeMs: Env.integer({
        env: 'APP_SESSION_MAX_AGE_MS',
        default: 43_200_000,
        minimum: 1_000,
        description:
          'A session of `/app` ends this long after sign-in however it is used; signing in again opens a new one (decision 0153).',
      }),
      perKey: Env.integer({
        env: 'APP_SESSIONS_PER_KEY',
        default: 20,
        minimum: 1,
        maximum: 10_000,
        description: 'Sessions of `/app` one API key may hold at once; signing in once more ends its oldest (decision 0153).',
      }),
      secureCookie: Env.oneOf(['auto', 'always'] as const, {
        env: 'APP_SESSION_SECURE_COOKIE',
        default: 'auto',
        description:
          "When the session cookie of `/app` is `Secure`: `auto`, on requests that came over TLS (the gateway's own, or " +
          '`X-Forwarded-Proto: https` from the proxies `TRUST_PROXY_HOPS` trusts); `always`, on every request (decision 0153).',
      }),
    }),
    /** Connect and idle limits of the proxied uploads and downloads (decision 0050). */
    upstream: Env.group({
      connectMs: Env.integer({
        env: 'UPSTREAM_CONNECT_TIMEOUT_MS',
        default: 5_000,
        minimum: 50,
        description: 'Longest wait to connect to the asset listener of an upload or download (decision 0050).',
      }),
      idleMs: Env.integer({
        env: 'UPSTREAM_IDLE_TIMEOUT_MS',
        default: 60_000,
        minimum: 50,
        description: 'A proxied upload or download on which no byte moves for this long is cut (decision 0050).',
      }),
    }),
    /** Limits of the proxied fs uploads (decision 0148). */
    uploads: Env.group({
      maxPerTenant: Env.integer({
        env: 'UPLOAD_MAX_IN_FLIGHT_PER_TENANT',
        default: 16,
        minimum: 1,
        description:
          'Uploads of one organisation a gateway replica relays at once (fs backend); beyond it 429 with Retry-After (decision 0148).',
      }),
      idleMs: Env.integer({
        env: 'UPLOAD_IDLE_TIMEOUT_MS',
        default: 30_000,
        minimum: 50,
        description:
          'A proxied upload whose body brings no byte for this long while the gateway reads it is ended with 408 (decision 0148); ' +
          'below `HTTP_IDLE_TIMEOUT_MS`, or the gateway refuses to start.',
      }),
    }),
  }),
  ({ common: commonValues, trustProxyHops, legacyTrustProxy, appUploadOrigins, ...own }, check) => {
    const built = common.build(commonValues, check);
    // The client's connection carries no byte while the gateway waits for a service: closed at
    // the idle timeout, a longer wait would reach the client as a dropped connection, not a 504.
    if (own.rpcTimeoutMs >= built.http.idleTimeoutMs) {
      check.refuse(`RPC_TIMEOUT_MS (${own.rpcTimeoutMs}) must be below HTTP_IDLE_TIMEOUT_MS (${built.http.idleTimeoutMs})`);
    }
    // Past the listener's idle timeout the client would see its connection dropped, not the 408.
    if (own.uploads.idleMs >= built.http.idleTimeoutMs) {
      check.refuse(`UPLOAD_IDLE_TIMEOUT_MS (${own.uploads.idleMs}) must be below HTTP_IDLE_TIMEOUT_MS (${built.http.idleTimeoutMs})`);
    }
    const uploadOrigins = appUploadOrigins.split(/\s+/).filter((origin) => origin !== '');
    for (const origin of uploadOrigins.filter((value) => !isOrigin(value)))
      check.refuse(`APP_UPLOAD_ORIGINS: ${origin} is not an origin (http or https, host, optional port; no path)`);
    return { ...built, ...own, appUploadOrigins: uploadOrigins, trustProxyHops: trustProxyHops ?? (legacyTrustProxy ? 1 : 0) };
  },
);

/** Whether `value` is exactly an http(s) origin, as a Content-Security-Policy source names it. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

export type GatewayConfig = ConfigOf<typeof gatewayConfig>;
