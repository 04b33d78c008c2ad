export { readEventsConfig, type EventsConfig } from './config.js';
export { startEventsService } from './service.js';
