export * from './define-operation.js';
export * from './request-checks.js';
