import { readCommonConfig, type CommonConfig, type EnvReader } from '@catalog/platform';

export type EventsConfig = CommonConfig;

export function readEventsConfig(env: EnvReader): EventsConfig {
  return readCommonConfig(env, 'events', 8084);
}
