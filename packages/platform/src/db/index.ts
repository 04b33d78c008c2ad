export * from './database.js';
export * from './leader.js';
export * from './migrate.js';
export * from './roles.js';
export { unprepared } from './prepared-statements.js';
export * from './queued-job-cap.js';
