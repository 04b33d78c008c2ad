export * from './connect.js';
export * from './context.js';
export * from './rpc.js';
export * from './subjects.js';
