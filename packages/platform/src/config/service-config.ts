import type { Static, TObject, TProperties } from '@sinclair/typebox';
import { outboxRelayEnv, outboxRelayOptions, type OutboxRelayOptions } from '../outbox/relay.js';
import { commonConfig, type CommonConfig } from './common.js';
import { Env } from '../support/env-schema.js';
import { defineConfig, type ConfigDefinition } from './read-config.js';

/**
 * The configuration of a service that records events: the settings every service shares
 * (`commonConfig`), its outbox relay's (`OUTBOX_*`, as `outbox`) and its own variables, `own`,
 * read as they are (their groups stay groups).
 */
export function outboxServiceConfig<P extends TProperties>(
  serviceName: string,
  defaultPort: number,
  own: P,
): ConfigDefinition<TObject, CommonConfig & Static<TObject<P>> & { outbox: OutboxRelayOptions }> {
  const common = commonConfig(serviceName, defaultPort);
  // The group's properties are typed loosely here (TypeBox cannot spread generic properties); the
  // values are typed again below from the same parts.
  const schema: TObject = Env.group({ common: common.schema, outbox: outboxRelayEnv, ...own } as TProperties);
  type Values = { common: Static<typeof common.schema>; outbox: Static<typeof outboxRelayEnv> } & Static<TObject<P>>;
  return defineConfig(schema, (values, check) => {
    const { common: commonValues, outbox, ...rest } = values as unknown as Values;
    return { ...common.build(commonValues, check), ...(rest as unknown as Static<TObject<P>>), outbox: outboxRelayOptions(outbox) };
  });
}

/** The longest wait for another service's answer (milliseconds; 10 s unless set, 0.1 to 60 s). */
export function rpcTimeoutEnv(env: string, description: string) {
  return Env.integer({ env, default: 10_000, minimum: 100, maximum: 60_000, description });
}
