import { runService } from '@catalog/platform';
import { libraryConfig } from './config.js';
import { startLibraryService } from './service.js';

await runService('library', libraryConfig, (config) => startLibraryService(config));
