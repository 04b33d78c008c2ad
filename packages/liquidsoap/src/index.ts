/** catalog-liquidsoap: the Liquidsoap connector of the catalog (docs/integrations.md "Liquidsoap"). */
export { amplifyFactor, annotationsOf, playlistLine, type TrackFacts } from './annotations.js';
export { readConfig, type ConnectorConfig } from './config.js';
export { runConnector } from './run.js';
