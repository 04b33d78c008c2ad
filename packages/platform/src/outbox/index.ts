export * from './outbox.js';
export * from './notify.js';
export * from './relay.js';
export * from './registered-event.js';
