export * from './app.js';
export * from './body.js';
export * from './json-depth.js';
export * from './server.js';
export * from './chunk-relay.js';
export * from './body-guard.js';
export * from './timeouts.js';
export * from './url-signing.js';
