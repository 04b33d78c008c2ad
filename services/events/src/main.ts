import { runService } from '@catalog/platform';
import { eventsConfig } from './config.js';
import { startEventsService } from './service.js';

await runService('events', eventsConfig, (config) => startEventsService(config));
