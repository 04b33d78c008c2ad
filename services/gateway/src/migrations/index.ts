import type { Migrations } from '@catalog/platform';
import { organizationsAndKeys } from './0001_organizations_and_keys.js';
import { keyRateLimits } from './0002_key_rate_limits.js';
import { keyRateLimitsUnlogged } from './0003_key_rate_limits_unlogged.js';
import { apiKeyChanges } from './0004_api_key_changes.js';
import { apiKeyChangeHorizon } from './0005_api_key_change_horizon.js';
import { apiKeyPreviousSecret } from './0006_api_key_previous_secret.js';
import { idempotencyKeys } from './0007_idempotency_keys.js';
import { appSessions } from './0008_app_sessions.js';
import { apiKeyIntegration } from './0009_api_key_integration.js';

export const gatewayMigrations: Migrations = {
  '0001_organizations_and_keys': organizationsAndKeys,
  '0002_key_rate_limits': keyRateLimits,
  '0003_key_rate_limits_unlogged': keyRateLimitsUnlogged,
  '0004_api_key_changes': apiKeyChanges,
  '0005_api_key_change_horizon': apiKeyChangeHorizon,
  '0006_api_key_previous_secret': apiKeyPreviousSecret,
  '0007_idempotency_keys': idempotencyKeys,
  '0008_app_sessions': appSessions,
  '0009_api_key_integration': apiKeyIntegration,
};
