export * from './connect.js';
export * from './context.js';
export * from './event-consumer.js';
export * from './event-message.js';
export * from './jetstream.js';
export * from './payload-size.js';
export * from './rpc.js';
export * from './subjects.js';
