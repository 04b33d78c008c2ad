export * from './database.js';
export * from './leader.js';
export * from './migrate.js';
export * from './roles.js';
export { OLDEST_RUNNING_IN_DATABASE } from './running-in-database.js';
export { unprepared } from './prepared-statements.js';
export * from './queued-job-cap.js';
export { sendQuery } from './send-query.js';
