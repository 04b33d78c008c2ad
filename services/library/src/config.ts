import { commonConfig, type ConfigOf } from '@catalog/platform';

export const libraryConfig = commonConfig('library', 8085);

export type LibraryConfig = ConfigOf<typeof libraryConfig>;
