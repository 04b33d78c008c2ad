export { eventsConfig, type EventsConfig } from './config.js';
export { startEventsService } from './service.js';
export { eventsMigrations } from './migrations/index.js';
export { feedCursors, type FeedCursors } from './domain/feed-cursor.js';
export { feedPageStatement } from './persistence/feed-page.js';
