import preset from '../jest.preset.mjs';

export default { ...preset, testMatch: ['<rootDir>/contract/**/*.test.ts', '<rootDir>/deploy/**/*.test.ts', '<rootDir>/security/**/*.test.ts'], testTimeout: 60_000 };
